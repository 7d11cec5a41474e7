//! Groth16 over BN254 and BLS12-381, with keys laid out as snarkjs lays them out.
//!
//! The proving key holds what a snarkjs `.zkey` holds: the A and B matrices (with the
//! `n_public + 1` extra rows snarkjs adds so that the public inputs are bound), the
//! query points, and the H query in snarkjs' form (Lagrange basis of the `2n` domain at
//! the odd points, so the prover evaluates `A·B − C` on the odd coset and never
//! divides by the vanishing polynomial). [`prove`] follows snarkjs' prover exactly, so a
//! zkey made by snarkjs proves here and the result verifies with snarkjs.
//!
//! The curves come from `fastzk-pairing`; the snarkjs files of this protocol (the
//! `.zkey`, `proof.json`, `verification_key.json`) are read and written here, from the
//! building blocks of `fastzk-formats`.

pub mod bounded;
pub mod distributed;
pub mod json;
mod keys;
pub mod prover;
pub mod setup;
pub mod setup_file;
pub mod setup_ptau;
pub mod verifier;
pub mod zkey;

pub use bounded::{prove_bounded, prove_bounded_with_rng, Bounded};
pub use distributed::{prove_distributed, DistributedError, RankReport, Transport};
pub use json::{
    proof_from_json, proof_to_json, read_proof_json, read_vk_json, vk_from_json, vk_to_json,
    write_proof_json, write_vk_json,
};
pub use keys::{Proof, ProvingKey, VerifyingKey};
pub use prover::{prove, prove_with, prove_with_rng, Offload, ProveOptions, ProveTimings};
pub use setup::{setup_random, SetupError};
pub use setup_file::{setup_random_to_file, ConstraintSource};
pub use verifier::{verify, VerifyError};
pub use zkey::{check_query_subgroups, read_zkey, write_zkey, Section, Zkey, ZkeyView};

use fastzk_pairing::{Fr, PairingCurve, G1, G2};

/// Why proving failed.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    #[error("witness has {got} values, the proving key has {expected} variables")]
    WitnessLength { expected: usize, got: usize },
    #[error("witness value 0 must be 1 (the constant signal), found another value")]
    WitnessConstant,
    #[error("the proving key is inconsistent: {0}")]
    Key(String),
    #[error("witness does not satisfy the constraints: {0}")]
    Unsatisfied(#[from] fastzk_r1cs::R1csError),
    #[error(
        "the proof does not verify against the key's own verification key, so the witness \
         does not satisfy the circuit (pass the .r1cs to name the failing constraint)"
    )]
    SelfCheckFailed,
    #[error(transparent)]
    Msm(#[from] fastzk_msm::MsmError),
    /// A key read while proving ([`bounded`]) is malformed.
    #[error(transparent)]
    Format(#[from] fastzk_formats::error::FormatError),
    #[error(transparent)]
    Poly(#[from] fastzk_poly::PolyError),
}
