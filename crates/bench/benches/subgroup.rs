//! Prime-order subgroup checks, per point: fastzk's endomorphism tests next to the
//! reference `[r]P = O` and arkworks' `is_in_correct_subgroup_assuming_on_curve`, in
//! the same run. Proving keys hold millions of points, so this decides how long a first
//! look at a `.zkey` takes.

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

fn benches(c: &mut Criterion) {
    group::<bn254::G2Config, ark_bn254::g2::Config>(c, "bn254-g2");
    group::<bls12_381::G1Config, ark_bls12_381::g1::Config>(c, "bls12-381-g1");
    group::<bls12_381::G2Config, ark_bls12_381::g2::Config>(c, "bls12-381-g2");
}

criterion_group!(subgroup, benches);
criterion_main!(subgroup);
