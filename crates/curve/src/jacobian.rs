//! Jacobian coordinates: `x = X/Z^2`, `y = Y/Z^3`, identity at `Z = 0`.

use fastzk_field::Field;
use rand_core::RngCore;

use crate::affine::Affine;
use crate::config::CurveConfig;
use crate::xyzz::Xyzz;

/// A point in Jacobian coordinates; the general-purpose accumulator form.
/// `==` is projective equality, so two representations of one point compare equal.
#[derive(Clone, Copy, Debug)]
pub struct Jacobian<C: CurveConfig> {
    pub x: C::Base,
    pub y: C::Base,
    pub z: C::Base,
}

impl<C: CurveConfig> Jacobian<C> {
    pub const fn new_unchecked(x: C::Base, y: C::Base, z: C::Base) -> Self {
        Self { x, y, z }
    }

    /// The identity `(1, 1, 0)` (arkworks' choice, so conversions are one-to-one).
    pub const fn identity() -> Self {
        Self {
            x: C::Base::ONE,
            y: C::Base::ONE,
            z: C::Base::ZERO,
        }
    }

    pub const fn generator() -> Self {
        Self {
            x: C::GENERATOR_X,
            y: C::GENERATOR_Y,
            z: C::Base::ONE,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.z.is_zero()
    }

    /// `Y^2 = X^3 + b·Z^6`.
    pub fn is_on_curve(&self) -> bool {
        if self.is_zero() {
            return true;
        }
        let z2 = self.z.square();
        let z6 = z2.square() * z2;
        self.y.square() == self.x.square() * self.x + C::COEFF_B * z6
    }

    pub fn random<R: RngCore + ?Sized>(rng: &mut R) -> Self {
        let s = <C::Scalar as Field>::random(rng);
        Self::generator().mul(&s)
    }

    /// One inversion; prefer [`crate::batch_normalize`] for many points.
    pub fn to_affine(&self) -> Affine<C> {
        match self.z.inverse() {
            None => Affine::identity(),
            Some(zinv) => {
                let zinv2 = zinv.square();
                Affine::new_unchecked(self.x * zinv2, self.y * zinv2 * zinv)
            }
        }
    }

    pub fn to_xyzz(&self) -> Xyzz<C> {
        Xyzz::from(*self)
    }

    /// Doubling, `dbl-2009-l` (a = 0): 2M + 5S. `Y = 0` or `Z = 0` yields `Z3 = 0`.
    pub fn double(&self) -> Self {
        if self.is_zero() {
            return *self;
        }
        let a = self.x.square();
        let b = self.y.square();
        let c = b.square();
        let d = ((self.x + b).square() - a - c).double();
        let e = a.double() + a;
        let f = e.square();
        let x3 = f - d.double();
        let c8 = c.double().double().double();
        let y3 = e * (d - x3) - c8;
        let z3 = (self.y * self.z).double();
        Self::new_unchecked(x3, y3, z3)
    }

    pub fn double_in_place(&mut self) {
        *self = self.double();
    }

    /// Full addition, `add-2007-bl`, with every special case routed explicitly:
    /// identity on either side, `P + P` (falls back to doubling), `P + (−P)`.
    pub fn add_jacobian(&self, other: &Self) -> Self {
        if self.is_zero() {
            return *other;
        }
        if other.is_zero() {
            return *self;
        }
        let z1z1 = self.z.square();
        let z2z2 = other.z.square();
        let u1 = self.x * z2z2;
        let u2 = other.x * z1z1;
        let s1 = self.y * other.z * z2z2;
        let s2 = other.y * self.z * z1z1;
        let h = u2 - u1;
        let r_half = s2 - s1;
        if h.is_zero() {
            return if r_half.is_zero() {
                self.double()
            } else {
                Self::identity()
            };
        }
        let i = h.double().square();
        let j = h * i;
        let r = r_half.double();
        let v = u1 * i;
        let x3 = r.square() - j - v.double();
        let y3 = r * (v - x3) - (s1 * j).double();
        let z3 = ((self.z + other.z).square() - z1z1 - z2z2) * h;
        Self::new_unchecked(x3, y3, z3)
    }

    /// Mixed addition with an affine point, `madd-2007-bl`, special cases as above.
    pub fn add_affine(&self, other: &Affine<C>) -> Self {
        if other.infinity {
            return *self;
        }
        if self.is_zero() {
            return Self::from(*other);
        }
        let z1z1 = self.z.square();
        let u2 = other.x * z1z1;
        let s2 = other.y * self.z * z1z1;
        let h = u2 - self.x;
        let r_half = s2 - self.y;
        if h.is_zero() {
            return if r_half.is_zero() {
                self.double()
            } else {
                Self::identity()
            };
        }
        let hh = h.square();
        let i = hh.double().double();
        let j = h * i;
        let r = r_half.double();
        let v = self.x * i;
        let x3 = r.square() - j - v.double();
        let y3 = r * (v - x3) - (self.y * j).double();
        let z3 = (self.z + h).square() - z1z1 - hh;
        Self::new_unchecked(x3, y3, z3)
    }
}

impl<C: CurveConfig> Default for Jacobian<C> {
    fn default() -> Self {
        Self::identity()
    }
}

impl<C: CurveConfig> PartialEq for Jacobian<C> {
    /// Projective equality: `X1·Z2^2 = X2·Z1^2` and `Y1·Z2^3 = Y2·Z1^3`.
    fn eq(&self, other: &Self) -> bool {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => true,
            (false, false) => {
                let z1z1 = self.z.square();
                let z2z2 = other.z.square();
                self.x * z2z2 == other.x * z1z1
                    && self.y * z2z2 * other.z == other.y * z1z1 * self.z
            }
            _ => false,
        }
    }
}

impl<C: CurveConfig> Eq for Jacobian<C> {}

impl<C: CurveConfig> PartialEq<Affine<C>> for Jacobian<C> {
    fn eq(&self, other: &Affine<C>) -> bool {
        *self == Self::from(*other)
    }
}

impl<C: CurveConfig> From<Affine<C>> for Jacobian<C> {
    fn from(p: Affine<C>) -> Self {
        if p.infinity {
            Self::identity()
        } else {
            Self::new_unchecked(p.x, p.y, C::Base::ONE)
        }
    }
}

impl<C: CurveConfig> From<Xyzz<C>> for Jacobian<C> {
    /// Inversion-free: with `Z = ZZ·ZZZ`, `X = X'·ZZ·ZZZ^2` and `Y = Y'·ZZ^3·ZZZ^2`.
    fn from(p: Xyzz<C>) -> Self {
        if p.is_zero() {
            return Self::identity();
        }
        let zzz2 = p.zzz.square();
        let zz_zzz2 = p.zz * zzz2;
        let z = p.zz * p.zzz;
        Self::new_unchecked(p.x * zz_zzz2, p.y * p.zz.square() * zz_zzz2, z)
    }
}
