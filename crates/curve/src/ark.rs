//! Conversions to and from arkworks 0.5 short-Weierstrass points (`ark` feature).
//! Coordinates copy across limb-for-limb (both sides use the same Montgomery form), and
//! arkworks' projective type is Jacobian with the same `(1, 1, 0)` identity, so affine
//! and Jacobian conversions are exact; XYZZ goes through Jacobian.

use ark_ec::short_weierstrass::{Affine as ArkAffine, Projective as ArkProjective};

use crate::affine::Affine;
use crate::jacobian::Jacobian;
use crate::xyzz::Xyzz;
use crate::{bls12_381, bn254};

macro_rules! group_conversion {
    ($cfg:ty, $ark_cfg:ty) => {
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
    };
}

group_conversion!(bn254::G1Config, ark_bn254::g1::Config);
group_conversion!(bn254::G2Config, ark_bn254::g2::Config);
group_conversion!(bls12_381::G1Config, ark_bls12_381::g1::Config);
group_conversion!(bls12_381::G2Config, ark_bls12_381::g2::Config);
