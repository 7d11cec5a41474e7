//! The per-curve constants every point form is generic over.

use core::fmt::Debug;
use core::hash::Hash;

use fastzk_field::{ChordArith, Field, NormInverse, PrimeField};

use crate::affine::Affine;
use crate::glv::Glv;

/// A short-Weierstrass curve `y^2 = x^3 + b` (the `a = 0` case covers every pairing
/// curve fastzk targets, and lets doubling skip the `a·Z^4` term).
///
/// `Base` is the coordinate field (`Fq` for G1, `Fq2` for G2); `Scalar` is the field of
/// the prime subgroup order `r`.
pub trait CurveConfig:
    'static + Copy + Clone + Debug + Default + PartialEq + Eq + Hash + Send + Sync
{
    type Base: Field + NormInverse + ChordArith;
    type Scalar: PrimeField;

    /// Human-readable group name, for `Debug`/diagnostics.
    const NAME: &'static str;
    /// The curve coefficient `b`.
    const COEFF_B: Self::Base;
    /// The fixed generator of the prime-order subgroup (same as arkworks').
    const GENERATOR_X: Self::Base;
    const GENERATOR_Y: Self::Base;
    /// `#E(Base) / r`, as little-endian 64-bit limbs.
    const COFACTOR: &'static [u64];

    /// Whether an on-curve point lies in the order-`r` subgroup.
    ///
    /// The default multiplies by `r` with the plain (non-endomorphism) ladder, which is
    /// correct for any curve; configs override it where something cheaper is known.
    fn is_in_correct_subgroup(p: &Affine<Self>) -> bool {
        let r = Self::Scalar::modulus().to_u64_digits();
        p.mul_bigint(&r).is_zero()
    }

    /// GLV endomorphism data, where the curve has one over its base field.
    fn glv() -> Option<&'static Glv<Self>> {
        None
    }
}

/// Little-endian 64-bit limbs of a prime-field element's canonical value.
pub(crate) fn scalar_limbs<F: PrimeField>(s: &F) -> Vec<u64> {
    s.to_le_bytes()
        .chunks(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// The rest of a pairing curve's module, after its `G1Config` and `G2Config`: their ark
/// compressed layout (`SwFlags` or `Zcash`), arkworks conversions (`$ark`: the arkworks
/// curve crate) and point type names.
macro_rules! pairing_group_types {
    ($layout:ident, $ark:ident) => {
        impl $crate::serialize::SerializableCurve for G1Config {
            const ARK_LAYOUT: $crate::serialize::ArkLayout = $crate::serialize::ArkLayout::$layout;
        }
        impl $crate::serialize::SerializableCurve for G2Config {
            const ARK_LAYOUT: $crate::serialize::ArkLayout = $crate::serialize::ArkLayout::$layout;
        }

        #[cfg(feature = "ark")]
        $crate::ark::group_conversion!(G1Config, $ark::g1::Config);
        #[cfg(feature = "ark")]
        $crate::ark::group_conversion!(G2Config, $ark::g2::Config);

        pub type G1Affine = $crate::Affine<G1Config>;
        pub type G1Projective = $crate::Jacobian<G1Config>;
        pub type G1Jacobian = $crate::Jacobian<G1Config>;
        pub type G1Xyzz = $crate::Xyzz<G1Config>;
        pub type G2Affine = $crate::Affine<G2Config>;
        pub type G2Projective = $crate::Jacobian<G2Config>;
        pub type G2Jacobian = $crate::Jacobian<G2Config>;
        pub type G2Xyzz = $crate::Xyzz<G2Config>;
    };
}
pub(crate) use pairing_group_types;
