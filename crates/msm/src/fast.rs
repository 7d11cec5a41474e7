//! The fast engine: signed-digit windows, batch-affine buckets with a shared inversion
//! (XYZZ overflow buckets for conflicts), GLV on G1, partitioning of the scalars by
//! size (0 is skipped, 1 costs one addition, small values get their own short MSM),
//! grouping of equal scalar values (clustered witnesses), and rayon over windows and
//! point chunks.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use fastzk_curve::{batch::batch_add_affine_assign, Affine, Xyzz};
use rayon::prelude::*;

use crate::bucket::BucketAcc;
use crate::ifma_flush::IfmaFlush;
use crate::planner::{self, Plan};
use crate::scalar::{bit_len, SignedScalars};
use crate::MsmCurve;

/// Knobs of the fast engine (the planner fills what is `None`).
#[derive(Clone, Debug)]
pub struct FastOptions {
    pub window: Option<u32>,
    pub glv: Option<bool>,
    /// Split scalars by size (0, 1, ≤16 bits, ≤64 bits, the rest).
    pub partition: bool,
    /// Sum points that share a scalar value first when values repeat a lot.
    pub group_equal: bool,
    /// Flush buckets on eight lanes (IFMA's, else the FMA lanes') where the CPU and
    /// group have them: `None` where they are cheaper ([`planner::default_lane_flush`]),
    /// `Some(true)` always, `Some(false)` never.
    pub simd: Option<bool>,
    /// Unless `simd` is `Some(false)`, flush on the software model of the lanes (tests,
    /// any host).
    #[cfg(feature = "ifma-model")]
    pub ifma_model: bool,
    /// Unless `simd` is `Some(false)`, flush on the FMA lanes even where IFMA is
    /// present (tests).
    #[cfg(feature = "ifma-model")]
    pub fma_lanes: bool,
}

impl Default for FastOptions {
    fn default() -> Self {
        Self {
            window: None,
            glv: None,
            partition: true,
            group_equal: true,
            simd: None,
            #[cfg(feature = "ifma-model")]
            ifma_model: false,
            #[cfg(feature = "ifma-model")]
            fma_lanes: false,
        }
    }
}

/// What the engine decided for the dominant (largest) part, for reporting.
#[derive(Clone, Debug, Default)]
pub struct FastReport {
    pub window: u32,
    pub glv: bool,
    pub grouped: bool,
    /// The buckets were flushed on eight lanes (IFMA's or the FMA lanes').
    pub simd: bool,
    pub zeros: usize,
    pub ones: usize,
    pub small: usize,
    pub large: usize,
}

/// Sums many points with a pairwise tree; each level is one batch-affine addition.
pub fn sum_points<C: MsmCurve>(points: &[Affine<C>]) -> Xyzz<C> {
    let sums = sum_segments(points.to_vec(), &[0, points.len()]);
    Xyzz::from(sums[0])
}

/// Sums each segment `points[starts[g]..starts[g+1]]`, all segments advancing together
/// so every tree level is one big batch addition.
pub fn sum_segments<C: MsmCurve>(mut pts: Vec<Affine<C>>, starts: &[usize]) -> Vec<Affine<C>> {
    let mut starts = starts.to_vec();
    let groups = starts.len().saturating_sub(1);
    loop {
        let longest = starts.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        if longest <= 1 {
            break;
        }
        let mut lhs = Vec::with_capacity(pts.len() / 2);
        let mut rhs = Vec::with_capacity(pts.len() / 2);
        for g in 0..groups {
            let (s, e) = (starts[g], starts[g + 1]);
            let mut i = s;
            while i + 1 < e {
                lhs.push(pts[i]);
                rhs.push(pts[i + 1]);
                i += 2;
            }
        }
        let chunk = lhs
            .len()
            .div_ceil(rayon::current_num_threads().max(1))
            .max(256);
        lhs.par_chunks_mut(chunk)
            .zip(rhs.par_chunks(chunk))
            .for_each(|(l, r)| {
                let mut scratch = Vec::with_capacity(l.len());
                batch_add_affine_assign(l, r, &mut scratch)
                    .expect("lhs and rhs chunks have equal lengths");
            });
        let mut next = Vec::with_capacity(lhs.len() + groups);
        let mut next_starts = Vec::with_capacity(groups + 1);
        let mut k = 0;
        next_starts.push(0);
        for g in 0..groups {
            let (s, e) = (starts[g], starts[g + 1]);
            let pairs = (e - s) / 2;
            next.extend_from_slice(&lhs[k..k + pairs]);
            k += pairs;
            if (e - s) % 2 == 1 {
                next.push(pts[e - 1]);
            }
            next_starts.push(next.len());
        }
        pts = next;
        starts = next_starts;
    }
    (0..groups)
        .map(|g| {
            if starts[g + 1] > starts[g] {
                pts[starts[g]]
            } else {
                Affine::identity()
            }
        })
        .collect()
}

