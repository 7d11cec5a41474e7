//! Lazy (Harvey-style) reduction: values kept in `[0, 2p)` or `[0, 4p)` between
//! operations and reduced once at the end. The NTT butterflies and the `Fq2`
//! multiplication use it; `tests` check every bound.

use core::marker::PhantomData;

#[cfg(target_arch = "x86_64")]
use super::x86_64::{lazy4, widen, width};
use super::{select, Fp, MontConfig};
use crate::bigint;
use crate::quad::QuadExtConfig;
use crate::traits::{ChordArith, Field};

impl<P: MontConfig<N>, const N: usize> Fp<P, N> {
    /// Unused top bits of `R = 2^(64·N)` above the modulus: `p < 2^(64·N − SPARE_BITS)`.
    /// Lazy reduction in `[0, 4p)` needs `SPARE_BITS ≥ 2` (BN254's fields have 2,
    /// BLS12-381 `Fr` has 1 and `Fq` 3).
    pub const SPARE_BITS: u32 = 64 * N as u32 - P::MODULUS_BITS;
    /// `2p` as limbs (`< R`: every field here has a spare bit).
    pub const TWO_P: [u64; N] = bigint::add(&P::MODULUS, &P::MODULUS).0;

    /// `self + rhs` without reduction. Sound when the sum is below `R`, e.g. both
    /// `< 2p` with `SPARE_BITS ≥ 2` (sum `< 4p`), or both `< p` with one spare bit.
    #[inline(always)]
    pub fn add_lazy(&self, rhs: &Self) -> Self {
        debug_assert!(
            bigint::add(&self.limbs, &rhs.limbs).1 == 0,
            "add_lazy overflow"
        );
        #[cfg(target_arch = "x86_64")]
        if N == 4 {
            let r = lazy4::add(*width(&self.limbs), *width(&rhs.limbs));
            return Self::from_montgomery_limbs_unchecked(widen(r));
        }
        Self::from_montgomery_limbs_unchecked(bigint::add(&self.limbs, &rhs.limbs).0)
    }

    /// `self + 2p − rhs` without reduction: congruent to `self − rhs`, for `rhs ≤ 2p`; at
    /// most `self + 2p`, which must stay below `R`: with `SPARE_BITS ≥ 2`, `self < 2p`
    /// gives a result below `4p` (with one spare bit this is not sound in general).
    #[inline(always)]
    pub fn sub_lazy(&self, rhs: &Self) -> Self {
        let (d, _) = bigint::sub(&Self::TWO_P, &rhs.limbs);
        debug_assert!(bigint::add(&self.limbs, &d).1 == 0, "sub_lazy overflow");
        #[cfg(target_arch = "x86_64")]
        if N == 4 {
            let two_p: &'static [u64; N] = &Self::TWO_P;
            let r = lazy4::sub_add(*width(&self.limbs), *width(&rhs.limbs), width(two_p));
            return Self::from_montgomery_limbs_unchecked(widen(r));
        }
        Self::from_montgomery_limbs_unchecked(bigint::add(&self.limbs, &d).0)
    }

    /// `x − m` if `x ≥ m`, else `x`, without a branch.
    #[inline(always)]
    fn cond_sub_static(&self, m: &'static [u64; N]) -> Self {
        #[cfg(target_arch = "x86_64")]
        if N == 4 {
            let r = lazy4::cond_sub(*width(&self.limbs), width(m));
            return Self::from_montgomery_limbs_unchecked(widen(r));
        }
        let (d, borrow) = bigint::sub(&self.limbs, m);
        Self::from_montgomery_limbs_unchecked(select(borrow == 0, &d, &self.limbs))
    }

    /// `x − 2p` if `x ≥ 2p`, else `x`: maps `[0, 4p)` to `[0, 2p)` (branch-free).
    #[inline(always)]
    pub fn reduce_below_2p(&self) -> Self {
        self.cond_sub_static(&Self::TWO_P)
    }

