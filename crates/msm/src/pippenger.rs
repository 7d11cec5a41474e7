//! Reference algorithms: the naive sum, serial Pippenger with the BDLO12 bucket
//! reduction (cuZK Algorithms 1–2), and the three naive parallelisations of cuZK §3.1.

use fastzk_curve::{Affine, Jacobian, Xyzz};
use rayon::prelude::*;

use crate::fast::combine_windows;
use crate::scalar::window_bits;
use crate::MsmCurve;

/// `Σ k_i·P_i` one scalar multiplication at a time (tests and tiny inputs only).
pub fn naive<C: MsmCurve>(points: &[Affine<C>], scalars: &[[u64; 4]]) -> Xyzz<C> {
    let mut acc = Jacobian::<C>::identity();
    for (p, k) in points.iter().zip(scalars) {
        acc = acc.add_jacobian(&p.mul_bigint(k));
    }
    Xyzz::from(acc)
}

/// Number of unsigned `c`-bit windows for `bits`-bit scalars.
pub fn unsigned_windows(bits: u32, c: u32) -> u32 {
    bits.div_ceil(c).max(1)
}

/// BDLO12 (cuZK Algorithm 2): `Σ_l l·B_l` with running sums, `B[l−1]` holding bucket `l`.
pub fn bucket_reduction<C: MsmCurve>(buckets: &[Xyzz<C>]) -> Xyzz<C> {
    let mut running = Xyzz::<C>::identity();
    let mut total = Xyzz::<C>::identity();
    for b in buckets.iter().rev() {
        running = running.add_xyzz(b);
        total = total.add_xyzz(&running);
    }
    total
}

/// One window's subtask `G_w = Σ_i m_iw·P_i` over a range of points, with XYZZ
/// buckets and mixed additions.
pub fn window_sum<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    w: u32,
    c: u32,
    buckets: &mut Vec<Xyzz<C>>,
) -> Xyzz<C> {
    buckets.clear();
    buckets.resize((1usize << c) - 1, Xyzz::identity());
    for (p, k) in points.iter().zip(scalars) {
        let m = window_bits(k, w * c, c) as usize;
        if m != 0 {
            buckets[m - 1] = buckets[m - 1].add_affine(p);
        }
    }
    bucket_reduction(buckets)
}

/// Serial Pippenger (cuZK Algorithm 1) with unsigned windows.
pub fn serial<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    bits: u32,
    c: u32,
) -> Xyzz<C> {
    let m = unsigned_windows(bits, c);
    let mut buckets = Vec::new();
    let sums: Vec<Xyzz<C>> = (0..m)
        .map(|w| window_sum(points, scalars, w, c, &mut buckets))
        .collect();
    combine_windows(&sums, c)
}

/// cuZK §3.1, first approach: one task per window.
pub fn parallel_windows<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    bits: u32,
    c: u32,
) -> Xyzz<C> {
    let m = unsigned_windows(bits, c);
    let sums: Vec<Xyzz<C>> = (0..m)
        .into_par_iter()
        .map_init(Vec::new, |buckets, w| {
            window_sum(points, scalars, w, c, buckets)
        })
        .collect();
    combine_windows(&sums, c)
}

/// cuZK §3.1, second approach: `t` independent serial Pippengers over point chunks.
pub fn parallel_chunks<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    bits: u32,
    c: u32,
) -> Xyzz<C> {
    let t = rayon::current_num_threads().max(1);
    let chunk = points.len().div_ceil(t).max(1);
    points
        .par_chunks(chunk)
        .zip(scalars.par_chunks(chunk))
        .map(|(p, k)| serial(p, k, bits, c))
        .reduce(Xyzz::identity, |a, b| a.add_xyzz(&b))
}

/// cuZK §3.1, third approach: `t/⌈λ/c⌉` point chunks, each run window-parallel.
pub fn parallel_hybrid<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    bits: u32,
    c: u32,
) -> Xyzz<C> {
    let t = rayon::current_num_threads().max(1);
    let m = unsigned_windows(bits, c) as usize;
    let parts = (t / m).max(1);
    let chunk = points.len().div_ceil(parts).max(1);
    let tasks: Vec<(usize, u32)> = (0..points.len().div_ceil(chunk))
        .flat_map(|ch| (0..m as u32).map(move |w| (ch, w)))
        .collect();
    let results: Vec<(u32, Xyzz<C>)> = tasks
        .into_par_iter()
        .map_init(Vec::new, |buckets, (ch, w)| {
            let s = ch * chunk;
            let e = (s + chunk).min(points.len());
            (w, window_sum(&points[s..e], &scalars[s..e], w, c, buckets))
        })
        .collect();
    let mut sums = vec![Xyzz::<C>::identity(); m];
    for (w, s) in results {
        sums[w as usize] = sums[w as usize].add_xyzz(&s);
    }
    combine_windows(&sums, c)
}