/// Combines window sums `G_w` into `Σ 2^(w·c)·G_w` (cuZK formula (3)).
pub fn combine_windows<C: MsmCurve>(sums: &[Xyzz<C>], c: u32) -> Xyzz<C> {
    let offsets: Vec<u32> = (0..sums.len() as u32).map(|w| w * c).collect();
    combine_windows_at(sums, &offsets)
}

/// Core: `Σ k_i·P_i` for non-negative `k_i < 2^bits` with signed `c`-bit windows and
/// batch-affine buckets, parallel over windows × point chunks.
pub fn pippenger_batch_affine<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    bits: u32,
    c: u32,
) -> Xyzz<C> {
    pippenger_batch_affine_with(points, scalars, bits, c, None)
}

/// [`pippenger_batch_affine`] with the buckets flushed by `kernel` (eight IFMA lanes).
pub fn pippenger_batch_affine_with<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    bits: u32,
    c: u32,
    kernel: Option<&'static IfmaFlush<C>>,
) -> Xyzz<C> {
    if points.is_empty() || bits == 0 {
        return Xyzz::identity();
    }
    match kernel {
        Some(k) => pippenger_flush_form(&to_flush_form(points, k), scalars, bits, c, Some(k)),
        None => pippenger_flush_form(points, scalars, bits, c, None),
    }
}

/// A copy of `points` in `kernel`'s form, copied and converted in parallel (a serial
/// copy of 2^20 points costs more than the conversion).
pub(crate) fn to_flush_form<C: MsmCurve>(
    points: &[Affine<C>],
    kernel: &IfmaFlush<C>,
) -> Vec<Affine<C>> {
    let mut pts: Vec<Affine<C>> = points.par_iter().copied().collect();
    pts.par_chunks_mut(4096)
        .for_each(|c| kernel.convert_points(c, true));
    pts
}

/// [`pippenger_batch_affine_with`] on points already in `kernel`'s form when a kernel is
/// given ([`to_flush_form`]).
pub(crate) fn pippenger_flush_form<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    bits: u32,
    c: u32,
    kernel: Option<&'static IfmaFlush<C>>,
) -> Xyzz<C> {
    if points.is_empty() || bits == 0 {
        return Xyzz::identity();
    }
    let rec = SignedScalars::new_balanced(scalars, bits, c);
    let m = rec.windows as usize;
    let threads = rayon::current_num_threads().max(1);
    let n = points.len();
    let tasks = window_tasks(m, n, threads);
    let run = |&(w, start, end): &(usize, usize, usize)| {
        let (off, width) = (rec.offsets[w], rec.widths[w]);
        let top = w + 1 == m;
        let n_buckets = 1usize << (width - 1);
        let batch = BucketAcc::<C>::batch_for(n_buckets, kernel.is_some());
        let mut acc = match kernel {
            Some(k) => BucketAcc::<C>::with_kernel(n_buckets, batch, k),
            None => BucketAcc::<C>::new(n_buckets, batch),
        };
        for (i, p) in points.iter().enumerate().take(end).skip(start) {
            let d = rec.digit_at(i, off, width, top);
            if d != 0 {
                acc.add_signed((d.unsigned_abs() - 1) as usize, p, d < 0);
            }
        }
        (w, acc.reduce())
    };
    // Each thread takes the next task until none is left: the whole windows first, the
    // halves (or smaller parts) of the split ones last, so the threads finish together
    // whichever way rayon places the workers.
    let next = AtomicUsize::new(0);
    let results: Vec<(usize, Xyzz<C>)> = (0..threads.min(tasks.len()))
        .into_par_iter()
        .flat_map_iter(|_| {
            std::iter::from_fn(|| tasks.get(next.fetch_add(1, Ordering::Relaxed)).map(run))
        })
        .collect();
    let mut sums = vec![Xyzz::<C>::identity(); m];
    for (w, s) in results {
        sums[w] = sums[w].add_xyzz(&s);
    }
    combine_windows_at(&sums, &rec.offsets)
}

