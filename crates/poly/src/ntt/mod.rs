//! The NTT drivers behind [`crate::Radix2Domain`], written once against
//! [`fastzk_field::NttField`] (whose butterflies a field may override: lazy radix-4 for
//! BN254, packed lanes for Goldilocks).
//!
//! Notation: `n = 2^k`, `w[i] = ω^brv_{k−1}(i)` for `i < n/2` (the bit-reversed twiddle
//! table). The Cooley–Tukey transform with bit-reversed output runs levels `t = 0..k`; at
//! level `t` the array is `2^t` blocks of `2h = n/2^t` elements and block `i` uses the single
//! twiddle `w[i]`: `(x[j], x[j+h]) ← (x[j] + w[i]·x[j+h], x[j] − w[i]·x[j+h])`. (Block `i`
//! holds the residue modulo `X^{2h} − ω^{2h·brv(i)}`, which splits into `X^h ∓ w[i]`.) The
//! table does not depend on `n` beyond its length, so a sub-array that is block `b` at its
//! top level uses `w[b·2^t + i]` at its level `t`. The Gentleman–Sande inverse runs the
//! same levels backwards with `w⁻¹`.
//!
//! Blocking (four-step): a sub-array larger than the cache block is viewed as a `2^L × C`
//! row-major matrix. Its top `L` levels only combine elements of the same column, so they
//! run on tiles of a few columns (one tile fits in L1/L2; tiles run in parallel); then each
//! row is a contiguous sub-array that finishes its levels in cache (rows run in parallel).

mod bitrev;

pub(crate) use bitrev::bit_reverse;
pub use bitrev::reverse_bits;

use fastzk_field::{LengthMismatch, NttField};
use rayon::prelude::*;

/// Bytes of a contiguous block that finishes its levels in cache (L2 on current x86).
const BLOCK_BYTES: usize = 1 << 18;
/// Bytes of one row segment of a column tile.
const TILE_BYTES: usize = 512;
/// At most this many levels per column pass (2^L row segments per tile).
const MAX_COLUMN_LEVELS: u32 = 9;

type Result<T = ()> = core::result::Result<T, LengthMismatch>;

fn log2(n: usize) -> u32 {
    debug_assert!(n.is_power_of_two());
    n.trailing_zeros()
}

fn block_log<F>(n: usize, parallel: bool) -> u32 {
    let cache = log2((BLOCK_BYTES / size_of::<F>()).next_power_of_two());
    if parallel {
        // Leave at least 8 row blocks per thread so rayon can balance them.
        let threads = rayon::current_num_threads().next_power_of_two();
        let want = log2(threads) + 3;
        cache.min(log2(n).saturating_sub(want)).max(6)
    } else {
        cache
    }
}

/// The quarters of a block.
fn quarters<F>(blk: &mut [F]) -> [&mut [F]; 4] {
    let q = blk.len() / 4;
    let (a, rest) = blk.split_at_mut(q);
    let (b, rest) = rest.split_at_mut(q);
    let (c, d) = rest.split_at_mut(q);
    [a, b, c, d]
}

/// All levels of a contiguous block that is block `base` at its top level (CT, forward).
/// The block's last level is the transform's last.
fn ct_block<F: NttField>(x: &mut [F], w: &[F], base: usize) -> Result {
    let n = x.len();
    let k = log2(n);
    let tail = if F::FUSED_LAST3 && n >= 16 { 3 } else { 0 };
    let levels = k - tail;
    let mut t = 0;
    if F::RADIX4 {
        while t + 1 < levels {
            let q = n >> (t + 2);
            let tw0 = &w[base << t..(base << t) + (1 << t)];
            let tw1 = &w[base << (t + 1)..(base << (t + 1)) + (2 << t)];
            for ((blk, &s), s01) in x.chunks_exact_mut(4 * q).zip(tw0).zip(tw1.chunks_exact(2)) {
                F::ct_quad(quarters(blk), [s, s01[0], s01[1]], t + 2 == k)?;
            }
            t += 2;
        }
    }
    while t < levels {
        let h = n >> (t + 1);
        let tw = &w[base << t..(base << t) + (1 << t)];
        let last = t + 1 == k;
        if h == 1 {
            F::ct_pairs(x, tw, last)?;
        } else {
            for (blk, &s) in x.chunks_exact_mut(2 * h).zip(tw) {
                let (lo, hi) = blk.split_at_mut(h);
                F::ct_rows(lo, hi, s, last)?;
            }
        }
        t += 1;
    }
    if tail == 3 {
        F::ct_last3(x, w, base << (k - 3))?;
    }
    Ok(())
}

