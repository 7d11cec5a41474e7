//! Groth16 over BN254 and BLS12-381, with keys laid out as snarkjs lays them out.
//!
//! The proving key holds what a snarkjs `.zkey` holds: the A and B matrices (with the
//! `n_public + 1` extra rows snarkjs adds so that the public inputs are bound), the
//! query points, and the H query in snarkjs' form (Lagrange basis of the `2n` domain at
//! the odd points, so the prover evaluates `A·B − C` on the odd coset and never
//! divides by the vanishing polynomial). [`prove`] follows snarkjs' prover exactly, so a
//! zkey made by snarkjs proves here and the result verifies with snarkjs.

mod curves;
pub mod domain;
mod fixed_base;
mod keys;
pub mod prover;
pub mod setup;
pub mod setup_ptau;
pub mod verifier;

pub use curves::{Bls12_381, Bn254, PairingCurve};
pub use keys::{Proof, ProvingKey, VerifyingKey};
pub use prover::{prove, prove_with, prove_with_rng, ProveOptions, ProveTimings};
pub use setup::{setup_random, SetupError};
pub use setup_ptau::domain_log_size;
pub use verifier::{verify, VerifyError};

use fastzk_curve::Affine;

/// G1 points of curve `E`.
pub type G1<E> = Affine<<E as PairingCurve>::G1>;
/// G2 points of curve `E`.
pub type G2<E> = Affine<<E as PairingCurve>::G2>;
/// The scalar field of curve `E`.
pub type Fr<E> = <E as PairingCurve>::Fr;

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
    #[error(transparent)]
    Poly(#[from] fastzk_poly::PolyError),
}
