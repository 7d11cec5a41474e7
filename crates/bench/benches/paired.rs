//! Paired, interleaved timing of fastzk against arkworks for the headline field and point
//! operations.
//!
//! Shared machines drift by tens of percent between seconds, which swamps criterion runs
//! taken one after the other. Here each round times both implementations back to back
//! (alternating which goes first) and the report is the median of the per-round ratios.
//! Run: `cargo bench -p fastzk-bench --bench paired`.

use std::hint::black_box;

use ark_ec::CurveGroup;
use fastzk_bench::paired::{interleave, seconds, Stats};
use fastzk_curve::{self as curve, Affine, CurveConfig, Jacobian};
use fastzk_field::{bls12_381, bn254, Field};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const ROUNDS: usize = 101;
const VEC: usize = 1024;
const BIG_VEC: usize = 1 << 16;
const CHAIN: usize = 1000;

/// Times `ours` and `theirs` alternately; ns per operation (`ops` per call).
fn paired(ops: usize, mut ours: impl FnMut(), mut theirs: impl FnMut()) -> Stats {
    let per_op = |t: f64| t * 1e9 / ops as f64;
    interleave(
        ROUNDS,
        || per_op(seconds(&mut ours)),
        || per_op(seconds(&mut theirs)),
    )
}

fn report(name: &str, s: Stats) {
    println!(
        "{name:<36} fastzk {:>8.2} ns   arkworks {:>8.2} ns   arkworks/fastzk {:>5.2}x",
        s.ours, s.theirs, s.ratio
    );
}

/// `out[i] = op(xs[i], ys[i])` over whole vectors, ours next to arkworks.
fn elementwise<T: Copy, A: Copy>(
    (xs, ys): (&[T], &[T]),
    (axs, ays): (&[A], &[A]),
    ours: impl Fn(T, T) -> T,
    theirs: impl Fn(A, A) -> A,
) -> Stats {
    let mut out = xs.to_vec();
    let mut aout = axs.to_vec();
    paired(
        xs.len(),
        || {
            for ((o, x), y) in out.iter_mut().zip(xs).zip(ys) {
                *o = ours(*x, *y);
            }
            black_box(&out);
        },
        || {
            for ((o, x), y) in aout.iter_mut().zip(axs).zip(ays) {
                *o = theirs(*x, *y);
            }
            black_box(&aout);
        },
    )
}
/// `steps` dependent applications of `ours` from `x`, next to `theirs` from `ax`.
fn chain<T: Copy, A: Copy>(
    steps: usize,
    (x, ax): (T, A),
    ours: impl Fn(T) -> T,
    theirs: impl Fn(A) -> A,
) -> Stats {
    paired(
        steps,
        || {
            let mut v = black_box(x);
            for _ in 0..steps {
                v = ours(v);
            }
            black_box(v);
        },
        || {
            let mut v = black_box(ax);
            for _ in 0..steps {
                v = theirs(v);
            }
            black_box(v);
        },
    )
}

/// `n` random elements of `F` and the same values as arkworks elements.
fn random_pair<F: Field, A: From<F>>(rng: &mut ChaCha20Rng, n: usize) -> (Vec<F>, Vec<A>) {
    let xs: Vec<F> = (0..n).map(|_| F::random(&mut *rng)).collect();
    let axs = xs.iter().map(|&x| A::from(x)).collect();
    (xs, axs)
}

/// Multiplication (throughput and latency), squaring, addition, subtraction, inversion.
fn field_pair<F: Field, A: ark_ff::Field + From<F>>(name: &str) {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let (xs, axs) = random_pair::<F, A>(&mut rng, VEC);
    let (ys, ays) = random_pair::<F, A>(&mut rng, VEC);
    let stats = elementwise((&xs, &ys), (&axs, &ays), |x, y| x * y, |x, y| x * y);
    report(&format!("{name} mul (throughput)"), stats);
    let (y0, ay0) = (ys[0], ays[0]);
    let stats = chain(CHAIN, (xs[0], axs[0]), |x| x * y0, |x| x * ay0);
    report(&format!("{name} mul (latency)"), stats);
    let stats = chain(CHAIN, (xs[0], axs[0]), |x| x.square(), |x| x.square());
    report(&format!("{name} square (latency)"), stats);
    // Additions over 64K random pairs: more outcomes than a branch predictor can
    // memorise, as in a real kernel that streams fresh data.
    let (big_x, big_ax) = random_pair::<F, A>(&mut rng, BIG_VEC);
    let (big_y, big_ay) = random_pair::<F, A>(&mut rng, BIG_VEC);
    let big = ((&big_x[..], &big_y[..]), (&big_ax[..], &big_ay[..]));
    let stats = elementwise(big.0, big.1, |x, y| x + y, |x, y| x + y);
    report(&format!("{name} add (throughput)"), stats);
    let stats = elementwise(big.0, big.1, |x, y| x - y, |x, y| x - y);
    report(&format!("{name} sub (throughput)"), stats);
    let stats = paired(
        16,
        || {
            for x in &xs[..16] {
                black_box(x.inverse());
            }
        },
        || {
            for x in &axs[..16] {
                black_box(x.inverse());
            }
        },
    );
    report(&format!("{name} inverse"), stats);
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
    let stats = chain(POINT_CHAIN, (p, ap), |x| x.add_jacobian(&q), |x| x + aq);
    report(&format!("{name} add (Jacobian)"), stats);
    let stats = chain(POINT_CHAIN, (p, ap), |x| x.add_affine(&qa), |x| x + aqa);
    report(&format!("{name} add (mixed)"), stats);
    let stats = chain(POINT_CHAIN, (p, ap), |x| x.double(), |x| x.double());
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
    field_pair::<bn254::Fr, ark_bn254::Fr>("bn254 Fr");
    field_pair::<bn254::Fq, ark_bn254::Fq>("bn254 Fq");
    field_pair::<bls12_381::Fr, ark_bls12_381::Fr>("bls12-381 Fr");
    field_pair::<bls12_381::Fq, ark_bls12_381::Fq>("bls12-381 Fq");
    group_pair::<curve::bn254::G1Config, ark_bn254::G1Projective>("bn254 G1");
    group_pair::<curve::bn254::G2Config, ark_bn254::G2Projective>("bn254 G2");
    group_pair::<curve::bls12_381::G1Config, ark_bls12_381::G1Projective>("bls12-381 G1");
    group_pair::<curve::bls12_381::G2Config, ark_bls12_381::G2Projective>("bls12-381 G2");
}
