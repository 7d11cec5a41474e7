//! The single-source layer's CPU loop on lanes next to the same loop index by index:
//! kernels of the shapes the provers run (a fold, a sumcheck round's message, a base
//! table bound to an extension challenge), over Goldilocks and its cubic extension, each
//! on every lane backend this CPU has, interleaved round by round with the plain loop.
//! Run: `cargo bench -p fastzk-bench --bench lanes` (`FASTZK_BENCH_LOG_SIZE`, default 20).

use std::hint::black_box;

use fastzk_bench::paired::{interleave, seconds, Stats};
use fastzk_field::{Field, Goldilocks, GoldilocksExt3};
use fastzk_runtime::lanes::LaneChoice;
use fastzk_runtime::{kernel, Arg, Context, FieldVec, KernelField, Sum};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const ROUNDS: usize = 21;

/// A multilinear table's first variable bound to `r`.
#[kernel]
fn fold<F: KernelField>(i: usize, v: &[F], r: F) -> F {
    let lo = v[2 * i];
    lo + r * (v[2 * i + 1] - lo)
}

/// A round's message of `Σ a·b − c` at 0, 2 and −1 (Spartan's outer rounds' shape).
#[kernel]
fn message<F: KernelField>(i: usize, a: &[F], b: &[F], c: &[F]) -> [F; 3] {
    let a0 = a[2 * i];
    let a1 = a[2 * i + 1];
    let b0 = b[2 * i];
    let b1 = b[2 * i + 1];
    let c0 = c[2 * i];
    let c1 = c[2 * i + 1];
    let da = a1 - a0;
    let db = b1 - b0;
    let dc = c1 - c0;
    [
        a0 * b0 - c0,
        (a1 + da) * (b1 + db) - (c1 + dc),
        (a0 - da) * (b0 - db) - (c0 - dc),
    ]
}

/// A base table's pair bound to an extension challenge, times an extension table (the
/// first rounds over a base-field witness).
#[kernel]
fn bind_base<F: KernelField>(i: usize, v: &[F::Base], r: F, w: &[F]) -> F {
    let lo = v[2 * i];
    let d: F::Base = v[2 * i + 1] - lo;
    (F::lift(lo) + r.mul_by_base(d)) * w[i]
}

/// Five tables' pairs bound to `r` and the next message of `a·b·c + d·e` from them: the
/// shape of Spark's evaluation rounds (thirteen outputs), on local arrays.
#[kernel]
fn bind_five<F: KernelField>(i: usize, lo: &[F], hi: &[F], q: usize, r: F) -> [F; 13] {
    let mut x = [F::ZERO; 10];
    for t in 0..5 {
        for s in 0..2 {
            let k = t * 2 * q + s * q + i;
            x[2 * t + s] = lo[k] + r * (hi[k] - lo[k]);
        }
    }
    let mut d = [F::ZERO; 5];
    for t in 0..5 {
        d[t] = x[2 * t + 1] - x[2 * t];
    }
    let m0 = x[0] * x[2] * x[4] + x[6] * x[8];
    let a2 = x[1] + d[0];
    let b2 = x[3] + d[1];
    let c2 = x[5] + d[2];
    let d2 = x[7] + d[3];
    let e2 = x[9] + d[4];
    let m2 = a2 * b2 * c2 + d2 * e2;
    let m3 = (a2 + d[0]) * (b2 + d[1]) * (c2 + d[2]) + (d2 + d[3]) * (e2 + d[4]);
    [
        x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], m0, m2, m3,
    ]
}

fn random<F: Field>(g: &mut ChaCha20Rng, n: usize) -> Vec<F> {
    (0..n).map(|_| F::random(&mut *g)).collect()
}

/// Times one call of `run` on the plain loop and on `choice`'s lanes, interleaved, each
/// context with its inputs made once by `setup`.
fn paired<S, T>(
    choice: LaneChoice,
    setup: impl Fn(&Context) -> S,
    run: impl Fn(&Context, &S) -> T,
) -> Stats {
    let plain = Context::cpu().with_lanes(LaneChoice::Off).unwrap();
    let lanes = Context::cpu().with_lanes(choice).unwrap();
    let (sp, sl) = (setup(&plain), setup(&lanes));
    let ms = |ctx: &Context, s: &S| seconds(|| drop(black_box(run(ctx, s)))) * 1e3;
    interleave(ROUNDS, || ms(&lanes, &sl), || ms(&plain, &sp))
}

fn report(name: &str, choice: LaneChoice, s: Stats) {
    println!(
        "{name:<28} {choice:<9?} lanes {:>8.2} ms   plain {:>8.2} ms   plain/lanes {:>5.2}x",
        s.ours, s.theirs, s.ratio
    );
}

fn shapes<F: KernelField>(field: &str, choice: LaneChoice, n: usize) {
    if choice != LaneChoice::Portable && !F::LANES_PAY {
        println!("{field}: its lanes are not vectors; the loop runs it plainly on {choice:?}");
        return;
    }
    let mut g = ChaCha20Rng::seed_from_u64(1);
    let r = F::random(&mut g);
    let tables: [Vec<F>; 3] = std::array::from_fn(|_| random(&mut g, 2 * n));
    let base: Vec<F::Base> = random(&mut g, 2 * n);
    let vecs = |ctx: &Context| -> [FieldVec<F>; 3] { tables.clone().map(|t| ctx.vec(t)) };
    let s = paired(choice, vecs, |ctx, [a, ..]| {
        ctx.map(Fold, n, &[Arg::Vec(a), Arg::Field(r)]).unwrap()
    });
    report(&format!("{field} fold"), choice, s);
    let s = paired(choice, vecs, |ctx, [a, b, c]| {
        let args = [Arg::Vec(a), Arg::Vec(b), Arg::Vec(c)];
        ctx.map_reduce(Message, Sum, n, &args).unwrap()
    });
    report(&format!("{field} round message"), choice, s);
    let s = paired(
        choice,
        |ctx| (ctx.vec(base.clone()), ctx.vec(tables[0].clone())),
        |ctx, (v, w)| {
            let args = [Arg::BaseVec(v), Arg::Field(r), Arg::Vec(w)];
            ctx.map(BindBase, n, &args).unwrap()
        },
    );
    report(&format!("{field} base table bound"), choice, s);
    let q = n / 16;
    let s = paired(choice, vecs, |ctx, [lo, hi, _]| {
        let args = [Arg::Vec(lo), Arg::Vec(hi), Arg::Int(q), Arg::Field(r)];
        ctx.task()
            .unwrap()
            .run(BindFive, Sum, q, 10, &args)
            .unwrap()
    });
    report(&format!("{field} five tables, 13 outputs"), choice, s);
}

fn main() {
    let log: u32 = std::env::var("FASTZK_BENCH_LOG_SIZE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let n = 1usize << log;
    println!(
        "2^{log} indices, {ROUNDS} rounds, medians; rayon threads {}",
        rayon::current_num_threads()
    );
    for choice in [LaneChoice::Avx512, LaneChoice::Avx2, LaneChoice::Portable] {
        if !choice.is_supported() {
            println!("{choice:?}: not on this CPU");
            continue;
        }
        shapes::<Goldilocks>("goldilocks", choice, n);
        shapes::<GoldilocksExt3>("goldilocks_ext3", choice, n);
    }
}
