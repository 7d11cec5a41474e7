//! Dense univariate polynomials and the domain-based operations provers need.

use fastzk_field::{batch_inverse, NttField};
use rayon::prelude::*;

use crate::domain::{mul_pointwise, Radix2Domain};
use crate::PolyError;
use crate::{Order, TwoAdicTransform};

/// Below this many coefficients in the smaller factor, schoolbook multiplication wins.
const NAIVE_MUL_CUTOFF: usize = 32;

/// A polynomial by its coefficients, lowest degree first, without trailing zeros.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DensePolynomial<F: NttField> {
    coeffs: Vec<F>,
}

impl<F: NttField> DensePolynomial<F> {
    /// Takes coefficients lowest degree first (trailing zeros are dropped).
    pub fn new(mut coeffs: Vec<F>) -> Self {
        while coeffs.last().is_some_and(|c| c.is_zero()) {
            coeffs.pop();
        }
        Self { coeffs }
    }
    pub fn zero() -> Self {
        Self { coeffs: vec![] }
    }
    pub fn coeffs(&self) -> &[F] {
        &self.coeffs
    }
    pub fn into_coeffs(self) -> Vec<F> {
        self.coeffs
    }
    pub fn is_zero(&self) -> bool {
        self.coeffs.is_empty()
    }
    /// `None` for the zero polynomial.
    pub fn degree(&self) -> Option<usize> {
        self.coeffs.len().checked_sub(1)
    }

    /// `p(x)` by Horner's rule (split into parallel chunks for long polynomials).
    pub fn evaluate(&self, x: F) -> F {
        const CHUNK: usize = 1 << 14;
        let horner = |c: &[F]| c.iter().rev().fold(F::ZERO, |acc, &a| acc * x + a);
        if self.coeffs.len() <= 2 * CHUNK {
            return horner(&self.coeffs);
        }
        let step = x.pow_u64(CHUNK as u64);
        let parts: Vec<F> = self.coeffs.par_chunks(CHUNK).map(horner).collect();
        parts.iter().rev().fold(F::ZERO, |acc, &p| acc * step + p)
    }

    pub fn add(&self, other: &Self) -> Self {
        let (long, short) = if self.coeffs.len() >= other.coeffs.len() {
            (self, other)
        } else {
            (other, self)
        };
        let mut c = long.coeffs.clone();
        for (a, b) in c.iter_mut().zip(&short.coeffs) {
            *a += *b;
        }
        Self::new(c)
    }

    pub fn sub(&self, other: &Self) -> Self {
        let mut c = self.coeffs.clone();
        c.resize(self.coeffs.len().max(other.coeffs.len()), F::ZERO);
        for (a, b) in c.iter_mut().zip(&other.coeffs) {
            *a -= *b;
        }
        Self::new(c)
    }

    /// `self · other`, schoolbook for small factors and by NTT otherwise; an error only
    /// when the product is longer than the field's largest two-adic domain.
    pub fn mul(&self, other: &Self) -> Result<Self, PolyError> {
        if self.is_zero() || other.is_zero() {
            return Ok(Self::zero());
        }
        let len = self.coeffs.len() + other.coeffs.len() - 1;
        if self.coeffs.len().min(other.coeffs.len()) <= NAIVE_MUL_CUTOFF {
            let mut c = vec![F::ZERO; len];
            for (i, &a) in self.coeffs.iter().enumerate() {
                for (j, &b) in other.coeffs.iter().enumerate() {
                    c[i + j] += a * b;
                }
            }
            return Ok(Self::new(c));
        }
        let domain = Radix2Domain::<F>::for_len(len)?;
        let mut a = self.coeffs.clone();
        a.resize(domain.size(), F::ZERO);
        let mut b = other.coeffs.clone();
        b.resize(domain.size(), F::ZERO);
        // Bit-reversed evaluations are fine for a pointwise product: no permutations.
        domain.forward(&mut a, Order::Natural, Order::BitReversed)?;
        domain.forward(&mut b, Order::Natural, Order::BitReversed)?;
        mul_pointwise(&mut a, &b, true)?;
        domain.inverse(&mut a, Order::BitReversed, Order::Natural)?;
        a.truncate(len);
        Ok(Self::new(a))
    }

    /// The polynomial with `evals[i] = p(ω^i)` on `domain` (inverse NTT).
    pub fn from_evaluations(evals: &[F], domain: &Radix2Domain<F>) -> Result<Self, PolyError> {
        let mut c = evals.to_vec();
        domain.inverse(&mut c, Order::Natural, Order::Natural)?;
        Ok(Self::new(c))
    }

    /// `[p(ω^i)]` on `domain`; coefficients beyond its size are folded (`X^n = 1`).
    pub fn evaluate_over_domain(&self, domain: &Radix2Domain<F>) -> Result<Vec<F>, PolyError> {
        let mut a = vec![F::ZERO; domain.size()];
        for (i, &c) in self.coeffs.iter().enumerate() {
            a[i % domain.size()] += c;
        }
        domain.forward(&mut a, Order::Natural, Order::Natural)?;
        Ok(a)
    }

    /// `(q, r)` with `self = q·(X^n − 1) + r` and `deg r < n`.
    pub fn divide_by_vanishing(&self, n: usize) -> Result<(Self, Self), PolyError> {
        if n == 0 {
            return Err(PolyError::DivisionByZero("X^0 − 1 = 0"));
        }
        if self.coeffs.len() <= n {
            return Ok((Self::zero(), self.clone()));
        }
        // From the top: q_{i−n} = c_i + q_i.
        let mut q = vec![F::ZERO; self.coeffs.len() - n];
        for i in (n..self.coeffs.len()).rev() {
            let carry = if i < q.len() { q[i] } else { F::ZERO };
            q[i - n] = self.coeffs[i] + carry;
        }
        let mut r = self.coeffs[..n].to_vec();
        for (i, ri) in r.iter_mut().enumerate() {
            if i < q.len() {
                *ri += q[i];
            }
        }
        Ok((Self::new(q), Self::new(r)))
    }
}

