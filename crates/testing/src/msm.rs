//! MSM engines: any [`MsmEngine`] against the naive sum `Σ kᵢ·Pᵢ` on every input shape
//! that breaks MSMs ([`MsmInput`]), on random small inputs of every size from empty up,
//! and on mismatched lengths. The engine is a value, so the CPU configurations and a
//! device backend go through the same checks.
//!
//! [`msm_tests!`](crate::msm_tests) instantiates the suite for one group and a list of
//! engines.

use fastzk_curve::Jacobian;
use fastzk_msm::{msm_with, CpuEngine, MsmConfig, MsmCurve, MsmEngine, MsmError};
use proptest::prelude::*;

use crate::check;
use crate::gen::{mixed_msm_input, msm_input, points, rng, MsmInput};

/// The reference: one scalar multiplication per point.
pub fn naive<C: MsmCurve>(bases: &[fastzk_curve::Affine<C>], scalars: &[C::Scalar]) -> Jacobian<C> {
    msm_with(bases, scalars, &MsmConfig::engine(CpuEngine::Naive))
        .expect("equal lengths")
        .result
}

/// Every input shape at size `n` (and the empty input), for every engine.
pub fn every_shape<C: MsmCurve, E: MsmEngine<C>>(engines: &[E], n: usize) {
    let mut r = rng(n as u64);
    for kind in MsmInput::ALL {
        let (pts, ks) = msm_input::<C>(kind, n, &mut r);
        let want = naive(&pts, &ks);
        for e in engines {
            assert_eq!(
                e.msm(&pts, &ks).expect("equal lengths"),
                want,
                "{} {kind:?} n = {n}: {}",
                C::NAME,
                e.name()
            );
        }
    }
    for e in engines {
        assert!(
            e.msm(&[], &[]).expect("empty input").is_zero(),
            "{}",
            e.name()
        );
    }
}

/// Random small inputs (sizes 0–39) mixing every shape per entry.
pub fn small_random_inputs<C: MsmCurve, E: MsmEngine<C>>(engines: &[E], cases: u32) {
    check(cases, None, (0usize..40, any::<u64>()), |(n, seed)| {
        let (pts, ks) = mixed_msm_input::<C>(n, seed);
        let want = naive(&pts, &ks);
        for e in engines {
            prop_assert_eq!(
                e.msm(&pts, &ks).expect("equal lengths"),
                want,
                "{}",
                e.name()
            );
        }
        Ok(())
    });
}

/// Different lengths are an error, not a panic or a wrong answer.
pub fn length_mismatch_is_an_error<C: MsmCurve, E: MsmEngine<C>>(engines: &[E]) {
    let pts = points::<C>(3, 5);
    let ks = vec![C::Scalar::ONE; 2];
    for e in engines {
        assert_eq!(
            e.msm(&pts, &ks),
            Err(MsmError::LengthMismatch {
                bases: 3,
                scalars: 2
            }),
            "{}",
            e.name()
        );
    }
}

use fastzk_field::Field as _;

/// The MSM suite for the group `C` and the engines `engines` (an expression giving a
/// `Vec` of [`MsmEngine<C>`]), in module `name`; `n` is the size of the shaped inputs.
#[macro_export]
macro_rules! msm_tests {
    ($name:ident, $c:ty, $engines:expr, n: $n:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[test]
            fn every_shape() {
                $crate::msm::every_shape::<$c, _>(&$engines, $n);
            }
            #[test]
            fn small_random_inputs() {
                $crate::msm::small_random_inputs::<$c, _>(&$engines, 24);
            }
            #[test]
            fn length_mismatch_is_an_error() {
                $crate::msm::length_mismatch_is_an_error::<$c, _>(&$engines);
            }
        }
    };
}
