//! Paired, interleaved timing of fastzk against arkworks for the headline field and point
//! operations.
//!
//! Shared machines drift by tens of percent between seconds, which swamps criterion runs
//! taken one after the other. Here each round times both implementations back to back
//! (alternating which goes first) and the report is the median of the per-round ratios.
//! Run: `cargo bench -p fastzk-bench --bench paired`.

use std::hint::black_box;
use std::time::Instant;

use ark_ec::CurveGroup;
use fastzk_curve::{self as curve, Affine, CurveConfig, Jacobian};
use fastzk_field::{bls12_381, bn254, Field};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const ROUNDS: usize = 101;
const VEC: usize = 1024;
const BIG_VEC: usize = 1 << 16;
const CHAIN: usize = 1000;

fn time(mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v[v.len() / 2]
}

/// Times `ours` and `theirs` alternately; returns (median ns/op ours, theirs, median ratio).
fn paired(ops: usize, mut ours: impl FnMut(), mut theirs: impl FnMut()) -> (f64, f64, f64) {
    let (mut a, mut b, mut r) = (vec![], vec![], vec![]);
    for round in 0..ROUNDS {
        let (ta, tb) = if round % 2 == 0 {
            let ta = time(&mut ours);
            (ta, time(&mut theirs))
        } else {
            let tb = time(&mut theirs);
            (time(&mut ours), tb)
        };
        a.push(ta * 1e9 / ops as f64);
        b.push(tb * 1e9 / ops as f64);
        r.push(tb / ta);
    }
    (median(a), median(b), median(r))
}

fn report(name: &str, (ours, theirs, ratio): (f64, f64, f64)) {
    println!("{name:<36} fastzk {ours:>8.2} ns   arkworks {theirs:>8.2} ns   arkworks/fastzk {ratio:>5.2}x");
}

macro_rules! field_pair {
    ($name:literal, $ours:ty, $ark:ty) => {{
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let xs: Vec<$ours> = (0..VEC).map(|_| <$ours>::random(&mut rng)).collect();
        let ys: Vec<$ours> = (0..VEC).map(|_| <$ours>::random(&mut rng)).collect();
        let axs: Vec<$ark> = xs.iter().map(|&x| x.into()).collect();
        let ays: Vec<$ark> = ys.iter().map(|&x| x.into()).collect();
        let mut out = vec![<$ours>::ZERO; VEC];
        let mut aout = vec![<$ark>::from(0u64); VEC];
        let stats = paired(
            VEC,
            || {
                for ((o, x), y) in out.iter_mut().zip(&xs).zip(&ys) {
                    *o = *x * *y;
                }
                black_box(&out);
            },
            || {
                for ((o, x), y) in aout.iter_mut().zip(&axs).zip(&ays) {
                    *o = *x * *y;
                }
                black_box(&aout);
            },
        );
        report(concat!($name, " mul (throughput)"), stats);
        let (x0, y0, ax0, ay0) = (xs[0], ys[0], axs[0], ays[0]);
        let stats = paired(
            CHAIN,
            || {
                let mut x = black_box(x0);
                for _ in 0..CHAIN {
                    x *= y0;
                }
                black_box(x);
            },
            || {
                let mut x = black_box(ax0);
                for _ in 0..CHAIN {
                    x *= ay0;
                }
                black_box(x);
            },
        );
        report(concat!($name, " mul (latency)"), stats);
        let stats = paired(
            CHAIN,
            || {
                let mut x = black_box(x0);
                for _ in 0..CHAIN {
                    x = Field::square(&x);
                }
                black_box(x);
            },
            || {
                let mut x = black_box(ax0);
                for _ in 0..CHAIN {
                    x = ark_ff::Field::square(&x);
                }
                black_box(x);
            },
        );
        report(concat!($name, " square (latency)"), stats);
        // Additions over 64K random pairs: more outcomes than a branch predictor can
        // memorise, as in a real kernel that streams fresh data.
        let big_x: Vec<$ours> = (0..BIG_VEC).map(|_| <$ours>::random(&mut rng)).collect();
        let big_y: Vec<$ours> = (0..BIG_VEC).map(|_| <$ours>::random(&mut rng)).collect();
        let big_ax: Vec<$ark> = big_x.iter().map(|&x| x.into()).collect();
        let big_ay: Vec<$ark> = big_y.iter().map(|&x| x.into()).collect();
        let mut big_out = vec![<$ours>::ZERO; BIG_VEC];
        let mut big_aout = vec![<$ark>::from(0u64); BIG_VEC];
        let stats = paired(
            BIG_VEC,
            || {
                for ((o, x), y) in big_out.iter_mut().zip(&big_x).zip(&big_y) {
                    *o = *x + *y;
                }
                black_box(&big_out);
            },
            || {
                for ((o, x), y) in big_aout.iter_mut().zip(&big_ax).zip(&big_ay) {
                    *o = *x + *y;
                }
                black_box(&big_aout);
            },
        );
        report(concat!($name, " add (throughput)"), stats);
        let stats = paired(
            BIG_VEC,
            || {
                for ((o, x), y) in big_out.iter_mut().zip(&big_x).zip(&big_y) {
                    *o = *x - *y;
                }
                black_box(&big_out);
            },
            || {
                for ((o, x), y) in big_aout.iter_mut().zip(&big_ax).zip(&big_ay) {
                    *o = *x - *y;
                }
                black_box(&big_aout);
            },
        );
        report(concat!($name, " sub (throughput)"), stats);
        let stats = paired(
            16,
            || {
                for x in &xs[..16] {
                    black_box(Field::inverse(x));
                }
            },
            || {
                for x in &axs[..16] {
                    black_box(ark_ff::Field::inverse(x));
                }
            },
        );
        report(concat!($name, " inverse"), stats);
    }};
}

