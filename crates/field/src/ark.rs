//! Conversions to and from arkworks 0.5 field types. The pairing fields convert at no
//! cost (both sides store Montgomery limbs with the same `R`); Goldilocks converts to an
//! arkworks field of the same modulus ([`ArkGoldilocks`]). [`ArkField`] names each
//! field's counterpart, so cross-checks against arkworks can be written once.

use crate::traits::Field;

/// A field with an arkworks 0.5 counterpart.
pub trait ArkField: Field {
    /// The arkworks type of the same field.
    type Ark: ark_ff::Field;
    fn to_ark(self) -> Self::Ark;
    fn from_ark(a: Self::Ark) -> Self;
}

/// Goldilocks as an arkworks field (the same modulus, arkworks' own arithmetic), for
/// cross-checks.
#[derive(ark_ff::MontConfig)]
#[modulus = "18446744069414584321"]
#[generator = "7"]
pub struct ArkGoldilocksConfig;
/// See [`ArkGoldilocksConfig`].
pub type ArkGoldilocks = ark_ff::Fp64<ark_ff::MontBackend<ArkGoldilocksConfig, 1>>;

impl ArkField for crate::Goldilocks {
    type Ark = ArkGoldilocks;
    fn to_ark(self) -> ArkGoldilocks {
        ArkGoldilocks::from(self.value())
    }
    fn from_ark(a: ArkGoldilocks) -> Self {
        use ark_ff::PrimeField;
        Self::from_u64_reduced(a.into_bigint().0[0])
    }
}

/// `prime_field_conversion!(ours, theirs, limbs)`: `From` both ways.
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
        impl $crate::ark::ArkField for $ours {
            type Ark = $theirs;
            fn to_ark(self) -> $theirs {
                self.into()
            }
            fn from_ark(a: $theirs) -> Self {
                a.into()
            }
        }
    };
}

/// `quad_conversion!(ours, our base, theirs)`: `From` both ways, by coefficient.
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
        impl $crate::ark::ArkField for $ours {
            type Ark = $theirs;
            fn to_ark(self) -> $theirs {
                self.into()
            }
            fn from_ark(a: $theirs) -> Self {
                a.into()
            }
        }
    };
}

pub(crate) use {prime_field_conversion, quad_conversion};
