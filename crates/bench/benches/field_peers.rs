//! The base fields' Montgomery product and square next to the x86-64 assembly of the
//! libraries provers use, in one process, interleaved: halo2curves 0.10 (`asm`) for
//! BN254 `Fq`, blst for BLS12-381 `Fq`, and arkworks 0.5 for both (gnark-crypto's goff
//! code is timed by the same loops in `crates/bench/gnark`, `-field`;
//! `crates/bench/run-field-comparison.sh` runs the two side by side).
//!
//! Three loops per operation: a chain of dependent products (latency, as in an inversion
//! chain or a ladder), a chain of dependent squares, and 1024 independent products
//! (throughput, as in a batch of bucket additions). Figures are ns per operation and
//! cycles at the clock this process measures (a chain of dependent 64-bit additions, one
//! a cycle); each peer's product and square are first checked equal to fastzk's.
//!
//! Run: `cargo bench -p fastzk-bench --bench field_peers` (`FASTZK_BENCH_ROUNDS`, default
//! 11; `--json` prints one line per figure for the script).

use std::hint::black_box;
use std::time::Instant;

use fastzk_field::{bls12_381, bn254, Field};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const CHAIN: usize = 100;
const VEC: usize = 1024;
/// Operations per timed sample (about 10 ms at 30 ns).
const OPS: usize = 300_000;

/// A field element type of one implementation, its operations called statically (passed
/// as closures, the products were not inlined: ~9 ns more a chained product) and in place,
/// as blst's functions are written to be called (a result copied out of a temporary costs
/// a failed store forwarding in a chain).
trait Ops: Copy + 'static {
    fn mul(a: &mut Self, b: &Self);
    fn square(a: &mut Self);
    fn mul_into(out: &mut Self, a: &Self, b: &Self);
}

macro_rules! ops {
    ($t:ty, $square:path) => {
        impl Ops for $t {
            #[inline(always)]
            fn mul(a: &mut Self, b: &Self) {
                *a *= *b;
            }
            #[inline(always)]
            fn square(a: &mut Self) {
                *a = $square(a);
            }
            #[inline(always)]
            fn mul_into(out: &mut Self, a: &Self, b: &Self) {
                *out = *a * *b;
            }
        }
    };
}
ops!(bn254::Fq, Field::square);
ops!(bls12_381::Fq, Field::square);
ops!(halo2curves::bn256::Fq, halo2curves::ff::Field::square);
ops!(ark_bn254::Fq, ark_ff::Field::square);
ops!(ark_bls12_381::Fq, ark_ff::Field::square);

/// ns per product in `CHAIN` dependent products from `x` by `y`, repeated.
fn mul_chain<T: Ops>(x: T, y: T) -> f64 {
    let reps = OPS / CHAIN;
    let t = Instant::now();
    for _ in 0..reps {
        let (mut v, y) = (black_box(x), black_box(y));
        for _ in 0..CHAIN {
            T::mul(&mut v, &y);
        }
        black_box(v);
    }
    t.elapsed().as_nanos() as f64 / (reps * CHAIN) as f64
}

/// ns per square in `CHAIN` dependent squares from `x`, repeated.
fn square_chain<T: Ops>(x: T) -> f64 {
    let reps = OPS / CHAIN;
    let t = Instant::now();
    for _ in 0..reps {
        let mut v = black_box(x);
        for _ in 0..CHAIN {
            T::square(&mut v);
        }
        black_box(v);
    }
    t.elapsed().as_nanos() as f64 / (reps * CHAIN) as f64
}

/// ns per product of `out[i] = xs[i]·ys[i]` over `VEC` pairs, repeated.
fn mul_vector<T: Ops>(xs: &[T], ys: &[T]) -> f64 {
    let reps = OPS / VEC;
    let mut out = xs.to_vec();
    let t = Instant::now();
    for _ in 0..reps {
        for ((o, x), y) in out.iter_mut().zip(xs).zip(ys) {
            T::mul_into(o, x, y);
        }
        black_box(&out);
    }
    t.elapsed().as_nanos() as f64 / (reps * VEC) as f64
}

/// The core clock in GHz: dependent additions retire one a cycle.
#[cfg(target_arch = "x86_64")]
fn ghz() -> f64 {
    let n: u64 = 200_000_000;
    let t = Instant::now();
    // SAFETY: register arithmetic only; the loop ends when `n` (a multiple of 4) reaches 0.
    unsafe {
        core::arch::asm!(
            "2:",
            "add {x}, 1",
            "add {x}, 1",
            "add {x}, 1",
            "add {x}, 1",
            "sub {n}, 4",
            "jnz 2b",
            x = inout(reg) 0u64 => _,
            n = inout(reg) n => _,
            options(nomem, nostack),
        );
    }
    n as f64 / t.elapsed().as_nanos() as f64
}

#[cfg(not(target_arch = "x86_64"))]
fn ghz() -> f64 {
    f64::NAN
}

/// One timed loop: `(field, operation, implementation, sample)`.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    Box<dyn Fn() -> f64>,
);

