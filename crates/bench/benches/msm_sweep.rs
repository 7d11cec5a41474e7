//! MSM size sweep: fastzk next to arkworks 0.5 (`VariableBaseMSM::msm`, parallel) and
//! halo2curves 0.10 (`msm_best`, asm) for G1 and G2 of BN254 and BLS12-381, random and
//! clustered (32 distinct values) scalars. The three run interleaved (one timed run of
//! each in turn, the order rotating) on the same points and scalars, so load on this
//! shared machine hits all of them alike; the median of `FASTZK_SWEEP_RUNS` runs is
//! reported. Results are cross-checked against arkworks up to 2^12.
//!
//! ```sh
//! cargo bench -p fastzk-bench --bench msm_sweep                      # default cases
//! FASTZK_SWEEP="bn254/g1:10-22 bn254/g2:10-20" FASTZK_SWEEP_RUNS=3 \
//!     cargo bench -p fastzk-bench --bench msm_sweep > sweep.csv
//! python3 crates/bench/plot_msm_sweep.py sweep.csv docs/msm-sweep.png
//! ```
//!
//! Output: CSV on stdout (`group,scalars,log_n,impl,median_ms,min_ms`).

use std::time::Instant;

use ark_ec::{CurveGroup, VariableBaseMSM};
use fastzk_curve::{batch_normalize, bls12_381, bn254, Affine, CurveConfig, Jacobian};
use fastzk_field::Field;
use fastzk_msm::MsmCurve;
use halo2curves::group::Curve as _;
use halo2curves::CurveAffine;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn points<C: CurveConfig>(n: usize) -> Vec<Affine<C>> {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let step = Affine::<C>::random(&mut rng);
    let mut acc = Jacobian::<C>::random(&mut rng);
    let mut jac = Vec::with_capacity(n);
    for _ in 0..n {
        jac.push(acc);
        acc = acc.add_affine(&step);
    }
    batch_normalize(&jac)
}

fn scalars<C: CurveConfig>(n: usize, clustered: bool) -> Vec<C::Scalar> {
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let values: Vec<C::Scalar> = (0..32).map(|_| Field::random(&mut rng)).collect();
    (0..n)
        .map(|_| {
            if clustered {
                values[rng.gen_range(0..32)]
            } else {
                Field::random(&mut rng)
            }
        })
        .collect()
}

fn time_ms(f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

/// Runs the implementations interleaved and prints one CSV line each.
fn sweep(
    group: &str,
    scalars: &str,
    log: u32,
    runs: usize,
    impls: &mut [(&str, &mut dyn FnMut())],
) {
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); impls.len()];
    // One untimed warm-up where it is cheap.
    if log <= 16 {
        for (_, f) in impls.iter_mut() {
            f();
        }
    }
    for r in 0..runs {
        for k in 0..impls.len() {
            let i = (k + r) % impls.len();
            times[i].push(time_ms(impls[i].1));
        }
    }
    for ((name, _), t) in impls.iter().zip(times.iter_mut()) {
        t.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{group},{scalars},{log},{name},{:.3},{:.3}",
            t[t.len() / 2],
            t[0]
        );
    }
}

macro_rules! group_sweep {
    ($fn:ident, $cfg:ty, $ark_aff:ty, $ark_proj:ty, $ark_fr:ty, $h2_aff:ty, $h2_fr:ty, $h2_base:expr) => {
        fn $fn(name: &str, logs: &[u32], runs: usize) {
            type C = $cfg;
            let max = 1usize << logs.iter().copied().max().unwrap_or(10);
            let pts = points::<C>(max);
            let ark_pts: Vec<$ark_aff> = pts.iter().map(|p| (*p).into()).collect();
            let h2_pts: Vec<$h2_aff> = pts
                .iter()
                .map(|p| {
                    let (x, y) = ($h2_base(&p.x), $h2_base(&p.y));
                    <$h2_aff>::from_xy(x, y).expect("converted point is on the curve")
                })
                .collect();
            for kind in ["random", "clustered"] {
                let ks = scalars::<C>(max, kind == "clustered");
                let ark_ks: Vec<$ark_fr> = ks.iter().map(|k| (*k).into()).collect();
                let h2_ks: Vec<$h2_fr> = ks
                    .iter()
                    .map(|k| <$h2_fr>::from_raw(C::scalar_limbs(k)))
                    .collect();
                for &log in logs {
                    let n = 1usize << log;
                    if log <= 12 {
                        let ours = fastzk_msm::msm(&pts[..n], &ks[..n]).expect("lengths");
                        let theirs =
                            <$ark_proj>::msm(&ark_pts[..n], &ark_ks[..n]).expect("lengths");
                        let ours: $ark_aff = ours.to_affine().into();
                        assert_eq!(ours, theirs.into_affine(), "{name} {kind} 2^{log}");
                    }
                    let mut fz = || {
                        consume((fastzk_msm::msm(&pts[..n], &ks[..n]).expect("lengths"),));
                    };
                    let mut ark = || {
                        consume((<$ark_proj>::msm(&ark_pts[..n], &ark_ks[..n]).expect("lengths"),));
                    };
                    let mut h2 = || {
                        consume(halo2curves::msm::msm_best(&h2_ks[..n], &h2_pts[..n]).to_affine());
                    };
                    sweep(
                        name,
                        kind,
                        log,
                        runs,
                        &mut [
                            ("fastzk", &mut fz),
                            ("arkworks", &mut ark),
                            ("halo2curves", &mut h2),
                        ],
                    );
                }
            }
        }
    };
}

