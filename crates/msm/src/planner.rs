//! Choosing the engine, the window and GLV from a cost model (cuZK §4.1, SimdMSM §5.4)
//! whose unit costs are measured once per group on the running machine.
//!
//! The textbook model `F(c) = ⌈λ/c⌉·(n + 2^c)` picks windows that are too large in
//! practice (SimdMSM Table 3: computed 17 vs practical 12–15 at 2^20): bucket
//! accumulation gets slower once the buckets leave the core's cache, and a bucket-sum
//! step costs two projective additions, not one affine addition. The model here prices
//! those separately, with a cache penalty past the L2-sized bucket table.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use fastzk_curve::{Affine, Jacobian, Xyzz};
use fastzk_field::{Field, PrimeField};

use crate::bucket::{reduction_segments, BucketAcc, SEGMENTED_MIN};
use crate::ifma_flush::IfmaFlush;
use crate::scalar::SignedScalars;
use crate::CpuEngine;
use crate::MsmCurve;

/// Measured unit costs (nanoseconds) for one group on this machine.
#[derive(Clone, Copy, Debug)]
pub struct Calibration {
    /// One batch-affine bucket addition, amortised (inversion included).
    pub batch_add_ns: f64,
    /// The same with the eight-lane IFMA flush, where the group and CPU have it.
    pub simd_batch_add_ns: Option<f64>,
    /// Fixed cost of one batch flush (the shared inversion and, for the IFMA flush,
    /// combining the lanes), scalar and IFMA flush: measured from batches of 64 vs 512.
    pub flush_ns: f64,
    pub simd_flush_ns: f64,
    /// One XYZZ mixed plus one XYZZ full addition (a bucket-reduction step of the plain
    /// running sum, below [`SEGMENTED_MIN`] buckets).
    pub reduce_step_ns: f64,
    /// The same per bucket for the segmented batch-affine reduction on the scalar flush
    /// (from [`SEGMENTED_MIN`] buckets).
    pub segmented_reduce_step_ns: f64,
    /// The same per bucket for the segmented eight-lane reduction (IFMA flush).
    pub simd_reduce_step_ns: Option<f64>,
    /// One GLV split plus endomorphism, per input point.
    pub glv_ns: f64,
    /// One field inversion (a batch pays one; small bucket sets mean small batches).
    pub inverse_ns: f64,
}

/// The batch size at which `batch_add_ns` is measured.
const CAL_BATCH: usize = 512;

/// The bucket count at which the batch additions and the segmented reduction are
/// measured.
const CAL_BUCKETS: usize = 4096;

/// How much a bucket addition slows down as the bucket table outgrows the caches: past
/// a knee, a relative extra cost per doubling of the table. Model constants, not
/// measurements (a few milliseconds cannot warm a large table the way a real MSM does),
/// fitted to window sweeps. The IFMA flush (Zen 4): 0.045 past 512 KiB, its gathers
/// keeping eight bucket loads in flight (0.06 before the model counted the additions
/// that land in empty buckets and the reduction's fixed tail; with those, 0.06 took
/// c = 15 for BN254 G1 2^20, 3–5 % slower than c = 16, and 0.03 took c = 19 for
/// BLS12-381 G1 2^20, 17 % slower than c = 16). The scalar flush: 0.17 past 4 MiB. On
/// a Zen 3 class EPYC without AVX-512 (BN254 G1 2^20, 2 threads, medians of 12 runs:
/// c = 13, 14, 15, 16, 17, 18 took 2683, 2622, 2259, 2293, 2472, 2581 ms) tables of 1
/// and 2 MiB cost no more than one of 256 KiB, and larger ones 15–20 % more per
/// doubling, then with the plain running-sum reduction, whose cost also grows with the
/// table. On Zen 4 (per-window timings with the segmented reduction) a bucket addition
/// costs the same with a 4.2 MB table (BLS12-381 and G2 at c = 16, BN254 G1 at
/// c = 17) as with a 1 MB one: 246 against 248 ns for BLS12-381 G1, counting only the
/// additions that find their bucket full. The batches (one per 32 buckets, every
/// bucket prefetched when queued) hide the misses of tables a few times the L2.
#[derive(Clone, Copy, Debug)]
struct CacheModel {
    knee_bytes: f64,
    penalty_per_doubling: f64,
}

