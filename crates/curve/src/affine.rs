//! Affine points `(x, y)` plus an explicit point at infinity.

use core::hash::{Hash, Hasher};

use fastzk_field::Field;
use rand_core::RngCore;

use crate::config::CurveConfig;
use crate::error::CurveError;
use crate::jacobian::Jacobian;
use crate::xyzz::Xyzz;

/// An affine point. The identity is flagged by `infinity` (its coordinates are ignored
/// by `==`), because `(0, 0)` can never be on an `a = 0` curve with `b ≠ 0` anyway but
/// an explicit flag keeps every consumer honest.
#[derive(Clone, Copy, Debug)]
pub struct Affine<C: CurveConfig> {
    pub x: C::Base,
    pub y: C::Base,
    pub infinity: bool,
}

impl<C: CurveConfig> Affine<C> {
    /// Validates that `(x, y)` is on the curve and in the prime-order subgroup.
    pub fn new(x: C::Base, y: C::Base) -> Result<Self, CurveError> {
        let p = Self::new_unchecked(x, y);
        if !p.is_on_curve() {
            return Err(CurveError::NotOnCurve);
        }
        if !p.is_in_correct_subgroup() {
            return Err(CurveError::NotInSubgroup);
        }
        Ok(p)
    }

    /// Builds a finite point without any check (for trusted constants and hot paths).
    pub const fn new_unchecked(x: C::Base, y: C::Base) -> Self {
        Self {
            x,
            y,
            infinity: false,
        }
    }

    /// The point at infinity, with zeroed coordinates.
    pub const fn identity() -> Self {
        Self {
            x: C::Base::ZERO,
            y: C::Base::ZERO,
            infinity: true,
        }
    }

    pub const fn generator() -> Self {
        Self::new_unchecked(C::GENERATOR_X, C::GENERATOR_Y)
    }

    pub fn is_zero(&self) -> bool {
        self.infinity
    }

    /// `y^2 == x^3 + b` (the identity counts as on the curve).
    pub fn is_on_curve(&self) -> bool {
        self.infinity || self.y.square() == self.x.square() * self.x + C::COEFF_B
    }

    /// Subgroup membership; only meaningful for on-curve points.
    pub fn is_in_correct_subgroup(&self) -> bool {
        self.infinity || C::is_in_correct_subgroup(self)
    }

    /// `generator · s` for a uniformly random scalar `s`: a random subgroup element.
    pub fn random<R: RngCore + ?Sized>(rng: &mut R) -> Self {
        Jacobian::<C>::random(rng).to_affine()
    }

    pub fn to_jacobian(&self) -> Jacobian<C> {
        Jacobian::from(*self)
    }

    pub fn to_xyzz(&self) -> Xyzz<C> {
        Xyzz::from(*self)
    }

    /// `2·self`, returned projectively (an affine result would cost an inversion).
    pub fn double(&self) -> Jacobian<C> {
        self.to_jacobian().double()
    }

    /// Multiplies by the cofactor `h`, mapping any curve point into the subgroup.
    pub fn clear_cofactor(&self) -> Jacobian<C> {
        self.mul_bigint(C::COFACTOR)
    }
}

impl<C: CurveConfig> Default for Affine<C> {
    fn default() -> Self {
        Self::identity()
    }
}

impl<C: CurveConfig> PartialEq for Affine<C> {
    fn eq(&self, other: &Self) -> bool {
        match (self.infinity, other.infinity) {
            (true, true) => true,
            (false, false) => self.x == other.x && self.y == other.y,
            _ => false,
        }
    }
}

impl<C: CurveConfig> Eq for Affine<C> {}

impl<C: CurveConfig> Hash for Affine<C> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Consistent with `eq`: all infinity encodings hash alike.
        self.infinity.hash(state);
        if !self.infinity {
            self.x.hash(state);
            self.y.hash(state);
        }
    }
}

impl<C: CurveConfig> From<Jacobian<C>> for Affine<C> {
    fn from(p: Jacobian<C>) -> Self {
        p.to_affine()
    }
}

impl<C: CurveConfig> From<Xyzz<C>> for Affine<C> {
    fn from(p: Xyzz<C>) -> Self {
        p.to_affine()
    }
}

impl<C: CurveConfig> core::ops::Neg for Affine<C> {
    type Output = Self;
    fn neg(self) -> Self {
        if self.infinity {
            self
        } else {
            Self::new_unchecked(self.x, -self.y)
        }
    }
}

impl<C: CurveConfig> core::ops::Neg for &Affine<C> {
    type Output = Affine<C>;
    fn neg(self) -> Affine<C> {
        -*self
    }
}
