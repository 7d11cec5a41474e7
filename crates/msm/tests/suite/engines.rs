//! What the CPU engines offer beyond the shared suite (`conformance.rs`): streaming,
//! precomputed fixed bases, prepared bases, batches over the same bases, the grouping
//! path at size,
//! configuration errors, and the fixed-width GLV split.

use fastzk_curve::{bls12_381 as bls, bn254 as bn, Affine};
use fastzk_field::{Field, PrimeField};
use fastzk_msm::{
    msm, msm_batch, msm_with, planner, CpuEngine, MsmConfig, MsmCurve, MsmError, MsmStream,
    PrecomputedBases, PreparedBases,
};
use fastzk_testing::gen::{msm_input, points, rng, MsmInput};
use fastzk_testing::msm::naive;
use rand::RngCore;

/// Streaming in uneven chunks, precomputed bases and batches, on every input shape.
fn stream_precomputed_batch<C: MsmCurve>(n: usize) {
    let mut rng = rng(n as u64);
    for kind in MsmInput::ALL {
        let (pts, ks) = msm_input::<C>(kind, n, &mut rng);
        let want = naive(&pts, &ks);
        let mut st = MsmStream::<C>::start(Some(4), n).expect("window ok");
        for (p, k) in pts.chunks(37).zip(ks.chunks(37)) {
            st.update(p, k).expect("equal chunk lengths");
        }
        assert!(st.memory_bytes() > 0);
        assert_eq!(st.finish(), want, "{} {kind:?} stream", C::NAME);
        let pre = PrecomputedBases::new(&pts, 6).expect("window ok");
        assert!(pre.memory_bytes() >= n * size_of::<Affine<C>>());
        assert_eq!(
            pre.msm(&ks).expect("len"),
            want,
            "{} {kind:?} precomputed",
            C::NAME
        );
        let prepared = PreparedBases::new(&pts);
        assert_eq!(
            prepared.is_prepared(),
            planner::default_lane_flush::<C>().is_some()
        );
        for glv in [None, Some(false)] {
            let got = prepared.msm_glv(&ks, glv).expect("len");
            assert_eq!(got, want, "{} {kind:?} prepared, glv {glv:?}", C::NAME);
        }
        let half = n / 2;
        assert_eq!(
            prepared.msm(&ks[..half]).expect("prefix"),
            naive(&pts[..half], &ks[..half]),
            "{} {kind:?} prepared prefix",
            C::NAME
        );
    }
    let (pts, k1) = msm_input::<C>(MsmInput::Random, n, &mut rng);
    let (_, k2) = msm_input::<C>(MsmInput::Witness, n, &mut rng);
    let got = msm_batch(&pts, &[&k1, &k2]).expect("lengths");
    assert_eq!(got[0], naive(&pts, &k1));
    assert_eq!(got[1], naive(&pts, &k2));
}

macro_rules! cpu_suites {
    ($m:ident, $e:ty) => {
        mod $m {
            use super::*;
            use fastzk_pairing::PairingCurve;
            #[test]
            fn g1_stream_precomputed_batch() {
                stream_precomputed_batch::<<$e as PairingCurve>::G1>(150);
            }
            #[test]
            fn g2_stream_precomputed_batch() {
                stream_precomputed_batch::<<$e as PairingCurve>::G2>(130);
            }
        }
    };
}

fastzk_pairing::for_each_pairing_curve!(cpu_suites);

#[test]
fn larger_clustered_and_random_agree() {
    // Big enough that the fast engine uses wide windows, several batch flushes and the
    // grouping path; checked against the serial Pippenger (itself checked above).
    let mut rng = rng(9);
    for kind in [
        MsmInput::Random,
        MsmInput::Clustered,
        MsmInput::Witness,
        MsmInput::EqualScalars,
    ] {
        let (pts, ks) = msm_input::<bn::G1Config>(kind, 1 << 13, &mut rng);
        let want = msm_with(&pts, &ks, &MsmConfig::engine(CpuEngine::ParallelWindows))
            .expect("lengths")
            .result;
        // 19 windows at c = 14: on three threads one is split in three parts of points.
        for (window, threads) in [(None, None), (Some(10), None), (Some(14), Some(3))] {
            let got = msm_with(
                &pts,
                &ks,
                &MsmConfig {
                    window,
                    threads,
                    ..MsmConfig::default()
                },
            )
            .expect("lengths");
            assert_eq!(got.result, want, "{kind:?} window {window:?}");
            if matches!(kind, MsmInput::Clustered | MsmInput::EqualScalars) {
                assert!(got.grouped, "{kind:?} should take the grouping path");
            }
        }
        let prepared = PreparedBases::new(&pts);
        for glv in [None, Some(false), Some(true)] {
            let got = prepared.msm_glv(&ks, glv).expect("lengths");
            assert_eq!(got, want, "{kind:?} prepared, glv {glv:?}");
        }
    }
}