const SCALAR_CACHE: CacheModel = CacheModel {
    knee_bytes: 4.0 * 1024.0 * 1024.0,
    penalty_per_doubling: 0.17,
};
const SIMD_CACHE: CacheModel = CacheModel {
    knee_bytes: 512.0 * 1024.0,
    penalty_per_doubling: 0.045,
};

/// Past this table size (two threads' tables outgrow a 32 MiB L3) an addition costs
/// much more per doubling, for either flush: with only the knees above, a noisy
/// calibration could pick c = 19 for BN254 G1 2^20 on the FMA lanes (14 windows of
/// 8.5–17 MB tables), 1,222 against 1,050 ms at c = 16.
const FAR_KNEE_BYTES: f64 = 8.0 * 1024.0 * 1024.0;
const FAR_PENALTY_PER_DOUBLING: f64 = 0.3;

/// The GLV-doubled point set up to which GLV is taken on the model's word alone.
const GLV_IN_CACHE_BYTES: usize = 8 << 20;

/// The small batch size of the flush-cost measurement.
const SMALL_BATCH: usize = 64;

/// The planner's decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    pub engine: CpuEngine,
    pub window: u32,
    pub glv: bool,
    /// Modelled single-thread-equivalent cost divided by the thread count, in ms.
    pub est_ms: f64,
}

fn calibrations() -> &'static Mutex<HashMap<&'static str, Calibration>> {
    static CAL: OnceLock<Mutex<HashMap<&'static str, Calibration>>> = OnceLock::new();
    CAL.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Overrides the measured costs (tests, or a caller with its own measurements).
pub fn set_calibration<C: MsmCurve>(cal: Calibration) {
    calibrations()
        .lock()
        .expect("calibration table lock")
        .insert(C::NAME, cal);
}

/// The unit costs for `C`, measured on first use (a few milliseconds).
pub fn calibration<C: MsmCurve>() -> Calibration {
    if let Some(c) = calibrations()
        .lock()
        .expect("calibration table lock")
        .get(C::NAME)
    {
        return *c;
    }
    let cal = measure::<C>();
    set_calibration::<C>(cal);
    cal
}

fn measure<C: MsmCurve>() -> Calibration {
    // Deterministic distinct points: G, 2G, 3G, ... (one mixed addition each).
    let n = 2048usize;
    let mut acc = Jacobian::<C>::generator();
    let g = Affine::<C>::generator();
    let mut jac = Vec::with_capacity(n);
    for _ in 0..n {
        jac.push(acc);
        acc = acc.add_affine(&g);
    }
    let pts = fastzk_curve::batch_normalize(&jac);
    // Batch-affine: 4096 additions into 4096 full buckets, spread so conflicts are rare.
    // Then with batches of 64 for the fixed cost of a flush.
    let batch_add = |pts: &[Affine<C>], kernel| {
        let time = |buckets: usize, batch: usize| {
            let make = || match kernel {
                Some(k) => BucketAcc::<C>::with_kernel(buckets, batch, k),
                None => BucketAcc::<C>::new(buckets, batch),
            };
            let rounds = 2;
            let mut best = f64::MAX;
            for _ in 0..3 {
                let mut b = make();
                for i in 0..buckets {
                    b.add(i, &pts[(i * 5 + 1) % n]);
                }
                b.finish();
                let t = Instant::now();
                for r in 0..rounds {
                    for (i, p) in pts.iter().enumerate() {
                        b.add((i * 7919 + r * 131 + i / n) % buckets, p);
                    }
                }
                b.finish();
                best = best.min(t.elapsed().as_nanos() as f64 / (rounds * n) as f64);
            }
            best
        };
        let full = time(CAL_BUCKETS, CAL_BATCH);
        let small = time(CAL_BUCKETS, SMALL_BATCH);
        let per_flush = (small - full) / (1.0 / SMALL_BATCH as f64 - 1.0 / CAL_BATCH as f64);
        (full, per_flush.max(0.0))
    };
    let (best_ba, flush_ns) = batch_add(&pts, None);
    // The segmented reduction of 4096 full buckets, per bucket.
    let segmented = |pts: &[Affine<C>], kernel| {
        let mut best = f64::MAX;
        for _ in 0..3 {
            let mut b = match kernel {
                Some(k) => BucketAcc::<C>::with_kernel(CAL_BUCKETS, CAL_BATCH, k),
                None => BucketAcc::<C>::new(CAL_BUCKETS, CAL_BATCH),
            };
            for i in 0..CAL_BUCKETS {
                b.add(i, &pts[(i * 5 + 1) % n]);
            }
            b.finish();
            let t = Instant::now();
            std::hint::black_box(b.reduce());
            best = best.min(t.elapsed().as_nanos() as f64 / CAL_BUCKETS as f64);
        }
        best
    };
    let segmented_red = segmented(&pts, None);
    let simd = C::lane_flush().map(|k| {
        let converted: Vec<Affine<C>> = pts.iter().map(|p| k.point_to_ifma(p)).collect();
        let (add, flush) = batch_add(&converted, Some(k));
        (add, flush, segmented(&converted, Some(k)))
    });
    let mut best_red = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let mut running = Xyzz::<C>::identity();
        let mut total = Xyzz::<C>::identity();
        for p in pts.iter().take(512) {
            running = running.add_affine(p);
            total = total.add_xyzz(&running);
        }
        std::hint::black_box(total);
        best_red = best_red.min(t.elapsed().as_nanos() as f64 / 512.0);
    }
    let glv_ns = match C::glv_fast() {
        Some(glv) => {
            let t = Instant::now();
            let mut sink = 0u64;
            for i in 0..256u64 {
                let k = [i.wrapping_mul(0x9e37_79b9_7f4a_7c15), i, !i, i >> 1 | 1];
                let (_, a, _, b) = glv.decompose(&k);
                sink ^= a[0] ^ b[0];
                sink ^= glv.endo(&pts[i as usize]).infinity as u64;
            }
            std::hint::black_box(sink);
            t.elapsed().as_nanos() as f64 / 256.0 + best_ba * 0.2
        }
        None => f64::MAX,
    };
    let mut best_inv = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let mut x = pts[7].x;
        for _ in 0..16 {
            x = x.inverse().unwrap_or(x) + pts[3].x;
        }
        std::hint::black_box(x);
        best_inv = best_inv.min(t.elapsed().as_nanos() as f64 / 16.0);
    }
    Calibration {
        inverse_ns: best_inv,
        batch_add_ns: best_ba,
        simd_batch_add_ns: simd.map(|s| s.0),
        flush_ns,
        simd_flush_ns: simd.map_or(flush_ns, |s| s.1),
        reduce_step_ns: best_red,
        segmented_reduce_step_ns: segmented_red,
        simd_reduce_step_ns: simd.map(|s| s.2),
        glv_ns,
    }
}

