//! fastzk's shared conformance suites and input generators (a dev-dependency only).
//!
//! A suite is a set of generic test functions plus a macro that instantiates them for one
//! type in one line, inside a module named by the first argument:
//!
//! ```text
//! fastzk_testing::montgomery_field_tests!(bn254_fr, fastzk_field::bn254::Fr);
//! fastzk_testing::ark_field_tests!(bn254_fr_ark, fastzk_field::bn254::Fr);
//! fastzk_testing::quad_ext_tests!(bn254_fq2, fastzk_field::bn254::Fq2Config);
//! fastzk_testing::group_tests!(bn254_g1, fastzk_curve::bn254::G1Config, snarkjs: ("bn128", "g1"));
//! fastzk_testing::msm_tests!(bn254_g1, fastzk_curve::bn254::G1Config, engines());
//! fastzk_testing::ntt_tests!(goldilocks, fastzk_field::Goldilocks);
//! ```
//!
//! The MSM and NTT suites take the implementation under test as a value
//! ([`fastzk_msm::MsmEngine`], a constructor of a [`fastzk_poly::TwoAdicTransform`]) and
//! check it against the naive references, so a device backend instantiates the same
//! suites for each device. [`fastzk_pairing::for_each_pairing_curve!`] instantiates the
//! curve suites for every registry curve.
//!
//! | module | what it checks | reference |
//! |---|---|---|
//! | [`field`] | prime-field laws, encodings, Montgomery lazy reduction | num-bigint, arkworks |
//! | [`ext`] | quadratic extensions | schoolbook formulas, arkworks |
//! | [`ifma`] | the eight-lane IFMA arithmetic and lane fields, on the CPU's instructions and on the software model; the model against the instructions | the scalar field, the instructions |
//! | [`group`] | group laws, every point form, scalar multiplication, subgroup checks | arkworks, `[r]P = 0` |
//! | [`serialize`] | the five point encodings | arkworks bytes, ffjavascript vectors |
//! | [`msm`] | any MSM engine on every input shape | the naive sum |
//! | [`ntt`] | any NTT, every order, cosets, batches | [`fastzk_poly::NaiveDft`] |
//! | [`trials`] | (a harness) checks this host may not run, reported ignored with the reason | — |

pub mod corrupt;
pub mod ext;
pub mod field;
pub mod fixtures;
pub mod gen;
pub mod group;
pub mod ifma;
pub mod msm;
pub mod ntt;
pub mod serialize;
pub mod trials;

pub use trials::Trials;

/// Re-exported for the macros.
#[doc(hidden)]
pub use {fastzk_field, fastzk_pairing};

use std::fmt::Debug;

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};

/// Runs the property `test` on `cases` values drawn from `strategy` and panics with
/// proptest's shrunk counterexample if it fails. `seed` fixes the draw (`None`: a fresh
/// one each run, as proptest's macros do). `FASTZK_TEST_CASES_PERCENT` (1–100, default 100)
/// scales `cases` down, for runs under emulation (`scripts/aarch64-tests.sh`).
pub fn check<S: Strategy>(
    cases: u32,
    seed: Option<u64>,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: Debug,
{
    let config = Config {
        cases: scaled_cases(
            cases,
            std::env::var("FASTZK_TEST_CASES_PERCENT").ok().as_deref(),
        ),
        failure_persistence: None,
        rng_seed: seed.map_or(RngSeed::Random, RngSeed::Fixed),
        ..Config::default()
    };
    if let Err(e) = TestRunner::new(config).run(&strategy, test) {
        panic!("{e}");
    }
}

/// `cases` scaled by `percent` (an integer from 1 to 100; anything else leaves `cases` as
/// it is), and at least one case.
fn scaled_cases(cases: u32, percent: Option<&str>) -> u32 {
    match percent.and_then(|p| p.trim().parse::<u32>().ok()) {
        Some(p @ 1..=100) => (u64::from(cases) * u64::from(p) / 100).max(1) as u32,
        _ => cases,
    }
}

/// `#[test] fn f() { $path::f::<$t>() }` for each listed function.
#[doc(hidden)]
#[macro_export]
macro_rules! __tests {
    ($path:path, $types:tt, $($f:ident),* $(,)?) => {
        $($crate::__test!($path, $types, $f);)*
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __test {
    ($path:path, [$($t:ty),*], $f:ident) => {
        #[test]
        fn $f() {
            use $path as suite;
            suite::$f::<$($t),*>();
        }
    };
}

#[cfg(test)]
mod tests {
    use super::scaled_cases;

    #[test]
    fn cases_scale_by_a_valid_percentage_only() {
        assert_eq!(scaled_cases(3000, None), 3000);
        assert_eq!(scaled_cases(3000, Some("25")), 750);
        assert_eq!(scaled_cases(3000, Some(" 100 ")), 3000);
        assert_eq!(scaled_cases(3, Some("1")), 1);
        assert_eq!(scaled_cases(3000, Some("0")), 3000);
        assert_eq!(scaled_cases(3000, Some("101")), 3000);
        assert_eq!(scaled_cases(3000, Some("a quarter")), 3000);
    }
}
