//! The masking polynomial of a zero-knowledge sumcheck (Libra, Xie et al. CRYPTO 2019,
//! §4.1, after Chiesa–Forbes–Spooner): `p(x) = a_0 + Σ_i p_i(x_i)` with each `p_i` a random
//! univariate of degree `d_i` and no constant term.
//!
//! The prover commits to `p`, sends `P = Σ_x p(x)`, receives `ρ`, and runs the sumcheck
//! on `g + ρ·p` for the claim `H + ρ·P`. Round `i`'s message is `g`'s plus `ρ` times
//! `2^m·(a_0 + Σ_{j<i} p_j(r_j) + p_i(X)) + 2^(m−1)·Σ_{j>i} p_j(1)` (`m` variables left
//! after `i`): fresh random coefficients of degree `1 … d_i` in every round, so the
//! messages reveal nothing about `g` beyond its value at the final point. The verifier
//! needs `p(r)` at the end, from the commitment.

use fastzk_field::Field;
use rand_core::RngCore;

/// `a_0 + Σ_i Σ_{k=1..d_i} c_{i,k}·x_i^k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnivariateMask<F> {
    pub constant: F,
    /// `coeffs[i][k − 1] = c_{i,k}`.
    pub coeffs: Vec<Vec<F>>,
}

impl<F: Field> UnivariateMask<F> {
    /// A uniformly random mask with `degrees[i]` coefficients for variable `i`.
    pub fn random<R: RngCore + ?Sized>(degrees: &[usize], rng: &mut R) -> Self {
        Self {
            constant: F::random(rng),
            coeffs: degrees
                .iter()
                .map(|&d| (0..d).map(|_| F::random(rng)).collect())
                .collect(),
        }
    }

    pub fn num_vars(&self) -> usize {
        self.coeffs.len()
    }

    /// Every coefficient, the constant first, then variable by variable.
    pub fn flatten(&self) -> Vec<F> {
        std::iter::once(self.constant)
            .chain(self.coeffs.iter().flatten().copied())
            .collect()
    }

    /// `p_i(x)`.
    fn univariate(&self, i: usize, x: F) -> F {
        let mut power = F::ONE;
        let mut acc = F::ZERO;
        for c in &self.coeffs[i] {
            power *= x;
            acc += *c * power;
        }
        acc
    }

    /// `Σ_{x ∈ {0,1}^n} p(x) = 2^n·a_0 + 2^(n−1)·Σ_i p_i(1)`.
    pub fn sum(&self) -> F {
        let n = self.num_vars();
        let ones: F = (0..n).map(|i| self.univariate(i, F::ONE)).sum();
        let half = if n == 0 {
            F::ZERO
        } else {
            F::from_u64(1 << (n - 1))
        };
        F::from_u64(1 << n) * self.constant + half * ones
    }

    /// `p(point)`.
    pub fn evaluate(&self, point: &[F]) -> F {
        point
            .iter()
            .enumerate()
            .map(|(i, &x)| self.univariate(i, x))
            .sum::<F>()
            + self.constant
    }

    /// Round `prefix.len()`'s message of `p` at `X = 0, 2, 3, …, len`, the earlier
    /// variables bound to `prefix`.
    pub fn round_message(&self, prefix: &[F], len: usize) -> Vec<F> {
        std::iter::once(0u64)
            .chain(2..=len as u64)
            .map(|x| self.round_at(prefix, F::from_u64(x)))
            .collect()
    }

    /// Round `prefix.len()`'s polynomial of `p` at `X = x`:
    /// `Σ_{x' ∈ {0,1}^left} p(prefix, x, x')`.
    pub fn round_at(&self, prefix: &[F], x: F) -> F {
        let i = prefix.len();
        let n = self.num_vars();
        let left = n - i - 1;
        let bound = self.constant
            + prefix
                .iter()
                .enumerate()
                .map(|(j, &r)| self.univariate(j, r))
                .sum::<F>();
        let later = if left == 0 {
            F::ZERO
        } else {
            F::from_u64(1 << (left - 1)) * (i + 1..n).map(|j| self.univariate(j, F::ONE)).sum::<F>()
        };
        F::from_u64(1 << left) * (bound + self.univariate(i, x)) + later
    }
}
