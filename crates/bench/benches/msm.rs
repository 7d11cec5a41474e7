//! BN254 G1 MSM next to arkworks 0.5 (`VariableBaseMSM::msm`, parallel) and halo2curves
//! 0.10 (`msm_best`, asm), in the same run, on the same random points and scalars.
//!
//! `cargo bench -p fastzk-bench --bench msm` (sizes: `FASTZK_MSM_LOGS="10 12 14 16 18 20"`).

use ark_ec::VariableBaseMSM;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fastzk_curve::{batch_normalize, bn254, Affine, Jacobian};
use fastzk_field::Field;
use fastzk_msm::MsmCurve;
use halo2curves::bn256;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

type G1 = bn254::G1Config;

fn le_bytes(limbs: [u64; 4]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, l) in limbs.iter().enumerate() {
        out[8 * i..8 * i + 8].copy_from_slice(&l.to_le_bytes());
    }
    out
}

fn points(n: usize) -> Vec<Affine<G1>> {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let step = Affine::<G1>::random(&mut rng);
    let mut acc = Jacobian::<G1>::random(&mut rng);
    let mut jac = Vec::with_capacity(n);
    for _ in 0..n {
        jac.push(acc);
        acc = acc.add_affine(&step);
    }
    batch_normalize(&jac)
}

fn msm(c: &mut Criterion) {
    let logs: Vec<u32> = std::env::var("FASTZK_MSM_LOGS")
        .ok()
        .map(|s| {
            s.split_whitespace()
                .filter_map(|t| t.parse().ok())
                .collect()
        })
        .unwrap_or_else(|| vec![10, 12, 14, 16, 18, 20]);
    let max = 1usize << logs.iter().copied().max().unwrap_or(10);
    let pts = points(max);
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let ks: Vec<<G1 as fastzk_curve::CurveConfig>::Scalar> =
        (0..max).map(|_| Field::random(&mut rng)).collect();
    let ark_pts: Vec<ark_bn254::G1Affine> = pts.iter().map(|p| (*p).into()).collect();
    let ark_ks: Vec<ark_bn254::Fr> = ks.iter().map(|k| (*k).into()).collect();
    let h2_pts: Vec<bn256::G1Affine> = pts
        .iter()
        .map(|p| {
            let x = bn256::Fq::from_bytes(&le_bytes(p.x.to_canonical_limbs())).unwrap();
            let y = bn256::Fq::from_bytes(&le_bytes(p.y.to_canonical_limbs())).unwrap();
            bn256::G1Affine { x, y }
        })
        .collect();
    let h2_ks: Vec<bn256::Fr> = ks
        .iter()
        .map(|k| bn256::Fr::from_bytes(&le_bytes(G1::scalar_limbs(k))).unwrap())
        .collect();

    let mut g = c.benchmark_group("msm/bn254-g1");
    g.sample_size(10);
    for &log in &logs {
        let n = 1usize << log;
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("fastzk", log), &n, |b, &n| {
            b.iter(|| fastzk_msm::msm(black_box(&pts[..n]), black_box(&ks[..n])).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("arkworks", log), &n, |b, &n| {
            b.iter(|| {
                ark_bn254::G1Projective::msm(black_box(&ark_pts[..n]), black_box(&ark_ks[..n]))
                    .unwrap()
            })
        });
        g.bench_with_input(BenchmarkId::new("halo2curves", log), &n, |b, &n| {
            b.iter(|| halo2curves::msm::msm_best(black_box(&h2_ks[..n]), black_box(&h2_pts[..n])))
        });
    }
    g.finish();
}

criterion_group!(benches, msm);
criterion_main!(benches);
