//! The groups the MSM engines run on, and what each brings beyond its curve: scalars as
//! 256-bit integers, the GLV split where the curve has an endomorphism, and the
//! eight-lane IFMA flush where its coordinate field has lanes. Adding a group is one
//! `msm_curve!` line here.

use std::sync::OnceLock;

use fastzk_curve::{bls12_381, bn254, CurveConfig};
#[cfg(any(target_arch = "x86_64", feature = "ifma-model"))]
use fastzk_field::ifma::lanes::{Fq2x8, Fq8};

use crate::ifma_flush::IfmaFlush;
use crate::scalar::GlvFast;

/// A [`CurveConfig`] whose scalars fit 256 bits, with its MSM capabilities: the GLV
/// endomorphism in fixed-width form, and the IFMA bucket flush. Both default to absent.
pub trait MsmCurve: CurveConfig {
    /// The canonical value of a scalar, little-endian.
    fn scalar_limbs(s: &Self::Scalar) -> [u64; 4];
    /// The GLV split in fixed-width arithmetic, for groups that have an endomorphism.
    fn glv_fast() -> Option<&'static GlvFast<Self>> {
        None
    }
    /// The eight-lane AVX-512 IFMA bucket flush, where the group and the CPU have one.
    fn ifma_flush() -> Option<&'static IfmaFlush<Self>> {
        None
    }
    /// The same flush on AVX2 with products on FMA ([`fastzk_field::ifma::avx2`]), for
    /// the groups where it beats the scalar flush, where the CPU has AVX2 and FMA.
    fn fma_flush() -> Option<&'static IfmaFlush<Self>> {
        None
    }
    /// The eight-lane flush this CPU has for the group: IFMA's, else FMA's, else none.
    /// The fast engine takes it where it is the cheaper
    /// ([`crate::planner::default_lane_flush`]).
    fn lane_flush() -> Option<&'static IfmaFlush<Self>> {
        Self::ifma_flush().or_else(Self::fma_flush)
    }
    /// The same flush on the software model of the IFMA lanes (any host; tests).
    #[cfg(feature = "ifma-model")]
    fn ifma_flush_model() -> Option<&'static IfmaFlush<Self>> {
        None
    }
}

/// `msm_curve!(group, Lanes<field, W, L>, fma: bool)`: `Lanes` is the IFMA lane type of
/// the group's coordinate field (`Fq8` or `Fq2x8`, without its vector type), `W` and `L`
/// its memory and lane limbs, `fma` whether the group takes the FMA lanes' flush where
/// IFMA is absent. The CPU's flushes are x86-64 only and detected at run time; the
/// model's runs anywhere.
macro_rules! msm_curve {
    ($cfg:ty, $lanes:ident<$field:ty, $w:literal, $l:literal>, fma: $fma:tt) => {
        impl MsmCurve for $cfg {
            #[inline]
            fn scalar_limbs(s: &Self::Scalar) -> [u64; 4] {
                s.to_canonical_limbs()
            }
            fn glv_fast() -> Option<&'static GlvFast<Self>> {
                static G: OnceLock<Option<GlvFast<$cfg>>> = OnceLock::new();
                G.get_or_init(GlvFast::derive).as_ref()
            }
            #[cfg(target_arch = "x86_64")]
            fn ifma_flush() -> Option<&'static IfmaFlush<Self>> {
                type V = $lanes<$field, $w, $l, core::arch::x86_64::__m512i>;
                static K: OnceLock<Option<IfmaFlush<$cfg>>> = OnceLock::new();
                K.get_or_init(IfmaFlush::new::<V>).as_ref()
            }
            msm_curve!(@fma $fma, $cfg, $lanes<$field, $w, $l>);
            #[cfg(feature = "ifma-model")]
            fn ifma_flush_model() -> Option<&'static IfmaFlush<Self>> {
                type V = $lanes<$field, $w, $l, fastzk_field::ifma::Model>;
                static K: OnceLock<IfmaFlush<$cfg>> = OnceLock::new();
                Some(K.get_or_init(IfmaFlush::model::<V>))
            }
        }
    };
    (@fma true, $cfg:ty, $lanes:ident<$field:ty, $w:literal, $l:literal>) => {
        #[cfg(target_arch = "x86_64")]
        fn fma_flush() -> Option<&'static IfmaFlush<Self>> {
            type V = $lanes<$field, $w, $l, fastzk_field::ifma::avx2::Avx2>;
            static K: OnceLock<Option<IfmaFlush<$cfg>>> = OnceLock::new();
            K.get_or_init(IfmaFlush::new_avx2::<V>).as_ref()
        }
    };
    (@fma false, $($rest:tt)*) => {};
}

// The FMA lanes only for the group where they can beat the scalar flush, and there only
// where the calibration finds them cheaper (Zen 4 with `FASTZK_NO_IFMA=1`, 2^20 for G1
// and 2^18 for G2, alternated runs, BENCHMARKS.md: BN254 G1 about 10 % faster; on a Zen 3
// EPYC a fifth slower). BLS12-381 G1 and BN254 G2 were about 10 % slower on Zen 4 too
// (eight 52-bit limbs; three products per `Fq2` product, each paying the lanes' carry
// passes), and with the three-operation split (thirty-sixth session) still slower in the
// calibrated bucket addition: BLS12-381 G1 252 against 242 ns (its products one after the
// other), BN254 G2 345–350 against 326–332 ns.
msm_curve!(bn254::G1Config, Fq8<fastzk_field::bn254::Fq, 4, 5>, fma: true);
msm_curve!(bn254::G2Config, Fq2x8<fastzk_field::bn254::Fq2Config, 4, 5>, fma: false);
msm_curve!(bls12_381::G1Config, Fq8<fastzk_field::bls12_381::Fq, 6, 8>, fma: false);
msm_curve!(bls12_381::G2Config, Fq2x8<fastzk_field::bls12_381::Fq2Config, 6, 8>, fma: false);
