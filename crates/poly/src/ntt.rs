//! The NTT kernels behind [`crate::Radix2Domain`].
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

use std::any::TypeId;

use fastzk_field::packed::Backend;
use fastzk_field::{Goldilocks, PrimeField};
use rayon::prelude::*;

/// Bytes of a contiguous block that finishes its levels in cache (L2 on current x86).
const BLOCK_BYTES: usize = 1 << 18;
/// Bytes of one row segment of a column tile.
const TILE_BYTES: usize = 512;
/// At most this many levels per column pass (2^L row segments per tile).
const MAX_COLUMN_LEVELS: u32 = 9;

#[inline(always)]
fn is_gl<F: 'static>() -> bool {
    TypeId::of::<F>() == TypeId::of::<Goldilocks>()
}

#[inline(always)]
fn gl_slice<F: 'static>(x: &mut [F]) -> &mut [Goldilocks] {
    debug_assert!(is_gl::<F>());
    // SAFETY: only called when F is Goldilocks.
    unsafe { core::slice::from_raw_parts_mut(x.as_mut_ptr().cast(), x.len()) }
}
#[inline(always)]
fn gl_ref<F: 'static>(x: &[F]) -> &[Goldilocks] {
    debug_assert!(is_gl::<F>());
    // SAFETY: only called when F is Goldilocks.
    unsafe { core::slice::from_raw_parts(x.as_ptr().cast(), x.len()) }
}
#[inline(always)]
fn gl_val<F: 'static + Copy>(x: F) -> Goldilocks {
    debug_assert!(is_gl::<F>());
    // SAFETY: only called when F is Goldilocks.
    unsafe { core::mem::transmute_copy(&x) }
}

/// `(lo, hi) ← (lo + s·hi, lo − s·hi)` element-wise.
#[inline]
fn ct_rows<F: PrimeField>(lo: &mut [F], hi: &mut [F], s: F) {
    if is_gl::<F>() {
        let _ = Backend::detect().butterfly_ct(gl_slice(lo), gl_slice(hi), gl_val(s));
        return;
    }
    for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
        let v = *h * s;
        *h = *l - v;
        *l += v;
    }
}

/// `(lo, hi) ← (c·(lo + hi), c·s·(lo − hi))` element-wise (`c = 1` when `None`).
#[inline]
fn gs_rows<F: PrimeField>(lo: &mut [F], hi: &mut [F], s: F, c: Option<F>) {
    if is_gl::<F>() {
        let _ =
            Backend::detect().butterfly_gs(gl_slice(lo), gl_slice(hi), gl_val(s), c.map(gl_val));
        return;
    }
    match c {
        None => {
            for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
                let (u, v) = (*l, *h);
                *l = u + v;
                *h = (u - v) * s;
            }
        }
        Some(c) => {
            let sc = s * c;
            for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
                let (u, v) = (*l, *h);
                *l = (u + v) * c;
                *h = (u - v) * sc;
            }
        }
    }
}

fn log2(n: usize) -> u32 {
    debug_assert!(n.is_power_of_two());
    n.trailing_zeros()
}

fn block_log<F>(n: usize, parallel: bool) -> u32 {
    let cache = log2((BLOCK_BYTES / core::mem::size_of::<F>()).next_power_of_two());
    if parallel {
        // Leave at least 8 row blocks per thread so rayon can balance them.
        let threads = rayon::current_num_threads().next_power_of_two();
        let want = log2(threads) + 3;
        cache.min(log2(n).saturating_sub(want)).max(6)
    } else {
        cache
    }
}

/// All levels of a contiguous block that is block `base` at its top level (CT, forward).
fn ct_block<F: PrimeField>(x: &mut [F], w: &[F], base: usize) {
    let n = x.len();
    let k = log2(n);
    let tail = if is_gl::<F>() && n >= 16 { 3 } else { 0 };
    for t in 0..k - tail {
        let h = n >> (t + 1);
        let tw = &w[base << t..(base << t) + (1 << t)];
        if h == 1 {
            for (pair, &s) in x.chunks_exact_mut(2).zip(tw) {
                let v = pair[1] * s;
                pair[1] = pair[0] - v;
                pair[0] += v;
            }
        } else {
            for (blk, &s) in x.chunks_exact_mut(2 * h).zip(tw) {
                let (lo, hi) = blk.split_at_mut(h);
                ct_rows(lo, hi, s);
            }
        }
    }
    if tail == 3 {
        let _ = Backend::detect().ntt_ct_last3(gl_slice(x), gl_ref(w), base << (k - 3));
    }
}