/// All levels of a contiguous block (GS, inverse, bit-reversed input). `scale` multiplies
/// the outputs of level 0 and is only passed for the whole array; `last` says that level 0
/// is the last level of the whole transform.
fn gs_block<F: NttField>(
    x: &mut [F],
    w_inv: &[F],
    base: usize,
    scale: Option<F>,
    last: bool,
) -> Result {
    let n = x.len();
    let k = log2(n);
    let head = if F::FUSED_LAST3 && n >= 16 { 3 } else { 0 };
    if head == 3 {
        F::gs_first3(x, w_inv, base << (k - 3))?;
    }
    // Levels run from k − head − 1 down to 0: one at a time while a quarter block is
    // shorter than eight, then (radix-4 fields) two at a time.
    let mut t = k - head;
    let level = |x: &mut [F], t: u32| -> Result {
        let h = n >> (t + 1);
        let tw = &w_inv[base << t..(base << t) + (1 << t)];
        let c = if t == 0 { scale } else { None };
        let fin = last && t == 0;
        if h == 1 && c.is_none() {
            F::gs_pairs(x, tw, fin)
        } else {
            x.chunks_exact_mut(2 * h).zip(tw).try_for_each(|(blk, &s)| {
                let (lo, hi) = blk.split_at_mut(h);
                F::gs_rows(lo, hi, s, c, fin)
            })
        }
    };
    while t > 0 && !(F::RADIX4 && t >= 2 && n >> t >= 8) {
        t -= 1;
        level(x, t)?;
    }
    if F::RADIX4 {
        while t >= 2 {
            let lt = t - 2;
            let q = n >> t;
            let tw0 = &w_inv[base << lt..(base << lt) + (1 << lt)];
            let tw1 = &w_inv[base << (lt + 1)..(base << (lt + 1)) + (2 << lt)];
            let c = if lt == 0 { scale } else { None };
            let fin = last && lt == 0;
            for ((blk, &s), s01) in x.chunks_exact_mut(4 * q).zip(tw0).zip(tw1.chunks_exact(2)) {
                F::gs_quad(quarters(blk), [s, s01[0], s01[1]], c, fin)?;
            }
            t -= 2;
        }
    }
    while t > 0 {
        t -= 1;
        level(x, t)?;
    }
    if k == 0 {
        if let Some(c) = scale {
            x[0] *= c;
        }
    }
    Ok(())
}

struct SendPtr<F>(*mut F);
impl<F> Clone for SendPtr<F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F> Copy for SendPtr<F> {}
// SAFETY: used only to hand disjoint column tiles of one exclusively borrowed slice (or
// disjoint swap pairs) to rayon workers.
unsafe impl<F: Send> Send for SendPtr<F> {}
// SAFETY: as for `Send`: shared only to derive pointers to disjoint parts.
unsafe impl<F: Send> Sync for SendPtr<F> {}

impl<F> SendPtr<F> {
    #[inline(always)]
    fn at(self, i: usize) -> *mut F {
        self.0.wrapping_add(i)
    }
}

/// Columns `[c0, c0 + width)` of every row of a row-major matrix with `cols` columns,
/// owned by one worker: no other live reference touches them.
struct Tile<F> {
    ptr: SendPtr<F>,
    rows: usize,
    cols: usize,
    c0: usize,
    width: usize,
}

impl<F> Tile<F> {
    /// The tile's segments of `K` distinct rows.
    #[inline(always)]
    fn rows<const K: usize>(&mut self, r: [usize; K]) -> [&mut [F]; K] {
        for i in 0..K {
            assert!(r[i] < self.rows, "tile row out of range");
            for j in 0..i {
                assert_ne!(r[i], r[j], "tile rows must differ");
            }
        }
        // SAFETY: the rows lie in the matrix and differ (both checked), so the segments
        // are in bounds and disjoint; this tile owns these columns of every row, and
        // `&mut self` keeps the segments from outliving a second call.
        r.map(|r| unsafe {
            core::slice::from_raw_parts_mut(self.ptr.0.add(r * self.cols + self.c0), self.width)
        })
    }
}

/// Runs `f` on every column tile of the matrix `x` with `cols` columns.
fn for_each_tile<F: Send>(
    x: &mut [F],
    cols: usize,
    parallel: bool,
    f: impl Fn(&mut Tile<F>) -> Result + Sync,
) -> Result {
    let width = (TILE_BYTES / size_of::<F>()).max(1).min(cols);
    let ntiles = cols / width;
    let rows = x.len() / cols;
    let ptr = SendPtr(x.as_mut_ptr());
    let run = |ti: usize| {
        f(&mut Tile {
            ptr,
            rows,
            cols,
            c0: ti * width,
            width,
        })
    };
    if parallel {
        (0..ntiles).into_par_iter().try_for_each(run)
    } else {
        (0..ntiles).try_for_each(run)
    }
}

