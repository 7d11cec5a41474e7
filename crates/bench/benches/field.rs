//! Field arithmetic next to arkworks 0.5, in the same run: a chain of 100 dependent
//! operations per iteration (latency, as in a Montgomery ladder or a bucket sum).

use ark_ff::Field as ArkField;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fastzk_field::{bls12_381, bn254, Field, Goldilocks};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const CHAIN: u64 = 100;
const VEC: usize = 1024;

macro_rules! bench_prime_field {
    ($c:expr, $name:literal, $ours:ty, $ark:ty) => {{
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let (a, b) = (<$ours>::random(&mut rng), <$ours>::random(&mut rng));
        let (aa, ab): ($ark, $ark) = (a.into(), b.into());
        let mut g = $c.benchmark_group(concat!("field/", $name));
        g.throughput(Throughput::Elements(CHAIN));
        g.bench_function(BenchmarkId::new("mul-latency", "fastzk"), |bench| {
            bench.iter(|| {
                let mut x = black_box(a);
                for _ in 0..CHAIN {
                    x *= b;
                }
                x
            })
        });
        g.bench_function(BenchmarkId::new("mul-latency", "arkworks"), |bench| {
            bench.iter(|| {
                let mut x = black_box(aa);
                for _ in 0..CHAIN {
                    x *= ab;
                }
                x
            })
        });
        // Throughput: 1024 independent products, as in vector kernels and bucket sums.
        let xs: Vec<$ours> = (0..VEC).map(|_| <$ours>::random(&mut rng)).collect();
        let ys: Vec<$ours> = (0..VEC).map(|_| <$ours>::random(&mut rng)).collect();
        let axs: Vec<$ark> = xs.iter().map(|&x| x.into()).collect();
        let ays: Vec<$ark> = ys.iter().map(|&x| x.into()).collect();
        let mut out = vec![<$ours>::ZERO; VEC];
        let mut aout = vec![<$ark>::from(0u64); VEC];
        g.throughput(Throughput::Elements(VEC as u64));
        g.bench_function(BenchmarkId::new("mul-throughput", "fastzk"), |bench| {
            bench.iter(|| {
                for ((o, x), y) in out.iter_mut().zip(&xs).zip(&ys) {
                    *o = *x * *y;
                }
                black_box(&out);
            })
        });
        g.bench_function(BenchmarkId::new("mul-throughput", "arkworks"), |bench| {
            bench.iter(|| {
                for ((o, x), y) in aout.iter_mut().zip(&axs).zip(&ays) {
                    *o = *x * *y;
                }
                black_box(&aout);
            })
        });
        g.throughput(Throughput::Elements(CHAIN));
        g.bench_function(BenchmarkId::new("square", "fastzk"), |bench| {
            bench.iter(|| {
                let mut x = black_box(a);
                for _ in 0..CHAIN {
                    x = Field::square(&x);
                }
                x
            })
        });
        g.bench_function(BenchmarkId::new("square", "arkworks"), |bench| {
            bench.iter(|| {
                let mut x = black_box(aa);
                for _ in 0..CHAIN {
                    x = ArkField::square(&x);
                }
                x
            })
        });
        g.bench_function(BenchmarkId::new("add", "fastzk"), |bench| {
            bench.iter(|| {
                let mut x = black_box(a);
                for _ in 0..CHAIN {
                    x += b;
                }
                x
            })
        });
        g.bench_function(BenchmarkId::new("add", "arkworks"), |bench| {
            bench.iter(|| {
                let mut x = black_box(aa);
                for _ in 0..CHAIN {
                    x += ab;
                }
                x
            })
        });
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::new("inverse", "fastzk"), |bench| {
            bench.iter(|| Field::inverse(&black_box(a)))
        });
        g.bench_function(BenchmarkId::new("inverse", "arkworks"), |bench| {
            bench.iter(|| ArkField::inverse(&black_box(aa)))
        });
        g.finish();
    }};
}

fn fields(c: &mut Criterion) {
    bench_prime_field!(c, "bn254-fr", bn254::Fr, ark_bn254::Fr);
    bench_prime_field!(c, "bn254-fq", bn254::Fq, ark_bn254::Fq);
    bench_prime_field!(c, "bls12-381-fr", bls12_381::Fr, ark_bls12_381::Fr);
    bench_prime_field!(c, "bls12-381-fq", bls12_381::Fq, ark_bls12_381::Fq);

    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let (a, b) = (bn254::Fq2::random(&mut rng), bn254::Fq2::random(&mut rng));
    let (aa, ab): (ark_bn254::Fq2, ark_bn254::Fq2) = (a.into(), b.into());
    let mut g = c.benchmark_group("field/bn254-fq2");
    g.throughput(Throughput::Elements(CHAIN));
    g.bench_function(BenchmarkId::new("mul", "fastzk"), |bench| {
        bench.iter(|| {
            let mut x = black_box(a);
            for _ in 0..CHAIN {
                x *= b;
            }
            x
        })
    });
    g.bench_function(BenchmarkId::new("mul", "arkworks"), |bench| {
        bench.iter(|| {
            let mut x = black_box(aa);
            for _ in 0..CHAIN {
                x *= ab;
            }
            x
        })
    });
    g.finish();

    let (a, b) = (Goldilocks::random(&mut rng), Goldilocks::random(&mut rng));
    let mut g = c.benchmark_group("field/goldilocks");
    g.throughput(Throughput::Elements(CHAIN));
    g.bench_function(BenchmarkId::new("mul", "fastzk"), |bench| {
        bench.iter(|| {
            let mut x = black_box(a);
            for _ in 0..CHAIN {
                x *= b;
            }
            x
        })
    });
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
