//! `.ptau` with point validation on (BN254 and BLS12-381).
#![no_main]
use fastzk_formats::{Ptau, Validate};
use fastzk_pairing::{Bls12_381, Bn254};
use libfuzzer_sys::fuzz_target;

fastzk_fuzz::container_mutator!();

fuzz_target!(|data: &[u8]| {
    let _ = Ptau::<Bn254>::from_bytes(data.to_vec(), "fuzz.ptau", Validate::Yes);
    let _ = Ptau::<Bls12_381>::from_bytes(data.to_vec(), "fuzz.ptau", Validate::Yes);
});