/// Point operations in each group: chains of dependent operations, and scalar multiplication.
fn group_pair<C, A>(name: &str)
where
    C: CurveConfig,
    A: CurveGroup + From<Jacobian<C>>,
    A::Affine: From<Affine<C>>,
    A::ScalarField: From<C::Scalar>,
{
    const POINT_CHAIN: usize = 100;
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let p = Jacobian::<C>::random(&mut rng);
    let q = Jacobian::<C>::random(&mut rng);
    let qa = q.to_affine();
    let (ap, aq): (A, A) = (p.into(), q.into());
    let aqa: A::Affine = qa.into();
    let stats = paired(
        POINT_CHAIN,
        || {
            let mut x = black_box(p);
            for _ in 0..POINT_CHAIN {
                x = x.add_jacobian(&q);
            }
            black_box(x);
        },
        || {
            let mut x = black_box(ap);
            for _ in 0..POINT_CHAIN {
                x += aq;
            }
            black_box(x);
        },
    );
    report(&format!("{name} add (Jacobian)"), stats);
    let stats = paired(
        POINT_CHAIN,
        || {
            let mut x = black_box(p);
            for _ in 0..POINT_CHAIN {
                x = x.add_affine(&qa);
            }
            black_box(x);
        },
        || {
            let mut x = black_box(ap);
            for _ in 0..POINT_CHAIN {
                x += aqa;
            }
            black_box(x);
        },
    );
    report(&format!("{name} add (mixed)"), stats);
    let stats = paired(
        POINT_CHAIN,
        || {
            let mut x = black_box(p);
            for _ in 0..POINT_CHAIN {
                x = x.double();
            }
            black_box(x);
        },
        || {
            let mut x = black_box(ap);
            for _ in 0..POINT_CHAIN {
                x.double_in_place();
            }
            black_box(x);
        },
    );
    report(&format!("{name} double"), stats);
    let k = C::Scalar::random(&mut rng);
    let ak: A::ScalarField = k.into();
    let stats = paired(
        1,
        || {
            black_box(black_box(p).mul(&k));
        },
        || {
            black_box(black_box(ap) * ak);
        },
    );
    report(&format!("{name} scalar mul"), stats);
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else to parse.
    println!(
        "paired field benchmarks, {ROUNDS} interleaved rounds, medians; MULX/ADX in use: {}",
        fastzk_field::cpu::adx()
    );
    field_pair!("bn254 Fr", bn254::Fr, ark_bn254::Fr);
    field_pair!("bn254 Fq", bn254::Fq, ark_bn254::Fq);
    field_pair!("bls12-381 Fr", bls12_381::Fr, ark_bls12_381::Fr);
    field_pair!("bls12-381 Fq", bls12_381::Fq, ark_bls12_381::Fq);
    group_pair::<curve::bn254::G1Config, ark_bn254::G1Projective>("bn254 G1");
    group_pair::<curve::bn254::G2Config, ark_bn254::G2Projective>("bn254 G2");
    group_pair::<curve::bls12_381::G1Config, ark_bls12_381::G1Projective>("bls12-381 G1");
    group_pair::<curve::bls12_381::G2Config, ark_bls12_381::G2Projective>("bls12-381 G2");
}