/// All levels of a contiguous block (GS, inverse, bit-reversed input). `scale` multiplies
/// the outputs of level 0 and is only passed for the whole array.
fn gs_block<F: PrimeField>(x: &mut [F], w_inv: &[F], base: usize, scale: Option<F>) {
    let n = x.len();
    let k = log2(n);
    let head = if is_gl::<F>() && n >= 16 { 3 } else { 0 };
    if head == 3 {
        let _ = Backend::detect().ntt_gs_first3(gl_slice(x), gl_ref(w_inv), base << (k - 3));
    }
    for t in (0..k - head).rev() {
        let h = n >> (t + 1);
        let tw = &w_inv[base << t..(base << t) + (1 << t)];
        let c = if t == 0 { scale } else { None };
        if h == 1 && c.is_none() {
            for (pair, &s) in x.chunks_exact_mut(2).zip(tw) {
                let (u, v) = (pair[0], pair[1]);
                pair[0] = u + v;
                pair[1] = (u - v) * s;
            }
        } else {
            for (blk, &s) in x.chunks_exact_mut(2 * h).zip(tw) {
                let (lo, hi) = blk.split_at_mut(h);
                gs_rows(lo, hi, s, c);
            }
        }
    }
    if k == 0 {
        if let Some(c) = scale {
            x[0] *= c;
        }
    }
}

struct SendPtr<F>(*mut F);
impl<F> Clone for SendPtr<F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F> Copy for SendPtr<F> {}
// SAFETY: used only to hand disjoint column tiles of one exclusively borrowed slice to
// rayon workers.
unsafe impl<F: Send> Send for SendPtr<F> {}
unsafe impl<F: Send> Sync for SendPtr<F> {}

impl<F> SendPtr<F> {
    #[inline(always)]
    fn at(self, i: usize) -> *mut F {
        self.0.wrapping_add(i)
    }
    /// SAFETY: `[off, off+len)` lies in the slice and no other live reference overlaps it.
    #[inline(always)]
    unsafe fn slice<'a>(self, off: usize, len: usize) -> &'a mut [F] {
        core::slice::from_raw_parts_mut(self.0.add(off), len)
    }
}

/// Runs `f(tile_start, tile_width)` over the column tiles of a `rows × cols` matrix.
fn for_each_tile<F: Send>(cols: usize, parallel: bool, f: impl Fn(usize, usize) + Sync) {
    let tile = (TILE_BYTES / core::mem::size_of::<F>()).max(1).min(cols);
    let ntiles = cols / tile;
    if parallel {
        (0..ntiles)
            .into_par_iter()
            .for_each(|ti| f(ti * tile, tile));
    } else {
        (0..ntiles).for_each(|ti| f(ti * tile, tile));
    }
}

/// The top `l` CT levels of `x` (block `base`), on column tiles.
fn ct_columns<F: PrimeField>(x: &mut [F], w: &[F], base: usize, l: u32, parallel: bool) {
    let cols = x.len() >> l;
    let rows = 1usize << l;
    let ptr = SendPtr(x.as_mut_ptr());
    for_each_tile::<F>(cols, parallel, |c0, width| {
        for t in 0..l {
            let half = rows >> (t + 1);
            for i in 0..1usize << t {
                let s = w[(base << t) + i];
                for r in i * 2 * half..i * 2 * half + half {
                    // SAFETY: rows r and r + half differ; this tile owns columns
                    // [c0, c0 + width) of every row and nothing else touches them.
                    let (lo, hi) = unsafe {
                        (
                            ptr.slice(r * cols + c0, width),
                            ptr.slice((r + half) * cols + c0, width),
                        )
                    };
                    ct_rows(lo, hi, s);
                }
            }
        }
    });
}

