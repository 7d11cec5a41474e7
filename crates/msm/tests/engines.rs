//! Every engine against the naive sum, for all four groups, on the input shapes that
//! break MSMs: random, clustered (32 distinct values), all zero, all one, duplicate
//! points (including P and −P), all-equal scalars, witness-like mixes, identities.

use fastzk_curve::{batch_normalize, bls12_381, bn254, Affine, Jacobian};
use fastzk_field::{Field, PrimeField};
use fastzk_msm::{
    msm, msm_batch, msm_with, Engine, MsmConfig, MsmCurve, MsmError, MsmStream, PrecomputedBases,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn points<C: MsmCurve>(n: usize, rng: &mut ChaCha8Rng) -> Vec<Affine<C>> {
    let start = Jacobian::<C>::random(rng);
    let step = Affine::<C>::random(rng);
    let mut acc = start;
    let mut jac = Vec::with_capacity(n);
    for _ in 0..n {
        jac.push(acc);
        acc = acc.add_affine(&step);
    }
    batch_normalize(&jac)
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Random,
    Clustered,
    Zero,
    One,
    DuplicatePoints,
    EqualScalars,
    Witness,
    WithIdentities,
    MinusOne,
}

const KINDS: [Kind; 9] = [
    Kind::Random,
    Kind::Clustered,
    Kind::Zero,
    Kind::One,
    Kind::DuplicatePoints,
    Kind::EqualScalars,
    Kind::Witness,
    Kind::WithIdentities,
    Kind::MinusOne,
];

fn input<C: MsmCurve>(
    kind: Kind,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> (Vec<Affine<C>>, Vec<C::Scalar>) {
    let mut pts = points::<C>(n, rng);
    let random = |rng: &mut ChaCha8Rng| <C::Scalar as Field>::random(rng);
    let ks: Vec<C::Scalar> = match kind {
        Kind::Random | Kind::WithIdentities => (0..n).map(|_| random(rng)).collect(),
        Kind::Clustered => {
            let vals: Vec<C::Scalar> = (0..32).map(|_| random(rng)).collect();
            (0..n).map(|_| vals[rng.gen_range(0..32)]).collect()
        }
        Kind::Zero => vec![C::Scalar::ZERO; n],
        Kind::One => vec![C::Scalar::ONE; n],
        Kind::DuplicatePoints => {
            let p = pts[0];
            for (i, q) in pts.iter_mut().enumerate() {
                *q = if i % 3 == 0 { -p } else { p };
            }
            (0..n)
                .map(|i| {
                    if i % 2 == 0 {
                        random(rng)
                    } else {
                        C::Scalar::from_u64(7)
                    }
                })
                .collect()
        }
        Kind::EqualScalars => vec![random(rng); n],
        Kind::Witness => (0..n)
            .map(|_| match rng.gen_range(0..6) {
                0 | 1 => C::Scalar::ZERO,
                2 => C::Scalar::ONE,
                3 => C::Scalar::from_u64(rng.gen_range(0..1000)),
                4 => C::Scalar::from_u64(rng.gen()),
                _ => random(rng),
            })
            .collect(),
        Kind::MinusOne => vec![-C::Scalar::ONE; n],
    };
    if let Kind::WithIdentities = kind {
        for q in pts.iter_mut().step_by(5) {
            *q = Affine::identity();
        }
    }
    (pts, ks)
}

fn reference<C: MsmCurve>(pts: &[Affine<C>], ks: &[C::Scalar]) -> Jacobian<C> {
    msm_with(pts, ks, &MsmConfig::engine(Engine::Naive))
        .expect("equal lengths")
        .result
}

fn configs() -> Vec<MsmConfig> {
    let mut v: Vec<MsmConfig> = Engine::ALL
        .iter()
        .filter(|e| **e != Engine::Naive)
        .map(|e| MsmConfig::engine(*e))
        .collect();
    for e in [Engine::Serial, Engine::Cuzk, Engine::ParallelHybrid] {
        v.push(MsmConfig {
            window: Some(3),
            ..MsmConfig::engine(e)
        });
    }
    for (glv, window, partition, group) in [
        (Some(true), Some(5), true, true),
        (Some(false), Some(7), false, false),
        (Some(true), Some(2), false, false),
        (Some(true), Some(12), false, true),
        (Some(false), None, true, false),
    ] {
        v.push(MsmConfig {
            glv,
            window,
            partition,
            group_equal: group,
            ..MsmConfig::engine(Engine::Fast)
        });
    }
    v.push(MsmConfig {
        dedup_points: true,
        ..MsmConfig::default()
    });
    v.push(MsmConfig {
        threads: Some(3),
        ..MsmConfig::default()
    });
    // The fast configurations again with the scalar flush (the defaults use the IFMA
    // flush where the CPU has it).
    let scalar: Vec<MsmConfig> = v
        .iter()
        .filter(|c| matches!(c.engine, Engine::Fast | Engine::Auto))
        .map(|c| MsmConfig {
            simd: false,
            ..c.clone()
        })
        .collect();
    v.extend(scalar);
    v
}

fn check_group<C: MsmCurve>(n: usize, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for kind in KINDS {
        let (pts, ks) = input::<C>(kind, n, &mut rng);
        let want = reference(&pts, &ks);
        for cfg in configs() {
            let got = msm_with(&pts, &ks, &cfg).expect("valid config");
            assert_eq!(
                got.result,
                want,
                "{} {kind:?} engine {:?} window {:?} glv {:?} simd {}",
                C::NAME,
                cfg.engine,
                cfg.window,
                cfg.glv,
                cfg.simd
            );
        }
        // Streaming in uneven chunks.
        let mut st = MsmStream::<C>::start(Some(4), n).expect("window ok");
        for (p, k) in pts.chunks(37).zip(ks.chunks(37)) {
            st.update(p, k).expect("equal chunk lengths");
        }
        assert!(st.memory_bytes() > 0);
        assert_eq!(st.finish(), want, "{} {kind:?} stream", C::NAME);
        // Precomputed fixed bases.
        let pre = PrecomputedBases::new(&pts, 6).expect("window ok");
        assert!(pre.memory_bytes() >= n * std::mem::size_of::<Affine<C>>());
        assert_eq!(
            pre.msm(&ks).expect("len"),
            want,
            "{} {kind:?} precomputed",
            C::NAME
        );
    }
    // Batch form over the same bases.
    let (pts, k1) = input::<C>(Kind::Random, n, &mut rng);
    let (_, k2) = input::<C>(Kind::Witness, n, &mut rng);
    let got = msm_batch(&pts, &[&k1, &k2]).expect("lengths");
    assert_eq!(got[0], reference(&pts, &k1));
    assert_eq!(got[1], reference(&pts, &k2));
}

#[test]
fn bn254_g1_all_engines() {
    check_group::<bn254::G1Config>(160, 1);
}

#[test]
fn bn254_g2_all_engines() {
    check_group::<bn254::G2Config>(140, 2);
}

#[test]
fn bls12_381_g1_all_engines() {
    check_group::<bls12_381::G1Config>(150, 3);
}

#[test]
fn bls12_381_g2_all_engines() {
    check_group::<bls12_381::G2Config>(130, 4);
}

#[test]
fn larger_clustered_and_random_agree() {
    // Big enough that the fast engine uses wide windows, several batch flushes and the
    // grouping path; checked against the serial Pippenger (itself checked above).
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for kind in [
        Kind::Random,
        Kind::Clustered,
        Kind::Witness,
        Kind::EqualScalars,
    ] {
        let (pts, ks) = input::<bn254::G1Config>(kind, 1 << 13, &mut rng);
        let want = msm_with(&pts, &ks, &MsmConfig::engine(Engine::ParallelWindows))
            .expect("lengths")
            .result;
        for window in [None, Some(10), Some(14)] {
            let got = msm_with(
                &pts,
                &ks,
                &MsmConfig {
                    window,
                    ..MsmConfig::default()
                },
            )
            .expect("lengths");
            assert_eq!(got.result, want, "{kind:?} window {window:?}");
            if matches!(kind, Kind::Clustered | Kind::EqualScalars) {
                assert!(got.grouped, "{kind:?} should take the grouping path");
            }
        }
    }
}

#[test]
fn empty_and_mismatch() {
    let pts: Vec<Affine<bn254::G1Config>> = Vec::new();
    let ks: Vec<fastzk_field::bn254::Fr> = Vec::new();
    for e in Engine::ALL {
        let r = msm_with(&pts, &ks, &MsmConfig::engine(e)).expect("empty is fine");
        assert!(r.result.is_zero());
    }
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let pts = points::<bn254::G1Config>(3, &mut rng);
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
    let mut st = MsmStream::<bn254::G1Config>::start(None, 10).expect("planner window");
    assert!(st.update(&pts, &ks).is_err());
    assert!(PrecomputedBases::new(&pts, 1).is_err());
    assert!("nope".parse::<Engine>().is_err());
    for e in Engine::ALL {
        assert_eq!(e.name().parse::<Engine>(), Ok(e));
    }
}

#[test]
fn glv_split_is_exact_and_short() {
    use num_bigint::BigUint;
    fn check<C: MsmCurve>(seed: u64) {
        let glv = C::glv_fast().expect("G1 has GLV");
        let lambda = C::glv().expect("G1 has GLV").lambda.clone();
        let r = <C::Scalar as PrimeField>::modulus();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
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
    check::<bn254::G1Config>(1);
    check::<bls12_381::G1Config>(2);
}
