//! Every CPU engine configuration through the shared MSM suite (`crates/testing`):
//! against the naive sum on every input shape, on random small inputs, and on
//! mismatched lengths, for G1 and G2 of every curve in the registry.

use fastzk_msm::{CpuEngine, MsmConfig};

/// Every CPU engine, the fast engine's knobs (windows from 2 to 12, GLV on and off,
/// partitioning and grouping on and off, point deduplication, a private pool), and each
/// fast configuration again with the scalar flush, and the IFMA flush on the model.
fn engines() -> Vec<MsmConfig> {
    let mut v: Vec<MsmConfig> = CpuEngine::ALL
        .iter()
        .filter(|e| **e != CpuEngine::Naive)
        .map(|e| MsmConfig::engine(*e))
        .collect();
    for e in [
        CpuEngine::Serial,
        CpuEngine::Cuzk,
        CpuEngine::ParallelHybrid,
    ] {
        v.push(MsmConfig {
            window: Some(3),
            ..MsmConfig::engine(e)
        });
    }
    for (glv, window, partition, group) in [
        (Some(true), Some(5), true, true),
        (Some(false), Some(7), false, false),
        (Some(true), Some(2), false, false),
        (Some(true), Some(12), false, true),
        (Some(false), None, true, false),
    ] {
        v.push(MsmConfig {
            glv,
            window,
            partition,
            group_equal: group,
            ..MsmConfig::engine(CpuEngine::Fast)
        });
    }
    v.push(MsmConfig {
        dedup_points: true,
        ..MsmConfig::default()
    });
    v.push(MsmConfig {
        threads: Some(3),
        ..MsmConfig::default()
    });
    // The fast configurations again with each flush forced: the scalar one, and the
    // lanes where the CPU has them (the defaults take whichever the calibration finds
    // cheaper).
    let forced: Vec<MsmConfig> = v
        .iter()
        .filter(|c| matches!(c.engine, CpuEngine::Fast | CpuEngine::Auto))
        .flat_map(|c| {
            [false, true].map(|lanes| MsmConfig {
                simd: Some(lanes),
                ..c.clone()
            })
        })
        .collect();
    v.extend(forced);
    // The eight-lane IFMA flush on the software model of the lanes (every host): the
    // default plan, and every point through the buckets with GLV on and off.
    v.push(MsmConfig {
        ifma_model: true,
        ..MsmConfig::default()
    });
    for (glv, window) in [(Some(true), Some(5)), (Some(false), Some(8))] {
        v.push(MsmConfig {
            glv,
            window,
            partition: false,
            group_equal: false,
            ifma_model: true,
            ..MsmConfig::engine(CpuEngine::Fast)
        });
    }
    v
}

macro_rules! msm_suites {
    ($m:ident, $e:ty) => {
        mod $m {
            use super::*;
            use fastzk_pairing::PairingCurve;
            fastzk_testing::msm_tests!(g1, <$e as PairingCurve>::G1, engines(), n: 150);
            fastzk_testing::msm_tests!(g2, <$e as PairingCurve>::G2, engines(), n: 130);
        }
    };
}

fastzk_pairing::for_each_pairing_curve!(msm_suites);
