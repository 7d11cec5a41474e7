//! Groth16 proof.json and verification_key.json (BN254 and BLS12-381).
#![no_main]
use fastzk_groth16::json::{proof_from_json, vk_from_json};
use fastzk_pairing::{Bls12_381, Bn254};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = proof_from_json::<Bn254>(text, "fuzz.json");
    let _ = proof_from_json::<Bls12_381>(text, "fuzz.json");
    let _ = vk_from_json::<Bn254>(text, "fuzz.json");
    let _ = vk_from_json::<Bls12_381>(text, "fuzz.json");
});
