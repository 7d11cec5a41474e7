//! Quadratic extensions `F[u]/(u^2 - β)`: Fq2 of BN254 and BLS12-381 (β = −1), and the
//! Goldilocks extension used for 128-bit challenges (β = 7).

use core::fmt;
use core::hash::Hash;

use rand_core::RngCore;

use crate::traits::{ChordArith, ExtensionField, Field, Legendre, NormInverse};

/// The base field and the non-residue `β` of a quadratic extension.
pub trait QuadExtConfig:
    'static + Copy + Clone + fmt::Debug + Default + PartialEq + Eq + Hash + Send + Sync
{
    /// (`ChordArith`: the norms' inversion chains run in it.)
    type Base: ChordArith;
    const NAME: &'static str;
    /// A quadratic non-residue of the base field.
    const NONRESIDUE: Self::Base;
    /// Whether β = −1 (BN254 and BLS12-381 Fq2), which makes squaring cheaper.
    const NONRESIDUE_IS_MINUS_ONE: bool = false;
    /// `β · x`; override when β is cheap (e.g. −1).
    #[inline(always)]
    fn mul_by_nonresidue(x: Self::Base) -> Self::Base {
        Self::NONRESIDUE * x
    }
    /// `(a0 + a1 u)(b0 + b1 u)` as `[c0, c1]`: Karatsuba, three base multiplications.
    /// Override with cheaper base arithmetic (lazy reduction) where the field allows.
    #[inline(always)]
    fn mul_coeffs([a0, a1]: [Self::Base; 2], [b0, b1]: [Self::Base; 2]) -> [Self::Base; 2] {
        let v0 = a0 * b0;
        let v1 = a1 * b1;
        let c1 = (a0 + a1) * (b0 + b1) - v0 - v1;
        [v0 + Self::mul_by_nonresidue(v1), c1]
    }
    /// `(a0 + a1 u)^2` as `[c0, c1]`; override like [`Self::mul_coeffs`].
    #[inline(always)]
    fn square_coeffs([a0, a1]: [Self::Base; 2]) -> [Self::Base; 2] {
        if Self::NONRESIDUE_IS_MINUS_ONE {
            // (a0 + a1 u)^2 = (a0 + a1)(a0 − a1) + 2 a0 a1 u.
            return [(a0 + a1) * (a0 - a1), (a0 * a1).double()];
        }
        // (a0 + a1 u)^2 = (a0^2 + β a1^2) + 2 a0 a1 u, with two multiplications:
        // (a0 + a1)(a0 + β a1) = a0^2 + β a1^2 + (1 + β) a0 a1.
        let v0 = a0 * a1;
        let t = (a0 + a1) * (a0 + Self::mul_by_nonresidue(a1));
        [t - v0 - Self::mul_by_nonresidue(v0), v0.double()]
    }
}

/// `c0 + c1·u` with `u^2 = β`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct QuadExt<C: QuadExtConfig> {
    pub c0: C::Base,
    pub c1: C::Base,
}

impl<C: QuadExtConfig> QuadExt<C> {
    pub const fn new(c0: C::Base, c1: C::Base) -> Self {
        Self { c0, c1 }
    }
    /// `c0 − c1·u`, which is also the Frobenius map since β is a non-residue.
    #[inline]
    pub fn conjugate(&self) -> Self {
        Self::new(self.c0, -self.c1)
    }
    /// `c0^2 − β·c1^2`, the norm down to the base field.
    #[inline]
    pub fn norm(&self) -> C::Base {
        self.c0.square() - C::mul_by_nonresidue(self.c1.square())
    }
    /// Multiplies by a base-field scalar.
    #[inline]
    pub fn scale(&self, k: C::Base) -> Self {
        Self::new(self.c0 * k, self.c1 * k)
    }
}

impl<C: QuadExtConfig> fmt::Debug for QuadExt<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?} + {:?}·u)", C::NAME, self.c0, self.c1)
    }
}
impl<C: QuadExtConfig> fmt::Display for QuadExt<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} + {}·u", self.c0, self.c1)
    }
}

impl<C: QuadExtConfig> Field for QuadExt<C> {
    const ZERO: Self = Self::new(C::Base::ZERO, C::Base::ZERO);
    const ONE: Self = Self::new(C::Base::ONE, C::Base::ZERO);

