//! Operator impls (`+`, `-`, unary `-`, `+=`, `-=`, `Sum`, `* scalar`) for all forms.

use core::iter::Sum;
use core::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

use crate::affine::Affine;
use crate::config::CurveConfig;
use crate::jacobian::Jacobian;
use crate::xyzz::Xyzz;

/// Operators for a projective form `$t` given its full add `$add` and mixed add `$madd`.
macro_rules! projective_ops {
    ($t:ident, $add:ident, $madd:ident) => {
        impl<C: CurveConfig> Neg for $t<C> {
            type Output = Self;
            fn neg(mut self) -> Self {
                self.y = -self.y;
                self
            }
        }
        impl<C: CurveConfig> Neg for &$t<C> {
            type Output = $t<C>;
            fn neg(self) -> $t<C> {
                -*self
            }
        }
        impl<C: CurveConfig> Add<&$t<C>> for $t<C> {
            type Output = Self;
            fn add(self, rhs: &Self) -> Self {
                self.$add(rhs)
            }
        }
        impl<C: CurveConfig> Add for $t<C> {
            type Output = Self;
            fn add(self, rhs: Self) -> Self {
                self.$add(&rhs)
            }
        }
        impl<C: CurveConfig> Add<&Affine<C>> for $t<C> {
            type Output = Self;
            fn add(self, rhs: &Affine<C>) -> Self {
                self.$madd(rhs)
            }
        }
        impl<C: CurveConfig> Add<Affine<C>> for $t<C> {
            type Output = Self;
            fn add(self, rhs: Affine<C>) -> Self {
                self.$madd(&rhs)
            }
        }
        impl<C: CurveConfig> Sub<&$t<C>> for $t<C> {
            type Output = Self;
            fn sub(self, rhs: &Self) -> Self {
                self.$add(&-*rhs)
            }
        }
        impl<C: CurveConfig> Sub for $t<C> {
            type Output = Self;
            fn sub(self, rhs: Self) -> Self {
                self.$add(&-rhs)
            }
        }
        impl<C: CurveConfig> Sub<&Affine<C>> for $t<C> {
            type Output = Self;
            fn sub(self, rhs: &Affine<C>) -> Self {
                self.$madd(&-*rhs)
            }
        }
        impl<C: CurveConfig> Sub<Affine<C>> for $t<C> {
            type Output = Self;
            fn sub(self, rhs: Affine<C>) -> Self {
                self.$madd(&-rhs)
            }
        }
        impl<C: CurveConfig> AddAssign<&$t<C>> for $t<C> {
            fn add_assign(&mut self, rhs: &Self) {
                *self = self.$add(rhs);
            }
        }
        impl<C: CurveConfig> AddAssign for $t<C> {
            fn add_assign(&mut self, rhs: Self) {
                *self = self.$add(&rhs);
            }
        }
        impl<C: CurveConfig> AddAssign<&Affine<C>> for $t<C> {
            fn add_assign(&mut self, rhs: &Affine<C>) {
                *self = self.$madd(rhs);
            }
        }
        impl<C: CurveConfig> AddAssign<Affine<C>> for $t<C> {
            fn add_assign(&mut self, rhs: Affine<C>) {
                *self = self.$madd(&rhs);
            }
        }
        impl<C: CurveConfig> SubAssign<&$t<C>> for $t<C> {
            fn sub_assign(&mut self, rhs: &Self) {
                *self = self.$add(&-*rhs);
            }
        }
        impl<C: CurveConfig> SubAssign for $t<C> {
            fn sub_assign(&mut self, rhs: Self) {
                *self = self.$add(&-rhs);
            }
        }
        impl<C: CurveConfig> SubAssign<&Affine<C>> for $t<C> {
            fn sub_assign(&mut self, rhs: &Affine<C>) {
                *self = self.$madd(&-*rhs);
            }
        }
        impl<C: CurveConfig> SubAssign<Affine<C>> for $t<C> {
            fn sub_assign(&mut self, rhs: Affine<C>) {
                *self = self.$madd(&-rhs);
            }
        }
        impl<C: CurveConfig> Sum for $t<C> {
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(Self::identity(), |acc, p| acc.$add(&p))
            }
        }
        impl<'a, C: CurveConfig> Sum<&'a $t<C>> for $t<C> {
            fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
                iter.fold(Self::identity(), |acc, p| acc.$add(p))
            }
        }
        impl<C: CurveConfig> Sum<Affine<C>> for $t<C> {
            fn sum<I: Iterator<Item = Affine<C>>>(iter: I) -> Self {
                iter.fold(Self::identity(), |acc, p| acc.$madd(&p))
            }
        }
        impl<'a, C: CurveConfig> Sum<&'a Affine<C>> for $t<C> {
            fn sum<I: Iterator<Item = &'a Affine<C>>>(iter: I) -> Self {
                iter.fold(Self::identity(), |acc, p| acc.$madd(p))
            }
        }
    };
}

projective_ops!(Jacobian, add_jacobian, add_affine);
projective_ops!(Xyzz, add_xyzz, add_affine);

impl<C: CurveConfig> Add for Affine<C> {
    type Output = Jacobian<C>;
    fn add(self, rhs: Self) -> Jacobian<C> {
        Jacobian::from(self).add_affine(&rhs)
    }
}

impl<C: CurveConfig> Add<&Affine<C>> for Affine<C> {
    type Output = Jacobian<C>;
    fn add(self, rhs: &Self) -> Jacobian<C> {
        Jacobian::from(self).add_affine(rhs)
    }
}

impl<C: CurveConfig> Sub for Affine<C> {
    type Output = Jacobian<C>;
    fn sub(self, rhs: Self) -> Jacobian<C> {
        Jacobian::from(self).add_affine(&-rhs)
    }
}

impl<C: CurveConfig> Sub<&Affine<C>> for Affine<C> {
    type Output = Jacobian<C>;
    fn sub(self, rhs: &Self) -> Jacobian<C> {
        Jacobian::from(self).add_affine(&-*rhs)
    }
}

impl<C: CurveConfig> Mul<C::Scalar> for Affine<C> {
    type Output = Jacobian<C>;
    fn mul(self, s: C::Scalar) -> Jacobian<C> {
        Affine::mul(&self, &s)
    }
}

impl<C: CurveConfig> Mul<C::Scalar> for Jacobian<C> {
    type Output = Jacobian<C>;
    fn mul(self, s: C::Scalar) -> Jacobian<C> {
        Jacobian::mul(&self, &s)
    }
}

impl<C: CurveConfig> Mul<C::Scalar> for Xyzz<C> {
    type Output = Xyzz<C>;
    fn mul(self, s: C::Scalar) -> Xyzz<C> {
        Xyzz::mul(&self, &s)
    }
}
