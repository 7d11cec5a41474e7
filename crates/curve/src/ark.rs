//! Conversions to and from arkworks 0.5 short-Weierstrass points (`ark` feature).
//! Coordinates copy across limb-for-limb (both sides use the same Montgomery form), and
//! arkworks' projective type is Jacobian with the same `(1, 1, 0)` identity, so affine
//! and Jacobian conversions are exact; XYZZ goes through Jacobian. [`ArkCurve`] names each
//! group's counterpart, so cross-checks against arkworks can be written once.

use ark_ec::short_weierstrass::{Affine as ArkAffine, Projective as ArkProjective, SWCurveConfig};
use fastzk_field::ark::ArkField;

use crate::{Affine, CurveConfig, Jacobian};

/// A group with an arkworks 0.5 counterpart (the same curve, the same generator).
pub trait ArkCurve: CurveConfig<Base: ArkField, Scalar: ArkField<Ark: ark_ff::PrimeField>> {
    type Ark: SWCurveConfig<
        BaseField = <Self::Base as ArkField>::Ark,
        ScalarField = <Self::Scalar as ArkField>::Ark,
    >;
    fn to_ark(p: &Affine<Self>) -> ArkAffine<Self::Ark>;
    fn from_ark(p: &ArkAffine<Self::Ark>) -> Affine<Self>;
    fn to_ark_projective(p: &Jacobian<Self>) -> ArkProjective<Self::Ark>;
    fn from_ark_projective(p: &ArkProjective<Self::Ark>) -> Jacobian<Self>;
}

/// `group_conversion!(ours, theirs)`: `From` both ways for affine, Jacobian and XYZZ
/// points; each curve's file invokes it for its groups.
macro_rules! group_conversion {
    ($cfg:ty, $ark_cfg:ty) => {
        const _: () = {
            use ark_ec::short_weierstrass::{Affine as ArkAffine, Projective as ArkProjective};
            use $crate::{Affine, Jacobian, Xyzz};

            impl From<Affine<$cfg>> for ArkAffine<$ark_cfg> {
                fn from(p: Affine<$cfg>) -> Self {
                    if p.infinity {
                        ArkAffine::identity()
                    } else {
                        ArkAffine::new_unchecked(p.x.into(), p.y.into())
                    }
                }
            }
            impl From<ArkAffine<$ark_cfg>> for Affine<$cfg> {
                fn from(p: ArkAffine<$ark_cfg>) -> Self {
                    if p.infinity {
                        Affine::identity()
                    } else {
                        Affine::new_unchecked(p.x.into(), p.y.into())
                    }
                }
            }
            impl From<Jacobian<$cfg>> for ArkProjective<$ark_cfg> {
                fn from(p: Jacobian<$cfg>) -> Self {
                    ArkProjective::new_unchecked(p.x.into(), p.y.into(), p.z.into())
                }
            }
            impl From<ArkProjective<$ark_cfg>> for Jacobian<$cfg> {
                fn from(p: ArkProjective<$ark_cfg>) -> Self {
                    Jacobian::new_unchecked(p.x.into(), p.y.into(), p.z.into())
                }
            }
            impl From<Xyzz<$cfg>> for ArkProjective<$ark_cfg> {
                fn from(p: Xyzz<$cfg>) -> Self {
                    Jacobian::from(p).into()
                }
            }
            impl From<ArkProjective<$ark_cfg>> for Xyzz<$cfg> {
                fn from(p: ArkProjective<$ark_cfg>) -> Self {
                    Jacobian::<$cfg>::from(p).into()
                }
            }
            impl $crate::ark::ArkCurve for $cfg {
                type Ark = $ark_cfg;
                fn to_ark(p: &Affine<$cfg>) -> ArkAffine<$ark_cfg> {
                    (*p).into()
                }
                fn from_ark(p: &ArkAffine<$ark_cfg>) -> Affine<$cfg> {
                    (*p).into()
                }
                fn to_ark_projective(p: &Jacobian<$cfg>) -> ArkProjective<$ark_cfg> {
                    (*p).into()
                }
                fn from_ark_projective(p: &ArkProjective<$ark_cfg>) -> Jacobian<$cfg> {
                    (*p).into()
                }
            }
        };
    };
}

pub(crate) use group_conversion;
