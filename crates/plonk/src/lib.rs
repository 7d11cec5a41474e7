//! Plonk with KZG commitments over BN254 and BLS12-381, drop-in for snarkjs' `plonk`:
//! its `.zkey` (read, and written byte for byte), its `proof.json` and
//! `verification_key.json`, and a prover that follows `snarkjs plonk prove` 0.7.6 step
//! for step (same transcript, same polynomials, same blinding), so snarkjs verifies
//! fastzk's proofs and fastzk verifies snarkjs'.
//!
//! * [`ProvingKey`] / [`VerifyingKey`] (`keys.rs`), read and written by `zkey.rs`; the
//!   `4n` evaluations of a key read from a file stay in the file ([`ExtendedStore`]) and
//!   are read a block at a time.
//! * [`prove`] (`prover.rs`), [`verify`] (`verifier.rs`), the Keccak transcript
//!   (`transcript.rs`), the JSON files (`json.rs`).
//! * [`setup`] (`setup.rs`): snarkjs' `plonk setup` — R1CS to gates
//!   ([`PlonkCircuit::from_r1cs`]), permutation, selectors — from a `.ptau` (the key is
//!   byte-identical to snarkjs') or from a locally drawn `τ` for development.

pub mod json;
mod keys;
pub mod prover;
mod quotient;
mod quotient_lanes;
mod quotient_layer;
pub mod setup;
pub mod source;
pub mod transcript;
pub mod verifier;
pub mod zkey;

pub use json::{
    proof_from_json, proof_to_json, read_proof_json, read_vk_json, vk_from_json, vk_to_json,
    write_proof_json, write_vk_json,
};
pub use keys::{Addition, Extended, ExtendedStore, Proof, ProvingKey, VerifyingKey};
pub use prover::{prove, prove_with, prove_with_rng, ProveError, ProveOptions, ProveTimings};
pub use quotient_layer::quotient_programs;
pub use setup::{setup, Gate, PlonkCircuit, Powers, SetupError};
pub use verifier::{verify, VerifyError};
pub use zkey::zkey_protocol;

pub use fastzk_pairing::{Fr, PairingCurve, G1, G2};

/// snarkjs' primitive `2^log_n`-th root of unity (from the non-residue 5).
///
/// # Panics
/// If `log_n` exceeds the field's two-adicity; keys are checked against it when read.
pub fn root_of_unity<E: PairingCurve>(log_n: u32) -> Fr<E> {
    fastzk_formats::snarkjs::root_of_unity(log_n)
        .expect("domain size checked against the two-adicity")
}
