//! Prime-order subgroup checks, per point: fastzk's endomorphism tests next to the
//! reference `[r]P = O` and arkworks' `is_in_correct_subgroup_assuming_on_curve`, in
//! the same run. Proving keys hold millions of points, so this decides how long a first
//! look at a `.zkey` takes; the last group times a whole section, per point and
//! batched.

use ark_ec::short_weierstrass::{Affine as ArkAffine, SWCurveConfig};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use fastzk_curve::validate::is_in_subgroup_reference;
use fastzk_curve::{bls12_381, bn254, Affine, CurveConfig};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn group<C, A>(c: &mut Criterion, name: &str)
where
    C: CurveConfig,
    A: SWCurveConfig,
    ArkAffine<A>: From<Affine<C>>,
{
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let p = Affine::<C>::random(&mut rng);
    assert!(p.is_in_correct_subgroup() && is_in_subgroup_reference(&p));
    let ap: ArkAffine<A> = p.into();
    let mut g = c.benchmark_group(format!("subgroup/{name}"));
    g.bench_function(BenchmarkId::new("check", "fastzk endomorphism"), |b| {
        b.iter(|| black_box(&p).is_in_correct_subgroup())
    });
    g.bench_function(BenchmarkId::new("check", "fastzk [r]P reference"), |b| {
        b.iter(|| is_in_subgroup_reference(black_box(&p)))
    });
    g.bench_function(BenchmarkId::new("check", "arkworks"), |b| {
        b.iter(|| black_box(&ap).is_in_correct_subgroup_assuming_on_curve())
    });
    g.finish();
}

/// A whole key section: every point checked one by one (in parallel) next to the
/// batched test (random combinations, `fastzk_msm::membership`), per 2^15 points.
fn section(c: &mut Criterion) {
    let n = 1 << 15;
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let base: Vec<_> = (0..256)
        .map(|_| Affine::<bn254::G2Config>::random(&mut rng))
        .collect();
    let pts: Vec<_> = (0..n).map(|i| base[(i * 31 + i / 256) % 256]).collect();
    let mut g = c.benchmark_group("subgroup/bn254-g2-section-2^15");
    g.sample_size(10);
    g.bench_function(BenchmarkId::new("check", "fastzk per point"), |b| {
        b.iter(|| fastzk_curve::validate::check_points(black_box(&pts), true))
    });
    g.bench_function(BenchmarkId::new("check", "fastzk batched"), |b| {
        b.iter(|| fastzk_msm::membership::check_points(black_box(&pts)))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    section(c);
    group::<bn254::G2Config, ark_bn254::g2::Config>(c, "bn254-g2");
    group::<bls12_381::G1Config, ark_bls12_381::g1::Config>(c, "bls12-381-g1");
    group::<bls12_381::G2Config, ark_bls12_381::g2::Config>(c, "bls12-381-g2");
}

criterion_group!(subgroup, benches);
criterion_main!(subgroup);
