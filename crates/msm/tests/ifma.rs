//! The eight-lane IFMA bucket flush against the scalar flush and the serial Pippenger,
//! on inputs big enough for many full batches, and on the inputs that send lanes down
//! the exceptional path (a bucket and a point with the same `x`: doublings and
//! cancellations).

use fastzk_curve::{bls12_381, bn254, Affine};
use fastzk_field::Field;
use fastzk_msm::{msm_with, CpuEngine, MsmConfig, MsmCurve};
use fastzk_testing::gen::{points, rng};
use rand::{Rng, RngCore};

fn simd_available<C: MsmCurve>() -> bool {
    let ok = C::ifma_flush().is_some();
    if !ok {
        eprintln!(
            "{}: no IFMA kernel on this CPU; checking the scalar path only",
            C::NAME
        );
    }
    ok
}

/// Bucket-path configurations (grouping and partitioning off, so every point goes
/// through the buckets) with the IFMA flush on and off.
fn run<C: MsmCurve>(pts: &[Affine<C>], ks: &[C::Scalar], what: &str) {
    let want = msm_with(pts, ks, &MsmConfig::engine(CpuEngine::ParallelWindows))
        .expect("lengths")
        .result;
    for window in [None, Some(4), Some(9), Some(13)] {
        for glv in [Some(true), Some(false)] {
            for simd in [true, false] {
                let cfg = MsmConfig {
                    window,
                    glv,
                    simd,
                    partition: false,
                    group_equal: false,
                    ..MsmConfig::engine(CpuEngine::Fast)
                };
                let got = msm_with(pts, ks, &cfg).expect("lengths");
                assert_eq!(
                    got.result,
                    want,
                    "{} {what}: window {window:?} glv {glv:?} simd {simd}",
                    C::NAME
                );
                if simd && C::ifma_flush().is_some() {
                    assert!(
                        got.simd,
                        "{} {what}: the IFMA flush should have run",
                        C::NAME
                    );
                } else {
                    assert!(!got.simd);
                }
            }
        }
    }
}

fn check<C: MsmCurve>(seed: u64) {
    simd_available::<C>();
    let mut rng = rng(seed);
    let n = 1500;
    let pts = points::<C>(n, rng.next_u64());
    let random: Vec<C::Scalar> = (0..n).map(|_| C::Scalar::random(&mut rng)).collect();
    run(&pts, &random, "random");

    let vals: Vec<C::Scalar> = (0..32).map(|_| C::Scalar::random(&mut rng)).collect();
    let clustered: Vec<C::Scalar> = (0..n).map(|_| vals[rng.gen_range(0..32)]).collect();
    run(&pts, &clustered, "clustered");

    let equal = vec![C::Scalar::random(&mut rng); n];
    run(&pts, &equal, "all-equal scalars");

    // One point, all-equal scalars: every addition after the first in a bucket is a
    // doubling (same x, same y).
    let same = vec![pts[0]; n];
    run(&same, &equal, "one point, equal scalars");

    // P and −P alternating with equal scalars: additions cancel (same x, opposite y).
    let pm: Vec<Affine<C>> = (0..n)
        .map(|i| if i % 2 == 0 { pts[1] } else { -pts[1] })
        .collect();
    run(&pm, &equal, "P and -P, equal scalars");

    // Few distinct points with random scalars: many same-x lanes mixed with ordinary ones.
    let few: Vec<Affine<C>> = (0..n).map(|i| pts[i % 5]).collect();
    run(&few, &random, "five distinct points");

    // Identities and zeros mixed in.
    let mut holes = pts.clone();
    let mut ks = random.clone();
    for i in (0..n).step_by(7) {
        holes[i] = Affine::identity();
        ks[(i + 3) % n] = C::Scalar::ZERO;
    }
    run(&holes, &ks, "identities and zeros");

    // Lengths that leave partial groups of eight in every batch.
    for m in [1, 7, 9, 17, 100] {
        run(&pts[..m], &random[..m], "short");
    }
}

#[test]
fn bn254_g1_simd_matches_scalar() {
    check::<bn254::G1Config>(11);
}

#[test]
fn bls12_381_g1_simd_matches_scalar() {
    check::<bls12_381::G1Config>(12);
}

#[test]
fn bn254_g2_simd_matches_scalar() {
    check::<bn254::G2Config>(13);
}

#[test]
fn bls12_381_g2_simd_matches_scalar() {
    check::<bls12_381::G2Config>(14);
}

#[test]
fn pair_msm_matches_two_msms() {
    fn check<G1: MsmCurve, G2: MsmCurve<Scalar = G1::Scalar>>(seed: u64) {
        let mut rng = rng(seed);
        for n in [0, 1, 9, 700] {
            let p = points::<G1>(n, rng.next_u64());
            let q = points::<G2>(n, rng.next_u64());
            let ks: Vec<G1::Scalar> = (0..n)
                .map(|i| match i % 4 {
                    0 => G1::Scalar::ZERO,
                    1 => G1::Scalar::ONE,
                    _ => G1::Scalar::random(&mut rng),
                })
                .collect();
            let (a, b) = fastzk_msm::msm_pair(&p, &q, &ks).expect("lengths");
            let naive = MsmConfig::engine(CpuEngine::Naive);
            assert_eq!(
                a,
                msm_with(&p, &ks, &naive).unwrap().result,
                "G1 part, n = {n}"
            );
            assert_eq!(
                b,
                msm_with(&q, &ks, &naive).unwrap().result,
                "G2 part, n = {n}"
            );
        }
        let p = points::<G1>(3, rng.next_u64());
        let q = points::<G2>(2, rng.next_u64());
        let ks = vec![G1::Scalar::ONE; 3];
        assert!(
            fastzk_msm::msm_pair(&p, &q, &ks).is_err(),
            "length mismatch"
        );
    }
    check::<bn254::G1Config, bn254::G2Config>(21);
    check::<bls12_381::G1Config, bls12_381::G2Config>(22);
}
