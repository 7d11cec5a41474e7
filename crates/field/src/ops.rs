//! The arithmetic operator impls every field type shares, written once: each type
//! supplies four inherent methods and this macro derives `+ − × −x`, the assigning
//! forms, `Sum` and `Product`.

/// `field_ops!([generics] Type, add_fn, sub_fn, mul_fn, neg_fn)`, where the methods take
/// `(&self, &Self) -> Self` (`neg_fn`: `(&self) -> Self`).
macro_rules! field_ops {
    ([$($gen:tt)*] $t:ty, $add:ident, $sub:ident, $mul:ident, $neg:ident) => {
        impl<$($gen)*> core::ops::Add for $t {
            type Output = Self;
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                self.$add(&rhs)
            }
        }
        impl<$($gen)*> core::ops::Sub for $t {
            type Output = Self;
            #[inline(always)]
            fn sub(self, rhs: Self) -> Self {
                self.$sub(&rhs)
            }
        }
        impl<$($gen)*> core::ops::Mul for $t {
            type Output = Self;
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self {
                self.$mul(&rhs)
            }
        }
        impl<$($gen)*> core::ops::Neg for $t {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                self.$neg()
            }
        }
        impl<$($gen)*> core::ops::AddAssign for $t {
            #[inline(always)]
            fn add_assign(&mut self, rhs: Self) {
                *self = self.$add(&rhs)
            }
        }
        impl<$($gen)*> core::ops::SubAssign for $t {
            #[inline(always)]
            fn sub_assign(&mut self, rhs: Self) {
                *self = self.$sub(&rhs)
            }
        }
        impl<$($gen)*> core::ops::MulAssign for $t {
            #[inline(always)]
            fn mul_assign(&mut self, rhs: Self) {
                *self = self.$mul(&rhs)
            }
        }
        impl<$($gen)*> core::iter::Sum for $t {
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(<Self as $crate::Field>::ZERO, |a, b| a.$add(&b))
            }
        }
        impl<$($gen)*> core::iter::Product for $t {
            fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(<Self as $crate::Field>::ONE, |a, b| a.$mul(&b))
            }
        }
    };
}

pub(crate) use field_ops;
