//! The interface every radix-2 NTT implementation shares: the fast engine
//! ([`crate::Radix2Domain`]), the naive reference ([`crate::NaiveDft`]), and a device
//! backend in its own crate. The conformance suite (`fastzk-testing`) checks any
//! implementation against the reference, in every order and on cosets.

use fastzk_field::NttField;

use crate::{Order, PolyError};

/// A radix-2 NTT over one subgroup `H = ⟨ω⟩` of size `2^k` and its coset `g·H`.
pub trait TwoAdicTransform<F: NttField>: Sync {
    /// `k`.
    fn log_size(&self) -> u32;
    /// `n = 2^k`.
    fn size(&self) -> usize {
        1 << self.log_size()
    }
    /// `ω`.
    fn generator(&self) -> F;
    /// `g`.
    fn coset_shift(&self) -> F;

    /// Coefficients → evaluations on `H`: `a_j ↦ Σ_i a_i ω^{ij}`, in place; `input` is the
    /// order of the coefficients, `output` that of the evaluations.
    fn forward(&self, a: &mut [F], input: Order, output: Order) -> Result<(), PolyError>;
    /// Evaluations on `H` → coefficients (the exact inverse of [`Self::forward`]).
    fn inverse(&self, a: &mut [F], input: Order, output: Order) -> Result<(), PolyError>;
    /// Coefficients → evaluations on `g·H`.
    fn coset_forward(&self, a: &mut [F], input: Order, output: Order) -> Result<(), PolyError>;
    /// Evaluations on `g·H` → coefficients.
    fn coset_inverse(&self, a: &mut [F], input: Order, output: Order) -> Result<(), PolyError>;

    /// [`Self::forward`] on every row of a row-major `R × n` matrix (`rows.len() = R·n`).
    fn forward_batch(&self, rows: &mut [F], input: Order, output: Order) -> Result<(), PolyError> {
        each_row(self.size(), rows, |r| self.forward(r, input, output))
    }
    /// [`Self::inverse`] on every row.
    fn inverse_batch(&self, rows: &mut [F], input: Order, output: Order) -> Result<(), PolyError> {
        each_row(self.size(), rows, |r| self.inverse(r, input, output))
    }
    /// [`Self::coset_forward`] on every row.
    fn coset_forward_batch(
        &self,
        rows: &mut [F],
        input: Order,
        output: Order,
    ) -> Result<(), PolyError> {
        each_row(self.size(), rows, |r| self.coset_forward(r, input, output))
    }
    /// [`Self::coset_inverse`] on every row.
    fn coset_inverse_batch(
        &self,
        rows: &mut [F],
        input: Order,
        output: Order,
    ) -> Result<(), PolyError> {
        each_row(self.size(), rows, |r| self.coset_inverse(r, input, output))
    }
}

/// `rows.len()` must be a multiple of `n`.
pub(crate) fn check_rows(n: usize, len: usize) -> Result<(), PolyError> {
    if !len.is_multiple_of(n) {
        return Err(PolyError::LengthMismatch {
            expected: len.next_multiple_of(n),
            got: len,
        });
    }
    Ok(())
}

fn each_row<F>(
    n: usize,
    rows: &mut [F],
    mut f: impl FnMut(&mut [F]) -> Result<(), PolyError>,
) -> Result<(), PolyError> {
    check_rows(n, rows.len())?;
    rows.chunks_mut(n).try_for_each(&mut f)
}