/// The engine's parallel tasks `(window, first point, end)` for `m` windows over `n`
/// points: whole windows while they divide evenly among the threads, then each of the
/// `m mod threads` windows left over cut into one part of the points per thread (17
/// windows on 2 threads: 16 whole and one in halves, where 17 whole tasks kept one
/// thread idle for a window's time; BN254 G2 2^18 at c = 15 without IFMA, 852 → 823–835
/// ms). Parts shorter than 1024 points are not worth their extra bucket reduction, so
/// small inputs split less or not at all.
pub(crate) fn window_tasks(m: usize, n: usize, threads: usize) -> Vec<(usize, usize, usize)> {
    let parts = threads.min(n.div_ceil(1024)).max(1);
    let split = if parts > 1 { m % threads } else { 0 };
    let part_len = n.div_ceil(parts);
    let whole = (0..m - split).map(|w| (w, 0, n));
    let cut = (m - split..m)
        .flat_map(|w| (0..parts).map(move |p| (w, p * part_len, ((p + 1) * part_len).min(n))));
    whole.chain(cut).filter(|&(_, s, e)| s < e).collect()
}

/// Combines window sums `G_w` starting at bit `offsets[w]` into `Σ 2^(offsets[w])·G_w`.
pub fn combine_windows_at<C: MsmCurve>(sums: &[Xyzz<C>], offsets: &[u32]) -> Xyzz<C> {
    let mut acc = Xyzz::<C>::identity();
    for w in (0..sums.len()).rev() {
        let gap = offsets.get(w + 1).map_or(0, |next| next - offsets[w]);
        for _ in 0..gap {
            acc = acc.double();
        }
        acc = acc.add_xyzz(&sums[w]);
    }
    acc
}

/// Points with their non-negative scalars.
type Part<C> = (Vec<Affine<C>>, Vec<[u64; 4]>);

/// GLV expansion: `(P, k)` becomes `(±P, |k1|)` and `(±φ(P), |k2|)`.
fn glv_expand<C: MsmCurve>(points: &[Affine<C>], scalars: &[[u64; 4]]) -> Option<(Part<C>, u32)> {
    let glv = C::glv_fast()?;
    let mut pts = vec![Affine::<C>::identity(); 2 * points.len()];
    let mut ks = vec![[0u64; 4]; 2 * points.len()];
    let chunk = 4096;
    let bits = pts
        .par_chunks_mut(2 * chunk)
        .zip(ks.par_chunks_mut(2 * chunk))
        .zip(points.par_chunks(chunk).zip(scalars.par_chunks(chunk)))
        .map(|((po, ko), (pi, ki))| {
            let mut bits = 0;
            for j in 0..pi.len() {
                let (n1, k1, n2, k2) = glv.decompose(&ki[j]);
                let p = pi[j];
                let e = glv.endo(&p);
                po[2 * j] = if n1 { -p } else { p };
                po[2 * j + 1] = if n2 { -e } else { e };
                ko[2 * j] = k1;
                ko[2 * j + 1] = k2;
                bits = bits.max(bit_len(&k1)).max(bit_len(&k2));
            }
            bits
        })
        .max()
        .unwrap_or(0);
    Some(((pts, ks), bits))
}

