//! Spartan proof and key files (fastzk's own binary formats: NIZK proofs, SNARK-mode
//! proofs, SNARK keys) over Goldilocks and BN254.
#![no_main]
use fastzk_field::{bn254, Goldilocks, GoldilocksExt3};
use fastzk_spartan::format::{read_key, read_proof, read_snark_proof};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let _ = read_proof::<Goldilocks, GoldilocksExt3>(bytes, "fuzz.proof");
    let _ = read_proof::<bn254::Fr, bn254::Fr>(bytes, "fuzz.proof");
    let _ = read_snark_proof::<Goldilocks, GoldilocksExt3>(bytes, "fuzz.proof");
    let _ = read_snark_proof::<bn254::Fr, bn254::Fr>(bytes, "fuzz.proof");
    let _ = read_key::<Goldilocks, GoldilocksExt3>(bytes, "fuzz.skey");
    let _ = read_key::<bn254::Fr, bn254::Fr>(bytes, "fuzz.skey");
});
