//! The eight-lane IFMA bucket flush against the serial Pippenger, on the software model of
//! the lanes (every host), on the CPU's AVX-512 IFMA instructions and on the FMA lanes
//! (BN254 G1; each ignored, with the reason, where it cannot run): inputs big enough for many full batches, and the
//! inputs that send lanes down the exceptional path (a bucket and a point with the same
//! `x`: doublings and cancellations). A `libtest-mimic` harness, so that a check that
//! cannot run here says so instead of passing.

use fastzk_curve::{bls12_381, bn254, Affine};
use fastzk_field::{Field, NormInverse};
use fastzk_msm::{msm_with, CpuEngine, MsmConfig, MsmCurve};
use fastzk_testing::gen::{points, rng};
use fastzk_testing::ifma::Trials;
use rand::{Rng, RngCore};

/// Which flush runs the buckets.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Flush {
    /// The eight-lane flush on the software model.
    Model,
    /// The eight-lane flush on the CPU's instructions.
    Avx512,
    /// The eight-lane flush on the FMA lanes (AVX2).
    Fma,
    /// The scalar batch-affine flush (the lanes' reference path).
    Scalar,
}

/// Bucket-path configurations (grouping and partitioning off, so every point goes
/// through the buckets) on `flush`, against the parallel-windows engine.
fn run<C: MsmCurve>(flush: Flush, pts: &[Affine<C>], ks: &[C::Scalar], what: &str) {
    let want = msm_with(pts, ks, &MsmConfig::engine(CpuEngine::ParallelWindows))
        .expect("lengths")
        .result;
    // 11: the smallest window whose buckets (1024) the flush reduces in segments on the
    // lanes too.
    for window in [None, Some(4), Some(9), Some(11)] {
        for glv in [Some(true), Some(false)] {
            let cfg = MsmConfig {
                window,
                glv,
                simd: Some(flush != Flush::Scalar),
                ifma_model: flush == Flush::Model,
                fma_lanes: flush == Flush::Fma,
                partition: false,
                group_equal: false,
                ..MsmConfig::engine(CpuEngine::Fast)
            };
            let got = msm_with(pts, ks, &cfg).expect("lengths");
            let tag = format!(
                "{} {what}: {flush:?}, window {window:?}, glv {glv:?}",
                C::NAME
            );
            assert_eq!(got.result, want, "{tag}");
            assert_eq!(got.simd, flush != Flush::Scalar, "{tag}: lanes used");
        }
    }
}

fn check<C: MsmCurve>(flush: Flush, seed: u64) {
    let mut rng = rng(seed);
    // Fewer points for G2, whose lanes cost three to four times G1's on the model (CI's
    // time): still many full batches at the smaller windows, partial ones at 11.
    let extension = size_of::<C::Base>() > size_of::<<C::Base as NormInverse>::Norm>();
    let n = if extension { 500 } else { 1500 };
    let pts = points::<C>(n, rng.next_u64());
    let random: Vec<C::Scalar> = (0..n).map(|_| C::Scalar::random(&mut rng)).collect();
    run(flush, &pts, &random, "random");

    let vals: Vec<C::Scalar> = (0..32).map(|_| C::Scalar::random(&mut rng)).collect();
    let clustered: Vec<C::Scalar> = (0..n).map(|_| vals[rng.gen_range(0..32)]).collect();
    run(flush, &pts, &clustered, "clustered");

    let equal = vec![C::Scalar::random(&mut rng); n];
    run(flush, &pts, &equal, "all-equal scalars");

    // One point, all-equal scalars: every addition after the first in a bucket is a
    // doubling (same x, same y).
    let same = vec![pts[0]; n];
    run(flush, &same, &equal, "one point, equal scalars");

    // P and −P alternating with equal scalars: additions cancel (same x, opposite y).
    let pm: Vec<Affine<C>> = (0..n)
        .map(|i| if i % 2 == 0 { pts[1] } else { -pts[1] })
        .collect();
    run(flush, &pm, &equal, "P and -P, equal scalars");

    // Few distinct points with random scalars: many same-x lanes mixed with ordinary ones.
    let few: Vec<Affine<C>> = (0..n).map(|i| pts[i % 5]).collect();
    run(flush, &few, &random, "five distinct points");

    // Identities and zeros mixed in.
    let mut holes = pts.clone();
    let mut ks = random.clone();
    for i in (0..n).step_by(7) {
        holes[i] = Affine::identity();
        ks[(i + 3) % n] = C::Scalar::ZERO;
    }
    run(flush, &holes, &ks, "identities and zeros");

    // Scalars 1 and p − 1 (the largest) only.
    let edge: Vec<C::Scalar> = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                C::Scalar::ONE
            } else {
                -C::Scalar::ONE
            }
        })
        .collect();
    run(flush, &pts, &edge, "scalars 1 and -1");

    // Lengths that leave partial groups of eight in every batch.
    for m in [1, 7, 9, 17, 100] {
        run(flush, &pts[..m], &random[..m], "short");
    }
}

/// The flush on the model, on the instructions, on the FMA lanes (for the groups that take
/// them), and the scalar reference, for group `C`.
fn trials<C: MsmCurve>(t: &mut Trials, name: &str, seed: u64, fma: bool) {
    t.on_model(&format!("{name}::flush_matches_pippenger"), move || {
        check::<C>(Flush::Model, seed)
    });
    t.on_avx512(&format!("{name}::flush_matches_pippenger"), move || {
        check::<C>(Flush::Avx512, seed)
    });
    if fma {
        t.on_fma(&format!("{name}::flush_matches_pippenger"), move || {
            check::<C>(Flush::Fma, seed)
        });
    }
    t.plain(
        &format!("{name}::scalar_flush_matches_pippenger"),
        move || check::<C>(Flush::Scalar, seed),
    );
}

fn main() {
    let mut t = Trials::default();
    // The FMA lanes run BN254 G1 only (`fastzk_msm::curves`).
    trials::<bn254::G1Config>(&mut t, "bn254_g1", 11, true);
    trials::<bls12_381::G1Config>(&mut t, "bls12_381_g1", 12, false);
    trials::<bn254::G2Config>(&mut t, "bn254_g2", 13, false);
    trials::<bls12_381::G2Config>(&mut t, "bls12_381_g2", 14, false);
    t.run()
}