/// The eight-lane flush `opts` asks for, where the group (and, for the CPU's
/// instructions, the CPU) has one.
fn flush_kernel<C: MsmCurve>(opts: &FastOptions) -> Option<&'static IfmaFlush<C>> {
    if opts.simd == Some(false) {
        return None;
    }
    #[cfg(feature = "ifma-model")]
    if opts.ifma_model {
        return C::ifma_flush_model();
    }
    #[cfg(feature = "ifma-model")]
    if opts.fma_lanes {
        return C::fma_flush();
    }
    match opts.simd {
        Some(true) => C::lane_flush(),
        _ => planner::default_lane_flush::<C>(),
    }
}

/// The large-scalar part: optional GLV, then the batch-affine core.
fn msm_large<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    opts: &FastOptions,
    report: &mut FastReport,
) -> Xyzz<C> {
    let n = points.len();
    if n == 0 {
        return Xyzz::identity();
    }
    let bits = scalars.par_iter().map(|k| bit_len(k)).max().unwrap_or(0);
    let kernel = flush_kernel::<C>(opts);
    let use_glv = opts
        .glv
        .unwrap_or_else(|| planner::glv_pays_with::<C>(n, bits, kernel.is_some()))
        && C::glv_fast().is_some();
    if use_glv && bits > 64 {
        if let Some(((pts, ks), hbits)) = glv_expand(points, scalars) {
            let c = opts.window.unwrap_or_else(|| {
                planner::plan_window_with::<C>(pts.len(), hbits, kernel.is_some()).window
            });
            report.window = c;
            report.glv = true;
            report.simd = kernel.is_some();
            return pippenger_batch_affine_with(&pts, &ks, hbits, c, kernel);
        }
    }
    let c = opts
        .window
        .unwrap_or_else(|| planner::plan_window_with::<C>(n, bits, kernel.is_some()).window);
    report.window = c;
    report.simd = kernel.is_some();
    pippenger_batch_affine_with(points, scalars, bits, c, kernel)
}

/// Few distinct values: sum the points of each value, then a short MSM over the sums.
fn try_grouped<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    opts: &FastOptions,
    report: &mut FastReport,
) -> Option<Xyzz<C>> {
    let n = scalars.len();
    if n < 64 {
        return None;
    }
    // Cheap test on an evenly spaced sample before hashing everything.
    let sample = 2048.min(n);
    let step = n / sample;
    let distinct: HashSet<[u64; 4]> = (0..sample).map(|i| scalars[i * step]).collect();
    if distinct.len() * 4 > sample {
        return None;
    }
    let mut ids: HashMap<[u64; 4], u32> = HashMap::new();
    let mut gid = Vec::with_capacity(n);
    for k in scalars {
        let next = ids.len() as u32;
        let id = *ids.entry(*k).or_insert(next);
        gid.push(id);
        if ids.len() * 8 > n {
            return None;
        }
    }
    let d = ids.len();
    let mut counts = vec![0usize; d + 1];
    for &g in &gid {
        counts[g as usize + 1] += 1;
    }
    for g in 0..d {
        counts[g + 1] += counts[g];
    }
    let starts = counts.clone();
    let mut pos = counts;
    let mut sorted = vec![Affine::<C>::identity(); n];
    for (i, &g) in gid.iter().enumerate() {
        sorted[pos[g as usize]] = points[i];
        pos[g as usize] += 1;
    }
    let sums = sum_segments(sorted, &starts);
    let mut values = vec![[0u64; 4]; d];
    for (k, &g) in ids.iter() {
        values[g as usize] = *k;
    }
    report.grouped = true;
    let inner = FastOptions {
        group_equal: false,
        partition: false,
        ..opts.clone()
    };
    let mut r = FastReport::default();
    let out = msm_large(&sums, &values, &inner, &mut r);
    report.window = r.window;
    report.glv = r.glv;
    report.simd = r.simd;
    Some(out)
}

