//! Spartan proof files (fastzk's own binary format) over Goldilocks and BN254.
#![no_main]
use fastzk_field::{bn254, Goldilocks, GoldilocksExt3};
use fastzk_spartan::format::read_proof;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let _ = read_proof::<Goldilocks, GoldilocksExt3>(bytes, "fuzz.proof");
    let _ = read_proof::<bn254::Fr, bn254::Fr>(bytes, "fuzz.proof");
});
