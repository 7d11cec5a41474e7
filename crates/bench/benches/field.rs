//! Field arithmetic next to arkworks 0.5, in the same run: a chain of 100 dependent
//! operations per iteration (latency, as in a Montgomery ladder or a bucket sum).

use criterion::measurement::WallTime;
use criterion::{
    black_box, criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use fastzk_field::{bls12_381, bn254, Field, Goldilocks};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const CHAIN: u64 = 100;
const VEC: usize = 1024;

type Group<'a> = BenchmarkGroup<'a, WallTime>;

/// `CHAIN` dependent applications of `step` from `x`.
fn chain<T: Copy>(g: &mut Group<'_>, op: &str, who: &str, x: T, step: impl Fn(T) -> T) {
    g.throughput(Throughput::Elements(CHAIN));
    g.bench_function(BenchmarkId::new(op, who), |bench| {
        bench.iter(|| {
            let mut v = black_box(x);
            for _ in 0..CHAIN {
                v = step(v);
            }
            v
        })
    });
}

/// `out[i] = xs[i] · ys[i]` over whole vectors: independent products, as in vector kernels
/// and bucket sums.
fn products<T: Copy + core::ops::Mul<Output = T>>(
    g: &mut Group<'_>,
    who: &str,
    xs: &[T],
    ys: &[T],
) {
    let mut out = xs.to_vec();
    g.throughput(Throughput::Elements(xs.len() as u64));
    g.bench_function(BenchmarkId::new("mul-throughput", who), |bench| {
        bench.iter(|| {
            for ((o, x), y) in out.iter_mut().zip(xs).zip(ys) {
                *o = *x * *y;
            }
            black_box(&out);
        })
    });
}

/// Multiplication (latency and throughput), squaring, addition and inversion, fastzk
/// next to arkworks.
fn prime_field<F: Field, A: ark_ff::Field + From<F>>(c: &mut Criterion, name: &str) {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (a, b) = (F::random(&mut rng), F::random(&mut rng));
    let (aa, ab) = (A::from(a), A::from(b));
    let mut g = c.benchmark_group(format!("field/{name}"));
    chain(&mut g, "mul-latency", "fastzk", a, |x| x * b);
    chain(&mut g, "mul-latency", "arkworks", aa, |x| x * ab);
    let xs: Vec<F> = (0..VEC).map(|_| F::random(&mut rng)).collect();
    let ys: Vec<F> = (0..VEC).map(|_| F::random(&mut rng)).collect();
    let axs: Vec<A> = xs.iter().map(|&x| x.into()).collect();
    let ays: Vec<A> = ys.iter().map(|&x| x.into()).collect();
    products(&mut g, "fastzk", &xs, &ys);
    products(&mut g, "arkworks", &axs, &ays);
    chain(&mut g, "square", "fastzk", a, |x| x.square());
    chain(&mut g, "square", "arkworks", aa, |x| x.square());
    chain(&mut g, "add", "fastzk", a, |x| x + b);
    chain(&mut g, "add", "arkworks", aa, |x| x + ab);
    g.throughput(Throughput::Elements(1));
    g.bench_function(BenchmarkId::new("inverse", "fastzk"), |bench| {
        bench.iter(|| black_box(a).inverse())
    });
    g.bench_function(BenchmarkId::new("inverse", "arkworks"), |bench| {
        bench.iter(|| black_box(aa).inverse())
    });
    g.finish();
}

fn fields(c: &mut Criterion) {
    prime_field::<bn254::Fr, ark_bn254::Fr>(c, "bn254-fr");
    prime_field::<bn254::Fq, ark_bn254::Fq>(c, "bn254-fq");
    prime_field::<bls12_381::Fr, ark_bls12_381::Fr>(c, "bls12-381-fr");
    prime_field::<bls12_381::Fq, ark_bls12_381::Fq>(c, "bls12-381-fq");

    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let (a, b) = (bn254::Fq2::random(&mut rng), bn254::Fq2::random(&mut rng));
    let (aa, ab) = (ark_bn254::Fq2::from(a), ark_bn254::Fq2::from(b));
    let mut g = c.benchmark_group("field/bn254-fq2");
    chain(&mut g, "mul", "fastzk", a, |x| x * b);
    chain(&mut g, "mul", "arkworks", aa, |x| x * ab);
    g.finish();

    let (a, b) = (Goldilocks::random(&mut rng), Goldilocks::random(&mut rng));
    let mut g = c.benchmark_group("field/goldilocks");
    chain(&mut g, "mul", "fastzk", a, |x| x * b);
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = fields
}
criterion_main!(benches);
