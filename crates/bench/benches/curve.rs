//! Point arithmetic next to arkworks 0.5, in the same run: chains of 100 dependent
//! operations (full add, mixed add, double) in each group, plus a scalar multiplication.

use ark_ec::CurveGroup;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fastzk_curve::{bls12_381, bn254, Affine, CurveConfig, Jacobian, Xyzz};
use fastzk_field::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const CHAIN: u64 = 100;

fn group<C, A>(c: &mut Criterion, name: &str)
where
    C: CurveConfig,
    A: CurveGroup + From<Jacobian<C>>,
    A::Affine: From<Affine<C>>,
    A::ScalarField: From<C::Scalar>,
{
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let p = Jacobian::<C>::random(&mut rng);
    let q = Jacobian::<C>::random(&mut rng);
    let q_affine = q.to_affine();
    let (ap, aq): (A, A) = (p.into(), q.into());
    let aq_affine: A::Affine = q_affine.into();
    let px = p.to_xyzz();

    let mut g = c.benchmark_group(format!("curve/{name}"));
    g.throughput(Throughput::Elements(CHAIN));
    g.bench_function(BenchmarkId::new("add-jacobian", "fastzk"), |b| {
        b.iter(|| {
            let mut x = black_box(p);
            for _ in 0..CHAIN {
                x = x.add_jacobian(&q);
            }
            x
        })
    });
    g.bench_function(BenchmarkId::new("add-jacobian", "arkworks"), |b| {
        b.iter(|| {
            let mut x = black_box(ap);
            for _ in 0..CHAIN {
                x += aq;
            }
            x
        })
    });
    g.bench_function(BenchmarkId::new("add-mixed", "fastzk"), |b| {
        b.iter(|| {
            let mut x = black_box(p);
            for _ in 0..CHAIN {
                x = x.add_affine(&q_affine);
            }
            x
        })
    });
    g.bench_function(BenchmarkId::new("add-mixed-xyzz", "fastzk"), |b| {
        b.iter(|| {
            let mut x: Xyzz<C> = black_box(px);
            for _ in 0..CHAIN {
                x = x.add_affine(&q_affine);
            }
            x
        })
    });
    g.bench_function(BenchmarkId::new("add-mixed", "arkworks"), |b| {
        b.iter(|| {
            let mut x = black_box(ap);
            for _ in 0..CHAIN {
                x += aq_affine;
            }
            x
        })
    });
    g.bench_function(BenchmarkId::new("double", "fastzk"), |b| {
        b.iter(|| {
            let mut x = black_box(p);
            for _ in 0..CHAIN {
                x = x.double();
            }
            x
        })
    });
    g.bench_function(BenchmarkId::new("double", "arkworks"), |b| {
        b.iter(|| {
            let mut x = black_box(ap);
            for _ in 0..CHAIN {
                x.double_in_place();
            }
            x
        })
    });
    g.throughput(Throughput::Elements(1));
    let k = C::Scalar::random(&mut rng);
    let ak: A::ScalarField = k.into();
    g.bench_function(BenchmarkId::new("scalar-mul", "fastzk"), |b| {
        b.iter(|| black_box(p).mul(&k))
    });
    g.bench_function(BenchmarkId::new("scalar-mul", "arkworks"), |b| {
        b.iter(|| black_box(ap) * ak)
    });
    g.finish();
}

fn curves(c: &mut Criterion) {
    group::<bn254::G1Config, ark_bn254::G1Projective>(c, "bn254-g1");
    group::<bn254::G2Config, ark_bn254::G2Projective>(c, "bn254-g2");
    group::<bls12_381::G1Config, ark_bls12_381::G1Projective>(c, "bls12-381-g1");
    group::<bls12_381::G2Config, ark_bls12_381::G2Projective>(c, "bls12-381-g2");
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = curves
}
criterion_main!(benches);