    /// `x − p` if `x ≥ p`, else `x`: maps `[0, 2p)` to the canonical `[0, p)` (branch-free).
    #[inline(always)]
    pub fn reduce_below_p(&self) -> Self {
        self.cond_sub_static(&P::MODULUS)
    }

    /// The canonical element for a lazily reduced value in `[0, 4p)`.
    #[inline(always)]
    pub fn canonicalize_lazy(&self) -> Self {
        self.reduce_below_2p().reduce_below_p()
    }
}

/// With two spare bits (`4p < R`: BN254's and BLS12-381's `Fq`) the products skip their
/// final subtraction. Bounds, from the no-carry CIOS's `< a·b/R + p`: chain values stay
/// below `2p` (`4p²/R + p`); with `dinv < 2p`, `λ < 2p²/R + p < 1.5p`, `λ² < 2p`,
/// `λ² + 2p − (x₁ + x₂) < 4p`, `(x₁ − x₃)·λ < 1.5p` and `+ 2p − y₁ < 4p`, and the two
/// coordinates are brought from `[0, 4p)` to canonical once each. The chord does so only
/// for four limbs, whose unreduced additions are short assembly chains: on six limbs
/// (BLS12-381) they are no cheaper than the exact ones, and no gain was measured. Fewer
/// spare bits: the exact operations.
impl<P: MontConfig<N>, const N: usize> ChordArith for Fp<P, N> {
    #[inline(always)]
    fn chain_mul(&self, rhs: &Self) -> Self {
        if Self::SPARE_BITS >= 2 {
            self.mul_lazy(rhs)
        } else {
            *self * *rhs
        }
    }

    #[inline(always)]
    fn settle(&self) -> Self {
        if Self::SPARE_BITS >= 2 {
            self.reduce_below_p()
        } else {
            *self
        }
    }

    #[inline(always)]
    fn chord(x1: &Self, y1: &Self, x2: &Self, y2: &Self, dinv: &Self) -> (Self, Self) {
        if Self::SPARE_BITS < 2 || N != 4 {
            return crate::traits::exact_chord(x1, y1, x2, y2, dinv);
        }
        let lambda = (*y2 - *y1).mul_lazy(dinv);
        let x3 = lambda
            .square_lazy()
            .sub_lazy(&x1.add_lazy(x2))
            .canonicalize_lazy();
        let y3 = (*x1 - x3)
            .mul_lazy(&lambda)
            .sub_lazy(y1)
            .canonicalize_lazy();
        (x3, y3)
    }
}

/// `Fp[u]/(u^2 + 1)` over a Montgomery field with `p ≡ 3 (mod 4)` (so `−1` is a
/// non-residue): the `Fq2` of BN254 and BLS12-381, with the lazy-reduction products above.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct MinusOneExt<P, const N: usize>(PhantomData<P>);

impl<P: MontConfig<N>, const N: usize> QuadExtConfig for MinusOneExt<P, N> {
    type Base = Fp<P, N>;
    const NAME: &'static str = "Fq2";
    const NONRESIDUE: Fp<P, N> = {
        assert!(
            P::MODULUS[0] & 3 == 3,
            "MinusOneExt needs p ≡ 3 (mod 4): otherwise −1 is a square"
        );
        Fp::from_montgomery_limbs_unchecked(bigint::sub(&P::MODULUS, &P::R).0)
    };
    const NONRESIDUE_IS_MINUS_ONE: bool = true;
    #[inline(always)]
    fn mul_by_nonresidue(x: Fp<P, N>) -> Fp<P, N> {
        -x
    }
    /// `(a0 + a1·u)(b0 + b1·u)`: [`fq2_mul_wide`] or [`fq2_mul_karatsuba`], whichever
    /// measured faster for the limb count and path ([`fq2_wide`]).
    #[inline(always)]
    fn mul_coeffs(a: [Fp<P, N>; 2], b: [Fp<P, N>; 2]) -> [Fp<P, N>; 2] {
        if fq2_wide::<N>() {
            fq2_mul_wide(a, b)
        } else {
            fq2_mul_karatsuba(a, b)
        }
    }
    /// `((a0 + a1)(a0 − a1), 2·a0·a1)`, with the sum and the doubling left unreduced
    /// (`< 2p`) when `SPARE_BITS ≥ 2`; each product is then `< 2p·p/R + p < 2p` and
    /// reduced once.
    #[inline(always)]
    fn square_coeffs([a0, a1]: [Fp<P, N>; 2]) -> [Fp<P, N>; 2] {
        if Fp::<P, N>::SPARE_BITS >= 2 {
            let c0 = a0.add_lazy(&a1).mul_lazy(&(a0 - a1)).reduce_below_p();
            let c1 = a0.add_lazy(&a0).mul_lazy(&a1).reduce_below_p();
            [c0, c1]
        } else {
            [(a0 + a1) * (a0 - a1), (a0 * a1).double()]
        }
    }
}