/// The top `l` CT levels of `x` (block `base`), on column tiles.
fn ct_columns<F: NttField>(x: &mut [F], w: &[F], base: usize, l: u32, parallel: bool) -> Result {
    let cols = x.len() >> l;
    let rows = 1usize << l;
    for_each_tile(x, cols, parallel, |tile| {
        let mut t = 0;
        if F::RADIX4 {
            while t + 1 < l {
                let q = rows >> (t + 2);
                for i in 0..1usize << t {
                    let s = w[(base << t) + i];
                    let s0 = w[(base << (t + 1)) + 2 * i];
                    let s1 = w[(base << (t + 1)) + 2 * i + 1];
                    for r in 4 * i * q..4 * i * q + q {
                        let rows = tile.rows([r, r + q, r + 2 * q, r + 3 * q]);
                        F::ct_quad(rows, [s, s0, s1], false)?;
                    }
                }
                t += 2;
            }
        }
        while t < l {
            let half = rows >> (t + 1);
            for i in 0..1usize << t {
                let s = w[(base << t) + i];
                for r in i * 2 * half..i * 2 * half + half {
                    let [lo, hi] = tile.rows([r, r + half]);
                    F::ct_rows(lo, hi, s, false)?;
                }
            }
            t += 1;
        }
        Ok(())
    })
}

/// The top `l` GS levels of `x` (block `base`) in reverse order, on column tiles.
fn gs_columns<F: NttField>(
    x: &mut [F],
    w_inv: &[F],
    base: usize,
    l: u32,
    parallel: bool,
    scale: Option<F>,
    last: bool,
) -> Result {
    let cols = x.len() >> l;
    let rows = 1usize << l;
    for_each_tile(x, cols, parallel, |tile| {
        let mut t = l;
        if F::RADIX4 {
            while t >= 2 {
                let lt = t - 2;
                let q = rows >> t;
                let c = if lt == 0 { scale } else { None };
                let fin = last && lt == 0;
                for i in 0..1usize << lt {
                    let s = w_inv[(base << lt) + i];
                    let s0 = w_inv[(base << (lt + 1)) + 2 * i];
                    let s1 = w_inv[(base << (lt + 1)) + 2 * i + 1];
                    for r in 4 * i * q..4 * i * q + q {
                        let rows = tile.rows([r, r + q, r + 2 * q, r + 3 * q]);
                        F::gs_quad(rows, [s, s0, s1], c, fin)?;
                    }
                }
                t -= 2;
            }
        }
        while t > 0 {
            t -= 1;
            let half = rows >> (t + 1);
            let c = if t == 0 { scale } else { None };
            let fin = last && t == 0;
            for i in 0..1usize << t {
                let s = w_inv[(base << t) + i];
                for r in i * 2 * half..i * 2 * half + half {
                    let [lo, hi] = tile.rows([r, r + half]);
                    F::gs_rows(lo, hi, s, c, fin)?;
                }
            }
        }
        Ok(())
    })
}

/// Forward CT transform of `x` (natural in, bit-reversed out); `x` is block `base`.
pub(crate) fn ct<F: NttField>(x: &mut [F], w: &[F], base: usize, parallel: bool) -> Result {
    let k = log2(x.len());
    let bl = block_log::<F>(x.len(), parallel);
    if k <= bl {
        return ct_block(x, w, base);
    }
    let mut l = (k - bl).min(MAX_COLUMN_LEVELS);
    if F::RADIX4 && l % 2 == 1 && l < MAX_COLUMN_LEVELS {
        // Radix-4 kernels: an even number of column levels (one more, smaller rows).
        l += 1;
    }
    ct_columns(x, w, base, l, parallel)?;
    let cols = x.len() >> l;
    // There are at least 8 row blocks per thread here (see `block_log`), so each runs on
    // one thread.
    if parallel {
        x.par_chunks_mut(cols)
            .enumerate()
            .try_for_each(|(r, sub)| ct(sub, w, (base << l) | r, false))
    } else {
        x.chunks_mut(cols)
            .enumerate()
            .try_for_each(|(r, sub)| ct(sub, w, (base << l) | r, false))
    }
}

/// Inverse GS transform (bit-reversed in, natural out), without the `1/n` unless `scale`.
pub(crate) fn gs<F: NttField>(
    x: &mut [F],
    w_inv: &[F],
    base: usize,
    parallel: bool,
    scale: Option<F>,
) -> Result {
    gs_impl(x, w_inv, base, parallel, scale, true)
}

/// [`gs`]; `last` says this call ends the whole transform (its level 0 is the last).
fn gs_impl<F: NttField>(
    x: &mut [F],
    w_inv: &[F],
    base: usize,
    parallel: bool,
    scale: Option<F>,
    last: bool,
) -> Result {
    let k = log2(x.len());
    let bl = block_log::<F>(x.len(), parallel);
    if k <= bl {
        return gs_block(x, w_inv, base, scale, last);
    }
    let l = (k - bl).min(MAX_COLUMN_LEVELS);
    let cols = x.len() >> l;
    // There are at least 8 row blocks per thread here (see `block_log`), so each runs on
    // one thread.
    let row =
        |(r, sub): (usize, &mut [F])| gs_impl(sub, w_inv, (base << l) | r, false, None, false);
    if parallel {
        x.par_chunks_mut(cols).enumerate().try_for_each(row)?;
    } else {
        x.chunks_mut(cols).enumerate().try_for_each(row)?;
    }
    gs_columns(x, w_inv, base, l, parallel, scale, last)
}
