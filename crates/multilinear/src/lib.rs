//! The multilinear toolkit of fastzk's hash-based SNARK (Spartan + Orion, NoCap):
//!
//! * [`mle`]: multilinear extensions by their hypercube values ([`Mle`]), binding a
//!   variable, evaluation, `eq` tables;
//! * [`sumcheck`]: a generic prover and verifier for sums of products of tables of any
//!   degree, batched claims, and lazily recomputed tables (NoCap §V);
//! * [`product`]: grand products by a layered sumcheck (Spark's memory checks);
//! * [`mask`]: the masking polynomial of a zero-knowledge sumcheck (Libra);
//! * [`transcript`]: the Fiat–Shamir transcript (SHA3-256 or BLAKE3).
//!
//! Everything is generic over [`fastzk_field::Field`]: BN254's scalar field directly,
//! Goldilocks through its extension (a sumcheck's soundness error is `n·d/|F|`, too
//! large over 64 bits alone).

pub mod mask;
pub mod mle;
pub mod product;
pub mod sumcheck;
pub mod transcript;

pub use mask::UnivariateMask;
pub use mle::{eq_eval, eq_table, Mle};
pub use product::{LeafClaims, ProductProof};
pub use sumcheck::{SumOfProducts, SumcheckProof, Table};
pub use transcript::{Absorb, HashKind, Transcript};

/// A table or point of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MleError {
    #[error("a multilinear table needs a power-of-two number of values, got {0}")]
    NotPowerOfTwo(usize),
    #[error("the polynomial has no variable left to bind")]
    NoVariables,
    #[error("point has {got} coordinates, expected {expected}")]
    PointLength { expected: usize, got: usize },
}

/// Why a sumcheck could not be proved or did not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SumcheckError {
    #[error("term uses table {index}, but there are {tables}")]
    NoSuchTable { index: usize, tables: usize },
    #[error("{got} values given, expected {expected}")]
    ValueCount { expected: usize, got: usize },
    #[error("tables have different sizes: 2^{got} values, expected 2^{expected}")]
    TableSizes { expected: usize, got: usize },
    #[error("proof has {got} rounds, expected {expected}")]
    RoundCount { expected: usize, got: usize },
    #[error("round {round}: {got} values, expected {expected}")]
    MessageLength {
        round: usize,
        expected: usize,
        got: usize,
    },
    #[error("the final claim does not match the polynomial at the tables' values")]
    FinalCheck,
}
