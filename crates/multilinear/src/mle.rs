//! Multilinear extensions by their values on the Boolean hypercube, and `eq` tables.
//!
//! Convention: the value at `x = (x_0, …, x_{n−1}) ∈ {0,1}^n` sits at index
//! `Σ x_i·2^(n−1−i)`: variable 0 is the most significant bit. Binding variable 0 then
//! pairs the two contiguous halves of the table (`f(0, ·)` and `f(1, ·)`), which is what
//! the sumcheck prover and the evaluation fold do, round after round.

use fastzk_field::Field;
use rayon::prelude::*;

use crate::MleError;

/// Tables at least this long are folded with rayon.
const PAR_MIN: usize = 1 << 14;

/// A multilinear polynomial in `num_vars` variables, by its `2^num_vars` values on the
/// hypercube.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mle<F> {
    evals: Vec<F>,
    num_vars: usize,
}

impl<F: Field> Mle<F> {
    /// From the hypercube values; their number must be a power of two (1 is a constant).
    pub fn new(evals: Vec<F>) -> Result<Self, MleError> {
        if !evals.len().is_power_of_two() {
            return Err(MleError::NotPowerOfTwo(evals.len()));
        }
        let num_vars = evals.len().trailing_zeros() as usize;
        Ok(Self { evals, num_vars })
    }

    /// `values` padded with zeros to the next power of two (at least one value).
    pub fn padded(mut values: Vec<F>) -> Self {
        let n = values.len().max(1).next_power_of_two();
        values.resize(n, F::ZERO);
        Self::new(values).expect("padded to a power of two")
    }

    pub fn num_vars(&self) -> usize {
        self.num_vars
    }

    pub fn evals(&self) -> &[F] {
        &self.evals
    }

    pub fn into_evals(self) -> Vec<F> {
        self.evals
    }

    /// The polynomial with variable 0 fixed to `r`: `f(r, ·) = f(0, ·) + r·(f(1, ·) − f(0, ·))`.
    pub fn fix_first(&self, r: F) -> Result<Self, MleError> {
        if self.num_vars == 0 {
            return Err(MleError::NoVariables);
        }
        let half = self.evals.len() / 2;
        let (lo, hi) = self.evals.split_at(half);
        let mut evals = lo.to_vec();
        lerp(&mut evals, hi, r);
        Ok(Self {
            evals,
            num_vars: self.num_vars - 1,
        })
    }

    /// [`fix_first`](Self::fix_first) in place (the table halves).
    pub fn fix_first_in_place(&mut self, r: F) -> Result<(), MleError> {
        if self.num_vars == 0 {
            return Err(MleError::NoVariables);
        }
        bind_first_in_place(&mut self.evals, r);
        self.num_vars -= 1;
        Ok(())
    }

    /// `f(point)` by folding one variable at a time: `O(2^n)` operations.
    pub fn evaluate(&self, point: &[F]) -> Result<F, MleError> {
        if point.len() != self.num_vars {
            return Err(MleError::PointLength {
                expected: self.num_vars,
                got: point.len(),
            });
        }
        let Some((&first, rest)) = point.split_first() else {
            return Ok(self.evals[0]);
        };
        let mut t = self.fix_first(first)?;
        for &r in rest {
            t.fix_first_in_place(r)?;
        }
        Ok(t.evals[0])
    }

    /// The same values taken into a larger field (a Goldilocks table into the extension
    /// its challenges live in).
    pub fn map<G: Field>(&self, f: impl Fn(&F) -> G + Sync + Send) -> Mle<G> {
        Mle {
            evals: self.evals.par_iter().map(f).collect(),
            num_vars: self.num_vars,
        }
    }
}

/// Binds the first variable of the table `evals` (a non-empty power-of-two length) to
/// `r` in place: `lo[j] += r·(hi[j] − lo[j])`, then the upper half is dropped.
pub fn bind_first_in_place<F: Field>(evals: &mut Vec<F>, r: F) {
    let half = evals.len() / 2;
    let (lo, hi) = evals.split_at_mut(half);
    lerp(lo, hi, r);
    evals.truncate(half);
}

/// `lo[j] += r·(hi[j] − lo[j])` through the field's slice kernel ([`Field::lerp_assign`]:
/// Goldilocks' packed lanes), in parallel blocks for long tables.
fn lerp<F: Field>(lo: &mut [F], hi: &[F], r: F) {
    if lo.len() >= PAR_MIN {
        lo.par_chunks_mut(PAR_MIN / 4)
            .zip(hi.par_chunks(PAR_MIN / 4))
            .for_each(|(l, h)| F::lerp_assign(l, h, r));
    } else {
        F::lerp_assign(lo, hi, r);
    }
}

/// Variables in each half from which [`eq_table`] fills in parallel.
const PAR_EQ_HALF: usize = 6;

/// `eq(r, x) = Π_i (r_i·x_i + (1 − r_i)·(1 − x_i))` for every `x` of the hypercube, in the
/// table order of [`Mle`] (`2^n` values, `2^n` multiplications).
pub fn eq_table<F: Field>(r: &[F]) -> Vec<F> {
    // Large tables: the product of the tables of the two halves of `r`, filled in
    // parallel (one product per entry, as the doubling below).
    if r.len() >= 2 * PAR_EQ_HALF {
        let h = r.len() / 2;
        let (hi, lo) = (eq_table(&r[..h]), eq_table(&r[h..]));
        let mut table = vec![F::ZERO; 1 << r.len()];
        table
            .par_chunks_mut(lo.len())
            .zip(hi.par_iter())
            .for_each(|(chunk, h)| {
                chunk.iter_mut().zip(&lo).for_each(|(t, l)| *t = *h * *l);
            });
        return table;
    }
    let mut table = Vec::with_capacity(1 << r.len());
    table.push(F::ONE);
    for &ri in r {
        // Each entry t splits into (t·(1 − r_i), t·r_i), in place from the back.
        let n = table.len();
        table.resize(2 * n, F::ZERO);
        for j in (0..n).rev() {
            let t = table[j];
            let one = t * ri;
            table[2 * j] = t - one;
            table[2 * j + 1] = one;
        }
    }
    table
}

/// `eq(a, b)` for two points of equal length.
pub fn eq_eval<F: Field>(a: &[F], b: &[F]) -> Result<F, MleError> {
    if a.len() != b.len() {
        return Err(MleError::PointLength {
            expected: a.len(),
            got: b.len(),
        });
    }
    Ok(a.iter()
        .zip(b)
        .map(|(&x, &y)| x * y + (F::ONE - x) * (F::ONE - y))
        .product())
}

/// The reference evaluation `Σ_x eq(point, x)·f(x)` with `eq` recomputed for each `x`
/// from its bits (`O(n·2^n)`, independent of the fold): for tests.
pub fn evaluate_naive<F: Field>(evals: &[F], point: &[F]) -> F {
    let n = point.len();
    evals
        .iter()
        .enumerate()
        .map(|(idx, &v)| {
            let bits: Vec<F> = (0..n)
                .map(|i| {
                    if (idx >> (n - 1 - i)) & 1 == 1 {
                        F::ONE
                    } else {
                        F::ZERO
                    }
                })
                .collect();
            v * eq_eval(point, &bits).expect("same length")
        })
        .sum()
}