/// The fast engine on canonical scalars.
pub fn msm_fast_limbs<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    opts: &FastOptions,
    report: &mut FastReport,
) -> Xyzz<C> {
    let n = points.len();
    if !opts.partition {
        report.large = n;
        if opts.group_equal {
            if let Some(r) = try_grouped(points, scalars, opts, report) {
                return r;
            }
        }
        return msm_large(points, scalars, opts, report);
    }
    // Classes: 0 zero, 1 one, 2 ≤ 16 bits, 3 ≤ 64 bits, 4 large.
    let class = |k: &[u64; 4]| -> u8 {
        let b = bit_len(k);
        match b {
            0 => 0,
            1 => 1,
            2..=16 => 2,
            17..=64 => 3,
            _ => 4,
        }
    };
    let counts = scalars
        .par_chunks(8192)
        .map(|ch| {
            let mut c = [0usize; 5];
            for k in ch {
                c[class(k) as usize] += 1;
            }
            c
        })
        .reduce(
            || [0usize; 5],
            |a, b| {
                [
                    a[0] + b[0],
                    a[1] + b[1],
                    a[2] + b[2],
                    a[3] + b[3],
                    a[4] + b[4],
                ]
            },
        );
    report.zeros = counts[0];
    report.ones = counts[1];
    report.small = counts[2] + counts[3];
    report.large = counts[4];
    let inner = FastOptions {
        partition: false,
        ..opts.clone()
    };
    if counts[4] == n {
        return msm_fast_limbs(points, scalars, &inner, report);
    }
    let mut parts: [Part<C>; 5] = Default::default();
    for (p, k) in points.iter().zip(scalars) {
        let cl = class(k) as usize;
        if cl == 0 {
            continue;
        }
        parts[cl].0.push(*p);
        if cl != 1 {
            parts[cl].1.push(*k);
        }
    }
    let mut total = sum_points(&parts[1].0);
    let mut sub = FastReport::default();
    for cl in [2usize, 3] {
        if !parts[cl].0.is_empty() {
            let r = msm_fast_limbs(&parts[cl].0, &parts[cl].1, &inner, &mut sub);
            total = total.add_xyzz(&r);
        }
    }
    if !parts[4].0.is_empty() {
        let mut big = FastReport::default();
        let r = msm_fast_limbs(&parts[4].0, &parts[4].1, &inner, &mut big);
        report.window = big.window;
        report.glv = big.glv;
        report.grouped = big.grouped;
        total = total.add_xyzz(&r);
    } else {
        report.window = sub.window;
    }
    total
}

/// Used by the planner's report: the plan the fast engine would pick for `n` full-size
/// scalars of `C`.
pub fn default_plan<C: MsmCurve>(n: usize) -> Plan {
    planner::plan::<C>(n)
}

#[cfg(test)]
mod tests {
    use super::window_tasks;

    /// Every window's points are covered exactly once, windows divide evenly among the
    /// threads, and small inputs are not split.
    #[test]
    fn window_tasks_cover_every_point_once() {
        for (m, n, threads) in [
            (17, 1 << 18, 2),
            (16, 5000, 2),
            (19, 3001, 3),
            (5, 9000, 8),
            (17, 1000, 2),
            (3, 0, 2),
            (1, 1, 1),
        ] {
            let tasks = window_tasks(m, n, threads);
            let mut covered = vec![0usize; m];
            for &(w, s, e) in &tasks {
                assert!(s < e && e <= n, "{m} {n} {threads}: part {s}..{e}");
                covered[w] += e - s;
            }
            assert!(
                covered.iter().all(|&c| c == n),
                "{m} {n} {threads}: {covered:?}"
            );
            let parts = threads.min(n.div_ceil(1024)).max(1);
            let expected = if parts > 1 {
                m - m % threads + (m % threads) * parts
            } else if n == 0 {
                0
            } else {
                m
            };
            assert_eq!(tasks.len(), expected, "{m} {n} {threads}");
        }
        // 17 windows on two threads: 16 whole ones, then the last one in halves.
        let t = window_tasks(17, 1 << 18, 2);
        assert_eq!(t[15], (15, 0, 1 << 18));
        assert_eq!(&t[16..], &[(16, 0, 1 << 17), (16, 1 << 17, 1 << 18)]);
    }
}
