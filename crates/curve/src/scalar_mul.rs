//! Scalar multiplication: width-`w` NAF with an affine table of odd multiples (mixed
//! additions), and GLV (two half-length wNAF chains sharing the doublings) where the
//! curve provides an endomorphism.

use crate::affine::Affine;
use crate::batch::batch_normalize;
use crate::config::{scalar_limbs, CurveConfig};
use crate::glv::Glv;
use crate::jacobian::Jacobian;
use crate::xyzz::Xyzz;

/// Window width: 2^(W−2) = 8 precomputed points, the sweet spot for ~256-bit scalars.
pub const WNAF_WIDTH: u32 = 5;
/// Narrower window for the two ~128-bit GLV halves (two tables to build).
pub const GLV_WNAF_WIDTH: u32 = 4;

/// Width-`w` non-adjacent form of a little-endian integer, least significant digit
/// first. Every nonzero digit is odd and in `(−2^(w−1), 2^(w−1))`. `w` must be in 2..=7.
pub fn wnaf_digits(k: &[u64], w: u32) -> Vec<i8> {
    debug_assert!((2..=7).contains(&w));
    let mut k: Vec<u64> = k.to_vec();
    // One spare limb absorbs the carry when a negative digit rounds k up.
    k.push(0);
    let window = 1u64 << w;
    let half = window >> 1;
    let mask = window - 1;
    let mut out = Vec::with_capacity(k.len() * 64);
    while k.iter().any(|&l| l != 0) {
        if k[0] & 1 == 1 {
            let d = k[0] & mask;
            if d >= half {
                // digit d − 2^w < 0: k − digit = k + (2^w − d)
                add_small(&mut k, window - d);
                out.push((d as i64 - window as i64) as i8);
            } else {
                // d is odd and < 2^(w−1); subtracting it clears the low w bits' value.
                k[0] -= d;
                out.push(d as i8);
            }
        } else {
            out.push(0);
        }
        shr1(&mut k);
    }
    out
}

fn add_small(k: &mut [u64], v: u64) {
    let mut carry = v;
    for limb in k.iter_mut() {
        let (s, c) = limb.overflowing_add(carry);
        *limb = s;
        if !c {
            return;
        }
        carry = 1;
    }
}

fn shr1(k: &mut [u64]) {
    let n = k.len();
    for i in 0..n {
        let hi = if i + 1 < n { k[i + 1] << 63 } else { 0 };
        k[i] = (k[i] >> 1) | hi;
    }
}

/// `[P, 3P, 5P, …, (2^(w−1)−1)P]` in affine (one batched inversion).
fn odd_multiples<C: CurveConfig>(p: &Jacobian<C>, w: u32) -> Vec<Affine<C>> {
    let n = 1usize << (w - 2);
    let mut table = Vec::with_capacity(n);
    table.push(*p);
    let p2 = p.double();
    for i in 1..n {
        let next = table[i - 1].add_jacobian(&p2);
        table.push(next);
    }
    batch_normalize(&table)
}

#[inline]
fn add_digit<C: CurveConfig>(acc: &mut Jacobian<C>, d: i8, table: &[Affine<C>]) {
    if d > 0 {
        *acc = acc.add_affine(&table[(d as usize) >> 1]);
    } else if d < 0 {
        *acc = acc.add_affine(&-table[((-(d as i16)) as usize) >> 1]);
    }
}

/// Plain wNAF multiplication by an arbitrary non-negative integer (any curve point).
pub fn mul_wnaf<C: CurveConfig>(p: &Jacobian<C>, k: &[u64]) -> Jacobian<C> {
    if p.is_zero() {
        return *p;
    }
    let digits = wnaf_digits(k, WNAF_WIDTH);
    if digits.is_empty() {
        return Jacobian::identity();
    }
    let table = odd_multiples(p, WNAF_WIDTH);
    let mut acc = Jacobian::identity();
    for &d in digits.iter().rev() {
        acc = acc.double();
        add_digit(&mut acc, d, &table);
    }
    acc
}