/// Modelled cost (ns, all threads together) of the batch-affine engine for `n`
/// points with `bits`-bit scalars and window `c`, with the scalar flush or (`simd`)
/// the IFMA one; `cal` holds the costs of the flush that runs ([`calibration_for`]).
pub fn cost_ns<C: MsmCurve>(cal: &Calibration, n: usize, bits: u32, c: u32, simd: bool) -> f64 {
    // Window by window, with the widths the engine uses (18 windows for 255 bits at
    // c = 15 are mostly 14 bits wide: a quarter of a 16-bit window's buckets).
    SignedScalars::balanced_widths(bits, c)
        .into_iter()
        .map(|width| window_ns::<C>(cal, n, width, simd))
        .sum()
}

/// Modelled cost (ns) of one window of `width` bits over `n` points: the bucket
/// additions, then the window's reduction.
fn window_ns<C: MsmCurve>(cal: &Calibration, n: usize, width: u32, simd: bool) -> f64 {
    let buckets = (1u64 << (width - 1)) as f64;
    let bytes = buckets * BucketAcc::<C>::bucket_bytes() as f64;
    let cache = if simd { SIMD_CACHE } else { SCALAR_CACHE };
    let penalty = if bytes > cache.knee_bytes {
        1.0 + cache.penalty_per_doubling * (bytes / cache.knee_bytes).log2()
    } else {
        1.0
    } + if bytes > FAR_KNEE_BYTES {
        FAR_PENALTY_PER_DOUBLING * (bytes / FAR_KNEE_BYTES).log2()
    } else {
        0.0
    };
    // Only digits that are non-zero cost an addition, and of those, the ones that find
    // their bucket still empty (about `B·(1 − e^(−hits/B))`) are only stored: with
    // many buckets per point this is a real share (BLS12-381 G1 2^18 at c = 16: an
    // eighth of the digits; without it the model overpriced wide windows).
    let nonzero = 1.0 - 1.0 / (2.0 * buckets + 1.0);
    let hits = n as f64 * nonzero;
    let additions = hits - buckets * (1.0 - (-hits / buckets).exp());
    // Small bucket sets flush small batches: each addition carries a larger share of
    // the batch's fixed cost than in the calibration (large sets a smaller one).
    // The eight-lane flush's batch size for both flushes: the scalar flush's smaller
    // batches buy their extra inversions back in cache misses, which this model does
    // not see.
    let batch = BucketAcc::<C>::kernel_batch(1usize << (width - 1)) as f64;
    let inv_share = cal.flush_ns * (1.0 / batch - 1.0 / CAL_BATCH as f64);
    additions * (cal.batch_add_ns * penalty + inv_share) + reduction_ns(cal, width)
}

