//! NTTs next to arkworks (`ark-poly` `Radix2EvaluationDomain`, BN254 Fr) and Plonky3
//! (`p3-dft` `Radix2DitParallel`, Goldilocks), paired and interleaved like `paired.rs`:
//! each round times fastzk and the peer back to back (alternating who goes first) on fresh
//! copies of the same input, and the report is the median of each side and of the
//! per-round ratios.
//!
//! Run: `cargo bench -p fastzk-bench --bench ntt` (sizes: `NTT_LOGS=12,16,20,24`).
//! Plonky3's packed Goldilocks is compile-time gated: add `RUSTFLAGS="-C target-cpu=native"`
//! to let it use AVX-512 (fastzk picks its vector code at run time either way).

use std::hint::black_box;

use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use fastzk_bench::paired::{interleave, seconds, Stats};
use fastzk_field::{bls12_381, bn254, Field, Goldilocks, NttField};
use fastzk_poly::{Order, Radix2Domain, Transform, TwoAdicTransform};
use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
use p3_field::PrimeCharacteristicRing;
use p3_matrix::dense::RowMajorMatrix;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn rounds_for(log_n: u32, rows: usize) -> usize {
    let work = (rows << log_n) as f64;
    ((2e7 / work) as usize).clamp(5, 41) | 1
}

/// Times `ours` and `theirs` alternately, each given a fresh setup; medians in ms.
fn paired<A, B>(
    rounds: usize,
    mut setup_a: impl FnMut() -> A,
    mut ours: impl FnMut(A),
    mut setup_b: impl FnMut() -> B,
    mut theirs: impl FnMut(B),
) -> Stats {
    interleave(
        rounds,
        || {
            let x = setup_a();
            seconds(|| ours(x)) * 1e3
        },
        || {
            let x = setup_b();
            seconds(|| theirs(x)) * 1e3
        },
    )
}

fn report(name: &str, peer: &str, s: Stats) {
    println!(
        "| {name:<44} | {:>10.3} | {peer:<28} | {:>10.3} | {:>6.2}x |",
        s.ours, s.theirs, s.ratio
    );
}

/// A prime field's transforms next to `ark-poly`'s `Radix2EvaluationDomain` (the first
/// `cases` of: forward to natural and to bit-reversed order, inverse, coset forward).
fn against_ark<F, A>(name: &str, log_n: u32, cases: usize, rng: &mut ChaCha20Rng)
where
    F: NttField,
    A: ark_ff::FftField + From<F>,
{
    let n = 1usize << log_n;
    let a: Vec<F> = (0..n).map(|_| F::random(&mut *rng)).collect();
    let ark_a: Vec<A> = a.iter().map(|&x| x.into()).collect();
    let d = Radix2Domain::<F>::new(log_n).unwrap();
    let ad = Radix2EvaluationDomain::<A>::new(n).unwrap();
    let cd = ad.get_coset(d.coset_shift().into()).unwrap();
    // Same result first.
    let mut x = a.clone();
    d.fft_in_place(&mut x).unwrap();
    let mut y = ark_a.clone();
    ad.fft_in_place(&mut y);
    assert!(x.iter().zip(&y).all(|(p, q)| A::from(*p) == *q));
    let all = [
        ("forward nat→nat", Transform::Forward, Order::Natural),
        ("forward nat→bitrev", Transform::Forward, Order::BitReversed),
        ("inverse nat→nat", Transform::Inverse, Order::Natural),
        (
            "coset forward nat→nat",
            Transform::CosetForward,
            Order::Natural,
        ),
    ];
    for (what, kind, out) in all.into_iter().take(cases) {
        let peer = match kind {
            Transform::Inverse => "ark-poly ifft_in_place",
            Transform::CosetForward => "ark-poly coset fft_in_place",
            _ => "ark-poly fft_in_place",
        };
        let stats = paired(
            rounds_for(log_n, 1),
            || a.clone(),
            |mut v| {
                d.apply(kind, &mut v, Order::Natural, out).unwrap();
                black_box(v);
            },
            || ark_a.clone(),
            |mut v| {
                match kind {
                    Transform::Inverse => ad.ifft_in_place(&mut v),
                    Transform::CosetForward => cd.fft_in_place(&mut v),
                    _ => ad.fft_in_place(&mut v),
                }
                black_box(v);
            },
        );
        report(&format!("{name} 2^{log_n} {what}"), peer, stats);
    }
}