/// The three loops of one implementation of one field, after checking its product and
/// square on every pair against fastzk's (`prod`, `sq`, in its own type).
fn cases<T: Ops + PartialEq + core::fmt::Debug>(
    field: &'static str,
    who: &'static str,
    [xs, ys, prod, sq]: [Vec<T>; 4],
) -> Vec<Case> {
    for i in 0..xs.len() {
        let (mut p, mut s) = (xs[i], xs[i]);
        T::mul(&mut p, &ys[i]);
        T::square(&mut s);
        assert_eq!(
            (p, s),
            (prod[i], sq[i]),
            "{who}'s {field} product or square"
        );
    }
    let (x, y) = (xs[0], ys[0]);
    vec![
        (field, "mul-chain", who, Box::new(move || mul_chain(x, y))),
        (
            field,
            "square-chain",
            who,
            Box::new(move || square_chain(x)),
        ),
        (
            field,
            "mul-vector",
            who,
            Box::new(move || mul_vector(&xs, &ys)),
        ),
    ]
}

/// Random operands and fastzk's products and squares of them.
fn operands<F: Field>(rng: &mut ChaCha20Rng) -> [Vec<F>; 4] {
    let xs: Vec<F> = (0..VEC).map(|_| F::random(rng)).collect();
    let ys: Vec<F> = (0..VEC).map(|_| F::random(rng)).collect();
    let prod = xs.iter().zip(&ys).map(|(x, y)| *x * *y).collect();
    let sq = xs.iter().map(|x| x.square()).collect();
    [xs, ys, prod, sq]
}

/// The four vectors in a peer's type.
fn convert<F: Copy, T>(v: &[Vec<F>; 4], to: impl Fn(F) -> T) -> [Vec<T>; 4] {
    v.each_ref().map(|v| v.iter().map(|&x| to(x)).collect())
}

/// BN254 `Fq`: fastzk, halo2curves, arkworks.
fn bn254_cases(rng: &mut ChaCha20Rng) -> Vec<Case> {
    let v = operands::<bn254::Fq>(rng);
    let f = "bn254-fq";
    let mut all = cases(f, "fastzk", v.clone());
    all.extend(cases(
        f,
        "halo2curves",
        convert(&v, |x| {
            halo2curves::bn256::Fq::from_raw(x.to_canonical_limbs())
        }),
    ));
    all.extend(cases(f, "arkworks", convert(&v, ark_bn254::Fq::from)));
    all
}

/// BLS12-381 `Fq`: fastzk, blst, arkworks.
fn bls12_381_cases(rng: &mut ChaCha20Rng) -> Vec<Case> {
    let v = operands::<bls12_381::Fq>(rng);
    let f = "bls12-381-fq";
    let mut all = cases(f, "fastzk", v.clone());
    #[cfg(target_arch = "x86_64")]
    all.extend(cases(f, "blst", convert(&v, blst_peer::to_blst)));
    all.extend(cases(f, "arkworks", convert(&v, ark_bls12_381::Fq::from)));
    all
}

#[cfg(target_arch = "x86_64")]
mod blst_peer {
    use blst::{blst_fp, blst_fp_from_uint64, blst_fp_mul, blst_fp_sqr};
    use fastzk_field::bls12_381::Fq;

    pub(super) fn to_blst(x: Fq) -> Blst {
        let mut r = blst_fp::default();
        // SAFETY: six canonical limbs in, one element out.
        unsafe { blst_fp_from_uint64(&mut r, x.to_canonical_limbs().as_ptr()) };
        Blst(r)
    }

    /// blst's element (its products are fully reduced, so equal values have equal limbs).
    #[derive(Clone, Copy, PartialEq, Debug)]
    pub(super) struct Blst(blst_fp);

    impl super::Ops for Blst {
        #[inline(always)]
        fn mul(a: &mut Self, b: &Self) {
            // SAFETY: valid elements in; blst allows the result to alias an input.
            unsafe { blst_fp_mul(&mut a.0, &a.0, &b.0) };
        }
        #[inline(always)]
        fn square(a: &mut Self) {
            // SAFETY: as in `mul`.
            unsafe { blst_fp_sqr(&mut a.0, &a.0) };
        }
        #[inline(always)]
        fn mul_into(out: &mut Self, a: &Self, b: &Self) {
            // SAFETY: valid elements in, one out.
            unsafe { blst_fp_mul(&mut out.0, &a.0, &b.0) };
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let json = std::env::args().any(|a| a == "--json");
    let rounds: usize = std::env::var("FASTZK_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(11)
        .max(1);
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let mut all = bn254_cases(&mut rng);
    all.extend(bls12_381_cases(&mut rng));
    if !json {
        println!(
            "checked: every peer's product and square equal fastzk's on {VEC} pairs per field"
        );
    }
    let mut samples = vec![Vec::new(); all.len()];
    let mut clock = Vec::new();
    for _ in 0..rounds {
        clock.push(ghz());
        for (case, s) in all.iter().zip(samples.iter_mut()) {
            s.push((case.3)());
        }
    }
    let ghz = median(&mut clock);
    if !json {
        println!(
            "ns per operation (cycles at {ghz:.2} GHz), medians of {rounds} interleaved rounds"
        );
    }
    for ((field, op, who, _), s) in all.iter().zip(samples.iter_mut()) {
        let ns = median(s);
        if json {
            println!(
                r#"{{"impl":"{who}","field":"{field}","op":"{op}","ns":{ns:.3},"ghz":{ghz:.3}}}"#
            );
        } else {
            println!(
                "  {field:<13} {op:<13} {who:<12} {ns:7.2} ns  {:6.1} cycles",
                ns * ghz
            );
        }
    }
}