/// Whether the `Fq2` product takes [`fq2_mul_wide`] (medians of alternated runs on a Zen 3
/// EPYC, BENCHMARKS.md): on the MULX/ADX path for 6 limbs (BLS12-381: 145 against 163 ns
/// a product) but not for 4 (BN254: level, its Montgomery product keeps an operand in
/// registers), on the portable path for 4 limbs (87 against 126 ns) but not for 6 (252
/// against 242 ns).
#[inline(always)]
fn fq2_wide<const N: usize>() -> bool {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::adx() {
        return N == 6;
    }
    N == 4
}

/// The `Fq2` product by Karatsuba on double-width products, one reduction per
/// component: `c1 = (a0 + a1)(b0 + b1) − a0·b0 − a1·b1` is exactly `a0·b1 + a1·b0 < 2p²`,
/// and `c0 = a0·b0 − a1·b1`, plus `p·R` when negative, is below `p·R`; both are reduced
/// once ([`Fp::redc`]). Needs one spare bit (`a0 + a1 < 2p < R`), which every `Fq` here has.
#[inline(always)]
pub(crate) fn fq2_mul_wide<P: MontConfig<N>, const N: usize>(
    [a0, a1]: [Fp<P, N>; 2],
    [b0, b1]: [Fp<P, N>; 2],
) -> [Fp<P, N>; 2] {
    let v0 = a0.mul_wide(&b0);
    let v1 = a1.mul_wide(&b1);
    let m = a0.add_lazy(&a1).mul_wide(&b0.add_lazy(&b1));
    let c1 = Fp::redc(&m.sub(&v0.add(&v1)).0);
    let c0 = Fp::redc(&Fp::<P, N>::sub_wide_mod(&v0, &v1));
    [c0, c1]
}

/// The `Fq2` product by Karatsuba on Montgomery products: with `SPARE_BITS ≥ 2`
/// (`4p < R`) the sums `a0 + a1`, `b0 + b1` (`< 2p`) feed the Montgomery product
/// unreduced (the chain operand stays below `3p < R`, the product below `4p²/R + p <
/// 2p`) and `c1` is reduced once at the end. Fields without the margin use the reduced
/// formulas.
#[inline(always)]
pub(crate) fn fq2_mul_karatsuba<P: MontConfig<N>, const N: usize>(
    [a0, a1]: [Fp<P, N>; 2],
    [b0, b1]: [Fp<P, N>; 2],
) -> [Fp<P, N>; 2] {
    let v0 = a0 * b0;
    let v1 = a1 * b1;
    if Fp::<P, N>::SPARE_BITS >= 2 {
        let s = a0.add_lazy(&a1);
        let t = b0.add_lazy(&b1);
        // Below 2p; then m + 2p − (v0 + v1) < 4p, then to [0, p).
        let m = s.mul_lazy(&t);
        [v0 - v1, m.sub_lazy(&v0.add_lazy(&v1)).canonicalize_lazy()]
    } else {
        [v0 - v1, (a0 + a1) * (b0 + b1) - v0 - v1]
    }
}