/// Modelled cost (ns) of reducing one window's `2^(width−1)` buckets to its sum.
fn reduction_ns(cal: &Calibration, width: u32) -> f64 {
    let buckets = 1usize << (width - 1);
    if buckets < SEGMENTED_MIN {
        return buckets as f64 * cal.reduce_step_ns;
    }
    // The segmented reduction: two batch-affine additions per bucket, then a projective
    // tail of three XYZZ additions per segment (about one and a half plain steps). The
    // calibration's 4096 buckets carry the tail of 512 segments, about a quarter of its
    // per-bucket figure, which a 2^15-bucket window spreads eight times thinner
    // (BLS12-381 G1 without IFMA: calibrated 593–620 ns a bucket, 510 ns in a 2^18
    // MSM's 2^15-bucket windows).
    let tail = |b: usize| 1.5 * reduction_segments(b) as f64 * cal.reduce_step_ns;
    // (Never below half the measured figure, should the plain step's timing be high.)
    let per_bucket = (cal.segmented_reduce_step_ns - tail(CAL_BUCKETS) / CAL_BUCKETS as f64)
        .max(0.5 * cal.segmented_reduce_step_ns);
    buckets as f64 * per_bucket + tail(buckets)
}

/// Best window for `n` points of `bits`-bit scalars under the model (scalar flush).
pub fn plan_window<C: MsmCurve>(n: usize, bits: u32) -> Plan {
    plan_window_with::<C>(n, bits, false)
}

/// The calibration with `batch_add_ns` of the flush that will run, and whether that is
/// the IFMA flush (`simd` asked for and measured for this group and CPU).
fn calibration_for<C: MsmCurve>(simd: bool) -> (Calibration, bool) {
    let mut cal = calibration::<C>();
    if simd {
        if let Some(ns) = cal.simd_batch_add_ns {
            cal.batch_add_ns = ns;
            cal.flush_ns = cal.simd_flush_ns;
            cal.segmented_reduce_step_ns = cal
                .simd_reduce_step_ns
                .unwrap_or(cal.segmented_reduce_step_ns);
            return (cal, true);
        }
    }
    (cal, false)
}

/// Best window for `n` points of `bits`-bit scalars under the model, for the IFMA
/// flush (`simd`, where available) or the scalar one.
pub fn plan_window_with<C: MsmCurve>(n: usize, bits: u32, simd: bool) -> Plan {
    let (cal, simd) = calibration_for::<C>(simd);
    let threads = rayon::current_num_threads().max(1);
    let mut best = (f64::MAX, 1u32);
    for c in 2..=20u32 {
        // Windows are the parallel tasks; those left over after dividing them among the
        // threads run in parts, one per thread (`fast::window_tasks`), each part with
        // its own bucket reduction (the split ones are the last, narrowest windows).
        let widths = SignedScalars::balanced_widths(bits.max(1), c);
        let m = widths.len();
        let extra_parts = crate::fast::window_tasks(m, n.max(1), threads).len() - m;
        let cost = cost_ns::<C>(&cal, n.max(1), bits.max(1), c, simd)
            + extra_parts as f64 * reduction_ns(&cal, widths[m - 1]);
        if cost < best.0 {
            best = (cost, c);
        }
    }
    Plan {
        engine: CpuEngine::Fast,
        window: best.1,
        glv: false,
        est_ms: best.0 / threads as f64 / 1e6,
    }
}

/// Whether the GLV split lowers the modelled cost for `n` scalars of `bits` bits
/// (scalar flush).
pub fn glv_pays<C: MsmCurve>(n: usize, bits: u32) -> bool {
    glv_pays_with::<C>(n, bits, false)
}