/// GLV multiplication `k·P = k1·P + k2·φ(P)` with `|k1|, |k2| ≈ √r`. Only valid for
/// points of the order-`r` subgroup (where `φ` acts as `[λ]`).
pub fn mul_glv<C: CurveConfig>(glv: &Glv<C>, p: &Jacobian<C>, k: &C::Scalar) -> Jacobian<C> {
    if p.is_zero() {
        return *p;
    }
    let ((neg1, k1), (neg2, k2)) = glv.decompose(&scalar_limbs(k));
    let d1 = wnaf_digits(&k1, GLV_WNAF_WIDTH);
    let d2 = wnaf_digits(&k2, GLV_WNAF_WIDTH);
    let mut t1 = odd_multiples(p, GLV_WNAF_WIDTH);
    // φ is a group homomorphism, so φ applied to the table of P is the table of φ(P).
    let mut t2: Vec<Affine<C>> = t1.iter().map(|q| glv.endomorphism(q)).collect();
    if neg1 {
        t1.iter_mut().for_each(|q| *q = -*q);
    }
    if neg2 {
        t2.iter_mut().for_each(|q| *q = -*q);
    }
    let len = d1.len().max(d2.len());
    let mut acc = Jacobian::identity();
    for i in (0..len).rev() {
        acc = acc.double();
        add_digit(&mut acc, d1.get(i).copied().unwrap_or(0), &t1);
        add_digit(&mut acc, d2.get(i).copied().unwrap_or(0), &t2);
    }
    acc
}

impl<C: CurveConfig> Jacobian<C> {
    /// `s·self`. Uses GLV where the curve has it, so `self` must be in the prime-order
    /// subgroup (every point built by `Affine::new`, `random` or arithmetic on those is).
    pub fn mul(&self, s: &C::Scalar) -> Self {
        match C::glv() {
            Some(glv) => mul_glv(glv, self, s),
            None => self.mul_wnaf(s),
        }
    }

    /// `s·self` by plain wNAF (no endomorphism; valid for any curve point).
    pub fn mul_wnaf(&self, s: &C::Scalar) -> Self {
        mul_wnaf(self, &scalar_limbs(s))
    }

    /// GLV multiplication, or `None` if the curve has no endomorphism data.
    pub fn mul_glv(&self, s: &C::Scalar) -> Option<Self> {
        C::glv().map(|glv| mul_glv(glv, self, s))
    }

    /// Multiplication by an arbitrary little-endian integer (not reduced mod `r`), e.g.
    /// `r` itself for subgroup checks or the cofactor; valid for any curve point.
    pub fn mul_bigint(&self, k: &[u64]) -> Self {
        mul_wnaf(self, k)
    }
}

impl<C: CurveConfig> Affine<C> {
    /// `s·self`, see [`Jacobian::mul`].
    pub fn mul(&self, s: &C::Scalar) -> Jacobian<C> {
        self.to_jacobian().mul(s)
    }

    pub fn mul_wnaf(&self, s: &C::Scalar) -> Jacobian<C> {
        self.to_jacobian().mul_wnaf(s)
    }

    pub fn mul_glv(&self, s: &C::Scalar) -> Option<Jacobian<C>> {
        self.to_jacobian().mul_glv(s)
    }

    pub fn mul_bigint(&self, k: &[u64]) -> Jacobian<C> {
        self.to_jacobian().mul_bigint(k)
    }
}

impl<C: CurveConfig> Xyzz<C> {
    /// `s·self` (computed in Jacobian), see [`Jacobian::mul`].
    pub fn mul(&self, s: &C::Scalar) -> Self {
        self.to_jacobian().mul(s).to_xyzz()
    }

    pub fn mul_bigint(&self, k: &[u64]) -> Self {
        self.to_jacobian().mul_bigint(k).to_xyzz()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(d: &[i8]) -> i128 {
        d.iter().rev().fold(0i128, |acc, &x| acc * 2 + x as i128)
    }

    #[test]
    fn wnaf_reconstructs_and_is_sparse() {
        for w in 2..=7u32 {
            for k in [0u64, 1, 2, 3, 15, 16, 31, 255, 1 << 40, u64::MAX] {
                let d = wnaf_digits(&[k], w);
                assert_eq!(eval(&d), k as i128, "k={k} w={w}");
                for (i, &x) in d.iter().enumerate() {
                    if x != 0 {
                        assert!(x % 2 != 0 && (x as i32).abs() < (1 << (w - 1)));
                        // non-adjacency: the next w−1 digits are zero
                        for &y in d.iter().skip(i + 1).take(w as usize - 1) {
                            assert_eq!(y, 0);
                        }
                    }
                }
            }
        }
    }
}
