//! NTTs and polynomial arithmetic for fastzk.
//!
//! * [`Radix2Domain`]: a multiplicative subgroup of size `2^k` with its twiddles
//!   precomputed once (cached per field and size with [`Radix2Domain::cached`]); forward and
//!   inverse NTTs in place, natural or bit-reversed order on either side, on the subgroup
//!   or a coset of it, multithreaded (rayon), and batched over the rows of a matrix.
//! * The NTT is radix-2 with one twiddle per butterfly block (Cooley–Tukey forward with
//!   bit-reversed output, Gentleman–Sande inverse with bit-reversed input), so twiddles are
//!   read in order from a single table. Sizes beyond a cache block use a four-step (Bailey)
//!   decomposition: the top levels run on column tiles of the `2^L × C` matrix view and the
//!   remaining levels on each contiguous row block in cache; the four-step twiddle
//!   multiplication is folded into the block twiddles and the transposes are replaced by
//!   strided tiles. See `ntt.rs`.
//! * Goldilocks takes a fast path through [`fastzk_field::goldilocks::packed`] (AVX-512 / AVX2 chosen
//!   at run time).
//! * [`DensePolynomial`]: multiplication via NTT, evaluation, interpolation, division by
//!   the vanishing polynomial on a coset, Lagrange basis and barycentric evaluation.
//! * [`ReedSolomon`]: zero-pad to `n / rate` and NTT.

mod domain;
mod naive;
mod ntt;
mod poly;
mod rs;
mod transform;

pub use domain::{powers_into, Radix2Domain};
pub use naive::NaiveDft;
pub use ntt::reverse_bits;
pub use poly::{barycentric_evaluate, divide_by_vanishing_on_coset, interpolate, DensePolynomial};
pub use rs::ReedSolomon;
pub use transform::{Order, Subgroup, Transform, TwoAdicTransform};

/// Puts `x` in bit-reversed index order, in place and in parallel; applying it twice
/// restores the input. The length must be a power of two (or zero).
pub fn bit_reverse_permute<F: Send>(x: &mut [F]) -> Result<(), PolyError> {
    if !x.len().is_power_of_two() && !x.is_empty() {
        return Err(PolyError::NotPowerOfTwo(x.len()));
    }
    ntt::bit_reverse(x, true);
    Ok(())
}

/// Why a polynomial or NTT operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolyError {
    #[error(
        "a domain of 2^{log_size} points exceeds the field's two-adicity (at most 2^{two_adicity})"
    )]
    TooLarge { log_size: u32, two_adicity: u32 },
    #[error("expected length {expected}, got {got}")]
    LengthMismatch { expected: usize, got: usize },
    #[error("length {0} is not a power of two")]
    NotPowerOfTwo(usize),
    #[error("the coset generator must be non-zero and outside the subgroup")]
    BadCoset,
    #[error("the given generator does not have the domain's order")]
    BadRoot,
    #[error("interpolation points must be distinct")]
    DuplicatePoint,
    #[error("division by zero: {0}")]
    DivisionByZero(&'static str),
    /// A device transform's driver or kernel failed (the message names which).
    #[error("device: {0}")]
    Device(String),
}

/// `got == expected`, else [`PolyError::LengthMismatch`].
pub fn check_len(expected: usize, got: usize) -> Result<(), PolyError> {
    if got != expected {
        return Err(PolyError::LengthMismatch { expected, got });
    }
    Ok(())
}

impl From<fastzk_field::LengthMismatch> for PolyError {
    fn from(e: fastzk_field::LengthMismatch) -> Self {
        PolyError::LengthMismatch {
            expected: e.expected,
            got: e.got,
        }
    }
}
