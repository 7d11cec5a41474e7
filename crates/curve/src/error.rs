//! Errors from validating or combining points.

use fastzk_field::FieldError;

/// Why a point or a batch operation was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CurveError {
    #[error("point is not on the curve")]
    NotOnCurve,
    #[error("point is not in the prime-order subgroup")]
    NotInSubgroup,
    #[error("slice lengths differ: expected {expected}, got {got}")]
    LengthMismatch { expected: usize, got: usize },
    #[error("invalid field element: {0}")]
    Field(#[from] FieldError),
}