/// The polynomial of degree `< xs.len()` through `(xs[i], ys[i])` (Lagrange, `O(n²)`).
pub fn interpolate<F: NttField>(xs: &[F], ys: &[F]) -> Result<DensePolynomial<F>, PolyError> {
    if xs.len() != ys.len() {
        return Err(PolyError::LengthMismatch {
            expected: xs.len(),
            got: ys.len(),
        });
    }
    let mut sorted = xs.to_vec();
    sorted.sort_unstable();
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return Err(PolyError::DuplicatePoint);
    }
    let n = xs.len();
    // M(X) = Π (X − x_j), then each basis numerator is M / (X − x_i) by synthetic division.
    let mut m = vec![F::ONE];
    for &x in xs {
        m.push(F::ZERO);
        for k in (1..m.len()).rev() {
            let prev = m[k - 1];
            m[k] = m[k] * (-x) + prev;
        }
        m[0] *= -x;
    }
    let mut denoms: Vec<F> = (0..n)
        .map(|i| (0..n).filter(|&j| j != i).map(|j| xs[i] - xs[j]).product())
        .collect();
    batch_inverse(&mut denoms);
    let mut out = vec![F::ZERO; n];
    for i in 0..n {
        // m / (X − x_i): coefficients from the top.
        let mut carry = F::ZERO;
        let scale = ys[i] * denoms[i];
        for k in (0..n).rev() {
            carry = m[k + 1] + carry * xs[i];
            out[k] += carry * scale;
        }
    }
    Ok(DensePolynomial::new(out))
}

/// Divides evaluations on the coset `g·⟨ω_N⟩` of `big` (size `N`) by the vanishing
/// polynomial `X^n − 1` of the subgroup of size `n = 2^log_n ≤ N`, in place — the step
/// that turns `A·B − C` into Groth16's `H` or Plonk's quotient.
pub fn divide_by_vanishing_on_coset<F: NttField>(
    evals: &mut [F],
    big: &Radix2Domain<F>,
    log_n: u32,
) -> Result<(), PolyError> {
    if evals.len() != big.size() {
        return Err(PolyError::LengthMismatch {
            expected: big.size(),
            got: evals.len(),
        });
    }
    if log_n > big.log_size() {
        return Err(PolyError::LengthMismatch {
            expected: big.size(),
            got: 1 << log_n.min(63),
        });
    }
    let n = 1u64 << log_n;
    // Z(g·ω_N^i) = g^n·ζ^i − 1 with ζ = ω_N^n of order N/n: N/n distinct values.
    let period = big.size() >> log_n;
    let gn = big.coset_shift().pow_u64(n);
    let zeta = big.generator().pow_u64(n);
    let mut z: Vec<F> = Vec::with_capacity(period);
    let mut acc = gn;
    for _ in 0..period {
        z.push(acc - F::ONE);
        acc *= zeta;
    }
    if z.iter().any(|v| v.is_zero()) {
        return Err(PolyError::DivisionByZero(
            "the coset meets the vanishing set",
        ));
    }
    batch_inverse(&mut z);
    if period == 1 {
        let zi = z[0];
        evals.par_iter_mut().for_each(|e| *e *= zi);
    } else {
        evals
            .par_chunks_mut(period)
            .for_each(|c| c.iter_mut().zip(&z).for_each(|(e, zi)| *e *= *zi));
    }
    Ok(())
}

impl<F: NttField> Radix2Domain<F> {
    /// All Lagrange basis polynomials of the domain at `x`:
    /// `L_i(x) = ω^i (x^n − 1) / (n (x − ω^i))`, and the unit vector when `x ∈ H`.
    pub fn lagrange_coefficients(&self, x: F) -> Vec<F> {
        let zx = self.evaluate_vanishing(x);
        let elems = self.elements();
        if zx.is_zero() {
            return elems
                .iter()
                .map(|&w| if w == x { F::ONE } else { F::ZERO })
                .collect();
        }
        let mut d: Vec<F> = elems.iter().map(|&w| x - w).collect();
        batch_inverse(&mut d);
        let c = zx * self.size_inv();
        d.iter().zip(&elems).map(|(&di, &w)| c * w * di).collect()
    }
}

/// `p(x)` from `evals[i] = p(ω^i)` on `domain` without interpolating (barycentric formula
/// `p(x) = (x^n − 1)/n · Σ evals[i]·ω^i/(x − ω^i)`).
pub fn barycentric_evaluate<F: NttField>(
    domain: &Radix2Domain<F>,
    evals: &[F],
    x: F,
) -> Result<F, PolyError> {
    if evals.len() != domain.size() {
        return Err(PolyError::LengthMismatch {
            expected: domain.size(),
            got: evals.len(),
        });
    }
    let zx = domain.evaluate_vanishing(x);
    let elems = domain.elements();
    if zx.is_zero() {
        let i = elems.iter().position(|&w| w == x).unwrap_or(0);
        return Ok(evals[i]);
    }
    let mut d: Vec<F> = elems.par_iter().map(|&w| x - w).collect();
    batch_inverse(&mut d);
    let sum: F = d
        .par_iter()
        .zip(&elems)
        .zip(evals)
        .map(|((&di, &w), &e)| e * w * di)
        .reduce(|| F::ZERO, |a, b| a + b);
    Ok(zx * domain.size_inv() * sum)
}