#[test]
fn empty_and_mismatch() {
    let pts: Vec<Affine<bn::G1Config>> = Vec::new();
    let ks: Vec<fastzk_field::bn254::Fr> = Vec::new();
    for e in CpuEngine::ALL {
        let r = msm_with(&pts, &ks, &MsmConfig::engine(e)).expect("empty is fine");
        assert!(r.result.is_zero());
    }
    let pts = points::<bn::G1Config>(3, 5);
    let ks = vec![fastzk_field::bn254::Fr::ONE; 2];
    assert_eq!(
        msm(&pts, &ks),
        Err(MsmError::LengthMismatch {
            bases: 3,
            scalars: 2
        })
    );
    assert!(matches!(
        msm_with(
            &pts[..2],
            &ks,
            &MsmConfig {
                window: Some(40),
                ..MsmConfig::default()
            }
        ),
        Err(MsmError::InvalidWindow(40))
    ));
    assert!(msm_batch(&pts, &[&ks]).is_err());
    let prepared = PreparedBases::new(&pts[..1]);
    assert_eq!(
        prepared.msm(&ks),
        Err(MsmError::LengthMismatch {
            bases: 1,
            scalars: 2
        })
    );
    assert!(prepared.msm(&[]).expect("empty is fine").is_zero());
    let mut st = MsmStream::<bn::G1Config>::start(None, 10).expect("planner window");
    assert!(st.update(&pts, &ks).is_err());
    assert!(PrecomputedBases::new(&pts, 1).is_err());
    assert!("nope".parse::<CpuEngine>().is_err());
    for e in CpuEngine::ALL {
        assert_eq!(e.name().parse::<CpuEngine>(), Ok(e));
    }
}

#[test]
fn glv_split_is_exact_and_short() {
    use num_bigint::BigUint;
    fn check<C: MsmCurve>(seed: u64) {
        let glv = C::glv_fast().expect("G1 has GLV");
        let lambda = C::glv().expect("G1 has GLV").lambda.clone();
        let r = <C::Scalar as PrimeField>::modulus();
        let mut rng = rng(seed);
        let mut extremes: Vec<C::Scalar> = vec![C::Scalar::ZERO, C::Scalar::ONE, -C::Scalar::ONE];
        extremes.extend((0..500).map(|_| <C::Scalar as Field>::random(&mut rng)));
        for k in extremes {
            let limbs = C::scalar_limbs(&k);
            let (n1, k1, n2, k2) = glv.decompose(&limbs);
            assert!(fastzk_msm::scalar::bit_len(&k1) <= 130);
            assert!(fastzk_msm::scalar::bit_len(&k2) <= 130);
            let to = |v: &[u64; 4], neg: bool| {
                let b = BigUint::from_slice(
                    &v.iter()
                        .flat_map(|l| [*l as u32, (l >> 32) as u32])
                        .collect::<Vec<_>>(),
                ) % &r;
                if neg {
                    (&r - b) % &r
                } else {
                    b
                }
            };
            let lhs = (to(&k1, n1) + to(&k2, n2) * &lambda) % &r;
            assert_eq!(lhs, k.to_biguint());
        }
    }
    check::<bn::G1Config>(1);
    check::<bls::G1Config>(2);
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
    check::<bn::G1Config, bn::G2Config>(21);
    check::<bls::G1Config, bls::G2Config>(22);
}

/// `Σ_b (b+1)·B_b` for full bucket sets, by the scalar flush's reduction (segmented from
/// 1024 buckets) against a plain running sum in Jacobian coordinates: random buckets,
/// every bucket the same point (the running sums double: the segmented reduction must
/// fall back), buckets alternating `P` and `−P` (the running sums cancel), some empty.
fn bucket_reduction<C: MsmCurve>(n_buckets: usize) {
    use fastzk_curve::Jacobian;
    use fastzk_msm::bucket::BucketAcc;
    let pts = points::<C>(n_buckets, 11);
    let p = pts[0];
    let bucket = |shape: &str, b: usize| match shape {
        "random" => pts[b],
        "equal" => p,
        "alternating" if b.is_multiple_of(2) => p,
        "alternating" => -p,
        _ if b.is_multiple_of(3) => pts[b],
        _ => Affine::identity(),
    };
    for name in ["random", "equal", "alternating", "sparse"] {
        let mut acc = BucketAcc::<C>::new(n_buckets, BucketAcc::<C>::default_batch(n_buckets));
        let mut running = Jacobian::<C>::identity();
        let mut want = Jacobian::<C>::identity();
        for b in (0..n_buckets).rev() {
            let q = bucket(name, b);
            acc.add(b, &q);
            running = running.add_affine(&q);
            want = want.add_jacobian(&running);
        }
        let got = Jacobian::from(acc.reduce());
        assert_eq!(got, want, "{} {n_buckets} buckets, {name}", C::NAME);
    }
}

#[test]
fn bucket_reduction_plain_and_segmented() {
    for n in [512, 1024, 4096] {
        bucket_reduction::<bn::G1Config>(n);
        bucket_reduction::<bls::G2Config>(n);
    }
}