/// [`glv_pays`] for the IFMA flush (`simd`) or the scalar one.
pub fn glv_pays_with<C: MsmCurve>(n: usize, bits: u32, simd: bool) -> bool {
    if C::glv_fast().is_none() || bits <= 64 {
        return false;
    }
    let (cal, flush_is_simd) = calibration_for::<C>(simd);
    let plain = plan_window_with::<C>(n, bits, simd).est_ms;
    let half = bits.div_ceil(2) + 2;
    let threads = rayon::current_num_threads().max(1) as f64;
    let glv =
        plan_window_with::<C>(2 * n, half, simd).est_ms + n as f64 * cal.glv_ns / threads / 1e6;
    // Once the doubled points no longer fit in the caches, GLV measured slower than the
    // model says (twice the points to write, convert and stream through every window):
    // at 2^20, BN254 G1 2 threads 1051 ms with GLV (c=13) vs 760 ms without (c=15) on
    // the IFMA flush; BN254 G2 2^18 on the scalar flush, c = 13, 1945 vs 1830 ms. Then
    // it has to win clearly in the model to be used. Below that it wins as the model
    // says (Zen 4, 2 threads, `fastzk bench msm --glv true|false`: at 2^12 and 2^14 GLV
    // was 0–14 % faster for every group and flush, at 2^16 and 2^18 0–15 % slower
    // except on the scalar flush's BLS12-381 G1 and BN254 G2 at 2^16, 2–5 % faster).
    let doubled_bytes = 2 * n * size_of::<Affine<C>>();
    let margin = if doubled_bytes > GLV_IN_CACHE_BYTES || (flush_is_simd && n >= 1 << 16) {
        0.85
    } else {
        1.0
    };
    glv < plain * margin
}

/// The eight-lane flush the fast engine takes by default: the group's and CPU's
/// ([`MsmCurve::lane_flush`]) where its calibrated bucket addition is cheaper than the
/// scalar flush's, else none. IFMA's is the cheaper wherever it exists (its MSMs take
/// about two thirds of the scalar flush's time on every group); the FMA lanes' depend
/// on the core: BN254 G1's MSM at 2^20 was a tenth faster on them on
/// Zen 4 with IFMA off, and a fifth slower on a Zen 3 EPYC (2,185–2,522 against
/// 1,710–1,874 ms), whose calibration prices their addition at 192–292 ns against the
/// scalar flush's 175–240 in the same processes.
pub fn default_lane_flush<C: MsmCurve>() -> Option<&'static IfmaFlush<C>> {
    let cal = calibration::<C>();
    C::lane_flush().filter(|_| {
        cal.simd_batch_add_ns
            .is_some_and(|ns| ns < cal.batch_add_ns)
    })
}

/// The full plan for `n` random full-size scalars of `C` (the fast engine's default:
/// [`default_lane_flush`]).
pub fn plan<C: MsmCurve>(n: usize) -> Plan {
    let bits = <C::Scalar as PrimeField>::MODULUS_BITS;
    let simd = default_lane_flush::<C>().is_some();
    if glv_pays_with::<C>(n, bits, simd) {
        let half = bits.div_ceil(2) + 2;
        let mut p = plan_window_with::<C>(2 * n, half, simd);
        p.glv = true;
        p.est_ms +=
            n as f64 * calibration::<C>().glv_ns / rayon::current_num_threads().max(1) as f64 / 1e6;
        p
    } else {
        plan_window_with::<C>(n, bits, simd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastzk_curve::bn254::G1Config as G1;

    /// The default flush follows the calibration: the lanes where their bucket addition
    /// is the cheaper, the scalar flush where it is not, and where the CPU has no lanes.
    #[test]
    fn default_lane_flush_follows_the_calibration() {
        let measured = calibration::<G1>();
        let lanes_taken = |lane_ns: f64| {
            set_calibration::<G1>(Calibration {
                batch_add_ns: 100.0,
                simd_batch_add_ns: G1::lane_flush().map(|_| lane_ns),
                ..measured
            });
            default_lane_flush::<G1>().is_some()
        };
        let cheaper = lanes_taken(90.0);
        let dearer = lanes_taken(110.0);
        set_calibration::<G1>(measured);
        assert_eq!(cheaper, G1::lane_flush().is_some());
        assert!(!dearer);
    }
}