/// Keeps a result from being optimised away, whatever its type.
fn consume<T>(x: T) {
    std::hint::black_box(x);
}

fn bn_fq(x: &fastzk_field::bn254::Fq) -> halo2curves::bn256::Fq {
    halo2curves::bn256::Fq::from_raw(x.to_canonical_limbs())
}
fn bn_fq2(x: &fastzk_field::bn254::Fq2) -> halo2curves::bn256::Fq2 {
    halo2curves::bn256::Fq2::new(bn_fq(&x.c0), bn_fq(&x.c1))
}
fn bls_fq(x: &fastzk_field::bls12_381::Fq) -> halo2curves::bls12381::Fq {
    halo2curves::bls12381::Fq::from_raw(x.to_canonical_limbs())
}
fn bls_fq2(x: &fastzk_field::bls12_381::Fq2) -> halo2curves::bls12381::Fq2 {
    halo2curves::bls12381::Fq2::new(bls_fq(&x.c0), bls_fq(&x.c1))
}

group_sweep!(
    sweep_bn254_g1,
    bn254::G1Config,
    ark_bn254::G1Affine,
    ark_bn254::G1Projective,
    ark_bn254::Fr,
    halo2curves::bn256::G1Affine,
    halo2curves::bn256::Fr,
    bn_fq
);
group_sweep!(
    sweep_bn254_g2,
    bn254::G2Config,
    ark_bn254::G2Affine,
    ark_bn254::G2Projective,
    ark_bn254::Fr,
    halo2curves::bn256::G2Affine,
    halo2curves::bn256::Fr,
    bn_fq2
);
group_sweep!(
    sweep_bls_g1,
    bls12_381::G1Config,
    ark_bls12_381::G1Affine,
    ark_bls12_381::G1Projective,
    ark_bls12_381::Fr,
    halo2curves::bls12381::G1Affine,
    halo2curves::bls12381::Fr,
    bls_fq
);
group_sweep!(
    sweep_bls_g2,
    bls12_381::G2Config,
    ark_bls12_381::G2Affine,
    ark_bls12_381::G2Projective,
    ark_bls12_381::Fr,
    halo2curves::bls12381::G2Affine,
    halo2curves::bls12381::Fr,
    bls_fq2
);

fn main() {
    // `cargo bench` passes `--bench`; nothing else is accepted.
    let cases = std::env::var("FASTZK_SWEEP").unwrap_or_else(|_| {
        "bn254/g1:10-22 bls12-381/g1:10-22 bn254/g2:10-20 bls12-381/g2:10-20".to_string()
    });
    let runs: usize = std::env::var("FASTZK_SWEEP_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    println!("group,scalars,log_n,impl,median_ms,min_ms");
    for case in cases.split_whitespace() {
        let (group, range) = case.split_once(':').unwrap_or((case, "10-16"));
        let (lo, hi) = range.split_once('-').unwrap_or((range, range));
        let (lo, hi): (u32, u32) = (lo.parse().expect("log size"), hi.parse().expect("log size"));
        let logs: Vec<u32> = (lo..=hi).step_by(2).collect();
        match group {
            "bn254/g1" => sweep_bn254_g1(group, &logs, runs),
            "bn254/g2" => sweep_bn254_g2(group, &logs, runs),
            "bls12-381/g1" => sweep_bls_g1(group, &logs, runs),
            "bls12-381/g2" => sweep_bls_g2(group, &logs, runs),
            other => panic!("unknown group {other}"),
        }
    }
}