    #[inline]
    fn is_zero(&self) -> bool {
        self.c0.is_zero() && self.c1.is_zero()
    }
    #[inline]
    fn double(&self) -> Self {
        Self::new(self.c0.double(), self.c1.double())
    }
    #[inline]
    fn square(&self) -> Self {
        let [c0, c1] = C::square_coeffs([self.c0, self.c1]);
        Self::new(c0, c1)
    }
    fn inverse(&self) -> Option<Self> {
        let inv_norm = self.norm().inverse()?;
        Some(Self::new(self.c0 * inv_norm, -(self.c1 * inv_norm)))
    }
    fn random<R: RngCore + ?Sized>(rng: &mut R) -> Self {
        Self::new(C::Base::random(rng), C::Base::random(rng))
    }
    /// Square root by the "complex method": with `n = norm(a)` and `s = √n` in the base,
    /// `x0^2 = (c0 ± s)/2` and `x1 = c1 / (2·x0)`.
    fn sqrt(&self) -> Option<Self> {
        if self.c1.is_zero() {
            // A base element is a square in the extension: either √c0 or √(c0/β)·u.
            if let Some(s) = self.c0.sqrt() {
                return Some(Self::new(s, C::Base::ZERO));
            }
            let beta_inv = C::NONRESIDUE.inverse()?;
            let s = (self.c0 * beta_inv).sqrt()?;
            return Some(Self::new(C::Base::ZERO, s));
        }
        let s = self.norm().sqrt()?;
        let two_inv = C::Base::from_u64(2).inverse()?;
        let mut delta = (self.c0 + s) * two_inv;
        if delta.legendre() != Legendre::QuadraticResidue {
            delta = (self.c0 - s) * two_inv;
        }
        let x0 = delta.sqrt()?;
        let x1 = self.c1 * (x0.double()).inverse()?;
        let x = Self::new(x0, x1);
        (x.square() == *self).then_some(x)
    }
    fn legendre(&self) -> Legendre {
        // x is a square in F_{p^2} iff its norm is a square in F_p.
        self.norm().legendre()
    }
    fn from_u64(v: u64) -> Self {
        Self::new(C::Base::from_u64(v), C::Base::ZERO)
    }
}

impl<C: QuadExtConfig> ExtensionField for QuadExt<C> {
    type Base = C::Base;
    const DEGREE: usize = 2;
    fn from_base(b: C::Base) -> Self {
        Self::new(b, C::Base::ZERO)
    }
    fn to_base_coeffs(&self) -> Vec<C::Base> {
        vec![self.c0, self.c1]
    }
    fn frobenius(&self) -> Self {
        self.conjugate()
    }
}

impl<C: QuadExtConfig> NormInverse for QuadExt<C> {
    type Norm = C::Base;
    #[inline(always)]
    fn norm_of(&self) -> C::Base {
        self.norm()
    }
    /// `conj(x) / N(x)`, as `x · conj(x) = N(x)`.
    #[inline(always)]
    fn inverse_from_norm(&self, norm_inverse: C::Base) -> Self {
        self.conjugate().scale(norm_inverse)
    }
}

/// The exact operations: the chain runs on the norms (`Fq`), which take the fast path.
/// The chord's products are inlined into the flush: called one by one, they passed their
/// operands through memory (BN254 G2 without IFMA: a bucket addition 352 → 326 ns).
impl<C: QuadExtConfig> ChordArith for QuadExt<C> {
    #[inline(always)]
    fn chord(x1: &Self, y1: &Self, x2: &Self, y2: &Self, dinv: &Self) -> (Self, Self) {
        let lambda = (*y2 - *y1).mul_inline(dinv);
        let [s0, s1] = C::square_coeffs([lambda.c0, lambda.c1]);
        let x3 = Self::new(s0, s1) - (*x1 + *x2);
        let y3 = lambda.mul_inline(&(*x1 - x3)) - *y1;
        (x3, y3)
    }
}

impl<C: QuadExtConfig> QuadExt<C> {
    #[inline]
    fn add_impl(&self, rhs: &Self) -> Self {
        Self::new(self.c0 + rhs.c0, self.c1 + rhs.c1)
    }
    #[inline]
    fn sub_impl(&self, rhs: &Self) -> Self {
        Self::new(self.c0 - rhs.c0, self.c1 - rhs.c1)
    }
    /// Karatsuba: three base multiplications.
    #[inline]
    fn mul_impl(&self, rhs: &Self) -> Self {
        let [c0, c1] = C::mul_coeffs([self.c0, self.c1], [rhs.c0, rhs.c1]);
        Self::new(c0, c1)
    }
    /// [`Self::mul_impl`] for the chord, with the same body: a `mul_impl` that only called
    /// this was inlined into every caller, which grew the `fastzk` binary by 12 %.
    #[inline(always)]
    fn mul_inline(&self, rhs: &Self) -> Self {
        let [c0, c1] = C::mul_coeffs([self.c0, self.c1], [rhs.c0, rhs.c1]);
        Self::new(c0, c1)
    }
    #[inline]
    fn neg_impl(&self) -> Self {
        Self::new(-self.c0, -self.c1)
    }
}

crate::ops::field_ops!([C: QuadExtConfig] QuadExt<C>, add_impl, sub_impl, mul_impl, neg_impl);
