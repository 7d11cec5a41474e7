//! Zero-cost conversions to and from arkworks 0.5 field types: both sides store Montgomery
//! limbs with the same `R`, so conversion copies limbs.

use crate::{bls12_381, bn254};

macro_rules! prime_field_conversion {
    ($ours:ty, $theirs:ty, $n:literal) => {
        impl From<$ours> for $theirs {
            #[inline]
            fn from(x: $ours) -> Self {
                <$theirs>::new_unchecked(ark_ff::BigInt::<$n>(x.montgomery_limbs()))
            }
        }
        impl From<$theirs> for $ours {
            #[inline]
            fn from(x: $theirs) -> Self {
                // arkworks keeps elements reduced, so the limbs are below p.
                <$ours>::from_montgomery_limbs_unchecked((x.0).0)
            }
        }
    };
}

prime_field_conversion!(bn254::Fr, ark_bn254::Fr, 4);
prime_field_conversion!(bn254::Fq, ark_bn254::Fq, 4);
prime_field_conversion!(bls12_381::Fr, ark_bls12_381::Fr, 4);
prime_field_conversion!(bls12_381::Fq, ark_bls12_381::Fq, 6);

macro_rules! quad_conversion {
    ($ours:ty, $base:ty, $theirs:ty) => {
        impl From<$ours> for $theirs {
            #[inline]
            fn from(x: $ours) -> Self {
                <$theirs>::new(x.c0.into(), x.c1.into())
            }
        }
        impl From<$theirs> for $ours {
            #[inline]
            fn from(x: $theirs) -> Self {
                <$ours>::new(<$base>::from(x.c0), <$base>::from(x.c1))
            }
        }
    };
}

quad_conversion!(bn254::Fq2, bn254::Fq, ark_bn254::Fq2);
quad_conversion!(bls12_381::Fq2, bls12_381::Fq, ark_bls12_381::Fq2);