fn bn254_batch(log_n: u32, rows: usize, rng: &mut ChaCha20Rng) {
    let n = 1usize << log_n;
    let a: Vec<bn254::Fr> = (0..rows * n).map(|_| bn254::Fr::random(rng)).collect();
    let ark_a: Vec<ark_bn254::Fr> = a.iter().map(|&x| x.into()).collect();
    let d = Radix2Domain::<bn254::Fr>::new(log_n).unwrap();
    let ad = Radix2EvaluationDomain::<ark_bn254::Fr>::new(n).unwrap();
    let stats = paired(
        rounds_for(log_n, rows),
        || a.clone(),
        |mut v| {
            d.forward_batch(&mut v, Order::Natural, Order::Natural)
                .unwrap();
            black_box(v);
        },
        || ark_a.chunks(n).map(|r| r.to_vec()).collect::<Vec<_>>(),
        |mut v| {
            for row in v.iter_mut() {
                ad.fft_in_place(row);
            }
            black_box(v);
        },
    );
    report(
        &format!("BN254 Fr {rows} × 2^{log_n} batch nat→nat"),
        "ark-poly fft per row",
        stats,
    );
}

fn to_p3(x: Goldilocks) -> p3_goldilocks::Goldilocks {
    p3_goldilocks::Goldilocks::from_u64(x.value())
}

fn goldilocks(log_n: u32, rows: usize, rng: &mut ChaCha20Rng) {
    let n = 1usize << log_n;
    // fastzk: rows of length n. p3: an n × rows matrix (each column one polynomial).
    let a: Vec<Goldilocks> = (0..rows * n).map(|_| Goldilocks::random(rng)).collect();
    let mut p3_vals = vec![p3_goldilocks::Goldilocks::ZERO; rows * n];
    for r in 0..rows {
        for j in 0..n {
            p3_vals[j * rows + r] = to_p3(a[r * n + j]);
        }
    }
    let d = Radix2Domain::<Goldilocks>::new(log_n).unwrap();
    let dft = Radix2DitParallel::<p3_goldilocks::Goldilocks>::default();
    // Same result first (p3 returns a bit-reversed view, i.e. natural order logically).
    {
        use p3_matrix::Matrix;
        let mut x = a.clone();
        d.forward_batch(&mut x, Order::Natural, Order::Natural)
            .unwrap();
        let out = dft
            .dft_batch(RowMajorMatrix::new(p3_vals.clone(), rows))
            .to_row_major_matrix();
        for j in [0, 1, n / 2, n - 1] {
            for r in [0, rows - 1] {
                assert_eq!(to_p3(x[r * n + j]), out.get(j, r).unwrap());
            }
        }
    }
    let what = if rows == 1 {
        format!("Goldilocks 2^{log_n}")
    } else {
        format!("Goldilocks {rows} × 2^{log_n} batch")
    };
    let rounds = rounds_for(log_n, rows);
    for (out, tag) in [
        (Order::BitReversed, "nat→bitrev"),
        (Order::Natural, "nat→nat"),
    ] {
        let stats = paired(
            rounds,
            || a.clone(),
            |mut v| {
                d.forward_batch(&mut v, Order::Natural, out).unwrap();
                black_box(v);
            },
            || RowMajorMatrix::new(p3_vals.clone(), rows),
            |m| {
                black_box(dft.dft_batch(m));
            },
        );
        report(
            &format!("{what} forward {tag}"),
            "p3 Radix2DitParallel",
            stats,
        );
    }
}

fn main() {
    let logs: Vec<u32> = std::env::var("NTT_LOGS")
        .unwrap_or_else(|_| "12,16,20,24".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let what = std::env::var("NTT_WHAT").unwrap_or_else(|_| "bn254,bls,goldilocks,batch".into());
    let mut rng = ChaCha20Rng::seed_from_u64(42);
    println!(
        "threads {}, goldilocks backend {:?}, p3 packed width {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        fastzk_field::goldilocks::packed::Backend::detect(),
        <<p3_goldilocks::Goldilocks as p3_field::Field>::Packing as p3_field::PackedValue>::WIDTH
    );
    println!("| case | fastzk ms | peer | peer ms | peer/fastzk |");
    println!("| --- | ---: | --- | ---: | ---: |");
    for &k in &logs {
        if what.contains("bn254") {
            against_ark::<bn254::Fr, ark_bn254::Fr>("BN254 Fr", k, 4, &mut rng);
        }
        if what.contains("bls") && k <= 22 {
            against_ark::<bls12_381::Fr, ark_bls12_381::Fr>("BLS12-381 Fr", k, 1, &mut rng);
        }
        if what.contains("goldilocks") {
            goldilocks(k, 1, &mut rng);
        }
    }
    if what.contains("batch") {
        for (rows, k) in [(16usize, 12u32), (16, 16), (64, 16), (512, 12)] {
            goldilocks(k, rows, &mut rng);
        }
        bn254_batch(16, 16, &mut rng);
    }
}
