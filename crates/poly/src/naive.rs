//! The `O(n²)` reference transform: every evaluation by Horner's rule, every
//! interpolation by the inverse DFT sum. Slow on purpose; it shares nothing with the
//! fast NTT but the [`TwoAdicTransform`] interface, so it can stand in for it in tests.

use fastzk_field::NttField;

use crate::ntt::reverse_bits;
use crate::transform::{Subgroup, Transform, TwoAdicTransform};
use crate::{check_len, Order, PolyError};

/// The DFT on `H = ⟨ω⟩` of size `2^log_n` and on the coset `g·H`, computed naively.
#[derive(Clone, Debug)]
pub struct NaiveDft<F> {
    sub: Subgroup<F>,
}

impl<F: NttField> NaiveDft<F> {
    /// Size `2^log_n` on the field's own root; coset shift the multiplicative generator.
    pub fn new(log_n: u32) -> Result<Self, PolyError> {
        Subgroup::new(log_n).map(Self::on)
    }

    /// The DFT on the given subgroup and coset.
    pub fn on(sub: Subgroup<F>) -> Self {
        Self { sub }
    }

    /// `out_j = Σ_i a_i (shift·ω^j)^i`.
    fn evaluate(&self, a: &[F], shift: F) -> Vec<F> {
        let mut out = Vec::with_capacity(a.len());
        let mut x = shift;
        for _ in 0..a.len() {
            out.push(a.iter().rev().fold(F::ZERO, |acc, &c| acc * x + c));
            x *= self.sub.generator();
        }
        out
    }

    /// `a_i = n⁻¹ shift^{−i} Σ_j e_j ω^{−ij}`.
    fn interpolate(&self, e: &[F], shift: F) -> Result<Vec<F>, PolyError> {
        let n = e.len();
        let n_inv = F::from_u64(n as u64)
            .inverse()
            .ok_or(PolyError::DivisionByZero("n"))?;
        let shift_inv = shift.inverse().ok_or(PolyError::BadCoset)?;
        let omega_inv = self.sub.generator().inverse().ok_or(PolyError::BadRoot)?;
        let mut out = Vec::with_capacity(n);
        let (mut w, mut s) = (F::ONE, n_inv);
        for _ in 0..n {
            let sum = e.iter().rev().fold(F::ZERO, |acc, &c| acc * w + c);
            out.push(sum * s);
            w *= omega_inv;
            s *= shift_inv;
        }
        Ok(out)
    }
}

/// `v` in the given order (bit reversal is its own inverse).
fn arrange<F: Copy>(v: &[F], order: Order) -> Vec<F> {
    match order {
        Order::Natural => v.to_vec(),
        Order::BitReversed => {
            let k = v.len().trailing_zeros();
            (0..v.len()).map(|i| v[reverse_bits(i, k)]).collect()
        }
    }
}

impl<F: NttField> TwoAdicTransform<F> for NaiveDft<F> {
    fn subgroup(&self) -> &Subgroup<F> {
        &self.sub
    }
    fn apply(
        &self,
        kind: Transform,
        a: &mut [F],
        input: Order,
        output: Order,
    ) -> Result<(), PolyError> {
        check_len(self.size(), a.len())?;
        let natural = arrange(a, input);
        let shift = if kind.on_coset() {
            self.sub.coset_shift()
        } else {
            F::ONE
        };
        let out = if kind.is_inverse() {
            self.interpolate(&natural, shift)?
        } else {
            self.evaluate(&natural, shift)
        };
        a.copy_from_slice(&arrange(&out, output));
        Ok(())
    }
}
