//! Hash-based commitments for fastzk's Spartan prover:
//!
//! * [`merkle`]: Merkle trees over SHA3-256 or BLAKE3 digests, parallel construction,
//!   batch openings;
//! * [`orion`]: the Orion polynomial commitment with Reed–Solomon codes (Shockwave's
//!   substitution, NoCap's parameters by default: 128 rows, rate 1/4; hiding).
//!
//! The Fiat–Shamir transcript is `fastzk_multilinear::Transcript`.

pub mod merkle;
pub mod orion;

pub use merkle::{Digest, MerkleTree, MultiProof};
pub use orion::{
    block_weights, column_leaves, combine_rows, commit, commit_with, encode_and_hash, encode_rows,
    open, open_with, verify, Combiner, Commitment, Committed, Encoder, EvalProof, ExtensionOf,
    OrionParams, Rows, Salt,
};

/// Why a commitment could not be made or an opening was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PcsError {
    #[error("{0}")]
    Shape(String),
    #[error("Merkle proof rejected: {0}")]
    Merkle(String),
    #[error("opening rejected: {0}")]
    Rejected(String),
    #[error(transparent)]
    Code(#[from] fastzk_poly::PolyError),
    /// A caller's encoder ([`orion::commit_with`]) failed (a device error, say) or gave
    /// codewords or a tree of the wrong shape.
    #[error("encoding the rows: {0}")]
    Encode(String),
    /// A caller's combiner ([`orion::open_with`]) failed.
    #[error("combining the rows: {0}")]
    Combine(String),
}