/// The top `l` GS levels of `x` (block `base`) in reverse order, on column tiles.
fn gs_columns<F: PrimeField>(
    x: &mut [F],
    w_inv: &[F],
    base: usize,
    l: u32,
    parallel: bool,
    scale: Option<F>,
) {
    let cols = x.len() >> l;
    let rows = 1usize << l;
    let ptr = SendPtr(x.as_mut_ptr());
    for_each_tile::<F>(cols, parallel, |c0, width| {
        for t in (0..l).rev() {
            let half = rows >> (t + 1);
            let c = if t == 0 { scale } else { None };
            for i in 0..1usize << t {
                let s = w_inv[(base << t) + i];
                for r in i * 2 * half..i * 2 * half + half {
                    // SAFETY: as in `ct_columns`.
                    let (lo, hi) = unsafe {
                        (
                            ptr.slice(r * cols + c0, width),
                            ptr.slice((r + half) * cols + c0, width),
                        )
                    };
                    gs_rows(lo, hi, s, c);
                }
            }
        }
    });
}

/// Forward CT transform of `x` (natural in, bit-reversed out); `x` is block `base`.
pub(crate) fn ct<F: PrimeField>(x: &mut [F], w: &[F], base: usize, parallel: bool) {
    let k = log2(x.len());
    let bl = block_log::<F>(x.len(), parallel);
    if k <= bl {
        return ct_block(x, w, base);
    }
    let l = (k - bl).min(MAX_COLUMN_LEVELS);
    ct_columns(x, w, base, l, parallel);
    let cols = x.len() >> l;
    // There are at least 8 row blocks per thread here (see `block_log`), so each runs on
    // one thread.
    if parallel {
        x.par_chunks_mut(cols)
            .enumerate()
            .for_each(|(r, sub)| ct(sub, w, (base << l) | r, false));
    } else {
        for (r, sub) in x.chunks_mut(cols).enumerate() {
            ct(sub, w, (base << l) | r, false);
        }
    }
}

/// Inverse GS transform (bit-reversed in, natural out), without the `1/n` unless `scale`.
pub(crate) fn gs<F: PrimeField>(
    x: &mut [F],
    w_inv: &[F],
    base: usize,
    parallel: bool,
    scale: Option<F>,
) {
    let k = log2(x.len());
    let bl = block_log::<F>(x.len(), parallel);
    if k <= bl {
        return gs_block(x, w_inv, base, scale);
    }
    let l = (k - bl).min(MAX_COLUMN_LEVELS);
    let cols = x.len() >> l;
    // There are at least 8 row blocks per thread here (see `block_log`), so each runs on
    // one thread.
    if parallel {
        x.par_chunks_mut(cols)
            .enumerate()
            .for_each(|(r, sub)| gs(sub, w_inv, (base << l) | r, false, None));
    } else {
        for (r, sub) in x.chunks_mut(cols).enumerate() {
            gs(sub, w_inv, (base << l) | r, false, None);
        }
    }
    gs_columns(x, w_inv, base, l, parallel, scale);
}

#[inline(always)]
pub(crate) fn reverse_bits(i: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - bits)
    }
}

/// In-place bit-reversal permutation, in `2^T × 2^T` tiles so that both sides of every
/// swap walk contiguous runs.
pub(crate) fn bit_reverse<F: Send>(x: &mut [F], parallel: bool) {
    const T: u32 = 4;
    let n = x.len();
    let k = log2(n);
    if k < 2 * T + 2 {
        for i in 0..n {
            let j = reverse_bits(i, k);
            if i < j {
                x.swap(i, j);
            }
        }
        return;
    }
    let m = k - 2 * T;
    let ptr = SendPtr(x.as_mut_ptr());
    let work = |a: usize| {
        let ar = reverse_bits(a, m);
        if a > ar {
            return;
        }
        for hi in 0..1usize << T {
            let rhi = reverse_bits(hi, T);
            for lo in 0..1usize << T {
                let i = (hi << (k - T)) | (a << T) | lo;
                let j = (reverse_bits(lo, T) << (k - T)) | (ar << T) | rhi;
                if a < ar || i < j {
                    // SAFETY: i != j, both < n; the pair {a, ar} is handled by exactly one
                    // task (the smaller), and i, j have middle bits a and ar.
                    unsafe { core::ptr::swap(ptr.at(i), ptr.at(j)) };
                }
            }
        }
    };
    if parallel {
        (0..1usize << m).into_par_iter().for_each(work);
    } else {
        (0..1usize << m).for_each(work);
    }
}
