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
use fastzk_field::{bn254, Goldilocks, PrimeField};
use rayon::prelude::*;

/// The field whose butterflies run with lazy (Harvey) reduction: BN254 `Fr` has two spare
/// bits, so forward values live in `[0, 4p)` and inverse values in `[0, 2p)` between
/// levels, and only the last level canonicalises.
type Lazy = bn254::Fr;
const _: () = assert!(Lazy::SPARE_BITS >= 2, "lazy butterflies need p < R/4");

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
fn is_lazy<F: 'static>() -> bool {
    TypeId::of::<F>() == TypeId::of::<Lazy>()
}

#[inline(always)]
fn lz_slice<F: 'static>(x: &mut [F]) -> &mut [Lazy] {
    debug_assert!(is_lazy::<F>());
    // SAFETY: only called when F is `Lazy`.
    unsafe { core::slice::from_raw_parts_mut(x.as_mut_ptr().cast(), x.len()) }
}
#[inline(always)]
fn lz_ref<F: 'static>(x: &[F]) -> &[Lazy] {
    debug_assert!(is_lazy::<F>());
    // SAFETY: only called when F is `Lazy`.
    unsafe { core::slice::from_raw_parts(x.as_ptr().cast(), x.len()) }
}
#[inline(always)]
fn lz_val<F: 'static + Copy>(x: F) -> Lazy {
    debug_assert!(is_lazy::<F>());
    // SAFETY: only called when F is `Lazy`.
    unsafe { core::mem::transmute_copy(&x) }
}

/// Lazy CT rows: inputs in `[0, 4p)`, outputs in `[0, 4p)` (canonical when `last`).
#[inline]
fn ct_rows_lazy(lo: &mut [Lazy], hi: &mut [Lazy], s: Lazy, last: bool) {
    let n = lo.len().min(hi.len());
    let (lo, hi) = (&mut lo[..n], &mut hi[..n]);
    for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
        let x = l.reduce_below_2p();
        let t = h.mul_lazy(&s);
        let (a, b) = (x.add_lazy(&t), x.sub_lazy(&t));
        if last {
            *l = a.canonicalize_lazy();
            *h = b.canonicalize_lazy();
        } else {
            *l = a;
            *h = b;
        }
    }
}

/// `y·s` in `[0, 2p)` for any `y < R` and canonical `s`, on the backend fixed by `ADX`.
#[inline(always)]
fn mul_lz<const ADX: bool>(y: &Lazy, s: &Lazy) -> Lazy {
    if ADX {
        // SAFETY: kernels with `ADX = true` are only called after `uses_adx()` returned
        // true (see `ct_quad_lazy`).
        unsafe { y.mul_lazy_adx(s) }
    } else {
        y.mul_lazy_portable(s)
    }
}

/// One lazy CT butterfly on values in `[0, 4p)`: `(x + s·y, x − s·y)`, both in `[0, 4p)`.
/// `ONE` says `s = 1` (the multiplication is skipped).
#[inline(always)]
fn bf_lazy<const ADX: bool, const ONE: bool>(x: Lazy, y: Lazy, s: &Lazy) -> (Lazy, Lazy) {
    let x = x.reduce_below_2p();
    let t = if ONE {
        y.reduce_below_2p()
    } else {
        mul_lz::<ADX>(&y, s)
    };
    (x.add_lazy(&t), x.sub_lazy(&t))
}

/// Two lazy CT levels at once (radix 4) on the quarters `a, b, c, d` of a block: level `t`
/// pairs `(a, c)` and `(b, d)` with `s`, level `t + 1` pairs `(a, b)` with `s0` and `(c, d)`
/// with `s1`. Values stay in `[0, 4p)`; canonical when `last`.
#[allow(clippy::too_many_arguments)]
fn ct_quad_lazy(
    a: &mut [Lazy],
    b: &mut [Lazy],
    c: &mut [Lazy],
    d: &mut [Lazy],
    s: Lazy,
    s0: Lazy,
    s1: Lazy,
    last: bool,
) {
    let one = s == Lazy::ONE && s0 == Lazy::ONE;
    macro_rules! go {
        ($($adx:literal, $one:literal, $last:literal);*) => {
            match (fastzk_field::uses_adx(), one, last) {
                $(($adx, $one, $last) => {
                    ct_quad_lazy_k::<$adx, $one, $last>(a, b, c, d, s, s0, s1)
                })*
            }
        };
    }
    go!(true, false, false; true, false, true; true, true, false; true, true, true;
        false, false, false; false, false, true; false, true, false; false, true, true)
}

/// [`ct_quad_lazy`] monomorphised on the backend, `s = s0 = 1` (`ONE`: the top two levels
/// of a transform) and `last`.
#[inline(never)]
fn ct_quad_lazy_k<const ADX: bool, const ONE: bool, const LAST: bool>(
    a: &mut [Lazy],
    b: &mut [Lazy],
    c: &mut [Lazy],
    d: &mut [Lazy],
    s: Lazy,
    s0: Lazy,
    s1: Lazy,
) {
    let q = a.len();
    let (b, c, d) = (&mut b[..q], &mut c[..q], &mut d[..q]);
    for (((a, b), c), d) in a
        .iter_mut()
        .zip(b.iter_mut())
        .zip(c.iter_mut())
        .zip(d.iter_mut())
    {
        let (y0, y2) = bf_lazy::<ADX, ONE>(*a, *c, &s);
        let (y1, y3) = bf_lazy::<ADX, ONE>(*b, *d, &s);
        let (z0, z1) = bf_lazy::<ADX, ONE>(y0, y1, &s0);
        let (z2, z3) = bf_lazy::<ADX, false>(y2, y3, &s1);
        if LAST {
            *a = z0.canonicalize_lazy();
            *b = z1.canonicalize_lazy();
            *c = z2.canonicalize_lazy();
            *d = z3.canonicalize_lazy();
        } else {
            *a = z0;
            *b = z1;
            *c = z2;
            *d = z3;
        }
    }
}

/// All CT levels of a contiguous block (block `base` at its top level), two at a time;
/// inputs in `[0, 4p)`, canonical outputs.
fn ct_block_lazy(x: &mut [Lazy], w: &[Lazy], base: usize) {
    let n = x.len();
    let k = log2(n);
    let mut t = 0;
    while t + 1 < k {
        let q = n >> (t + 2);
        let tw0 = &w[base << t..(base << t) + (1 << t)];
        let tw1 = &w[base << (t + 1)..(base << (t + 1)) + (2 << t)];
        for ((blk, &s), s01) in x.chunks_exact_mut(4 * q).zip(tw0).zip(tw1.chunks_exact(2)) {
            let (a, rest) = blk.split_at_mut(q);
            let (b, rest) = rest.split_at_mut(q);
            let (c, d) = rest.split_at_mut(q);
            ct_quad_lazy(a, b, c, d, s, s01[0], s01[1], t + 2 == k);
        }
        t += 2;
    }
    if t < k {
        ct_pairs_lazy(x, &w[base << t..(base << t) + (1 << t)]);
    }
}

/// Lazy last CT level (`h = 1`): canonical outputs.
#[inline]
fn ct_pairs_lazy(x: &mut [Lazy], tw: &[Lazy]) {
    for (pair, s) in x.chunks_exact_mut(2).zip(tw) {
        let u = pair[0].reduce_below_2p();
        let t = pair[1].mul_lazy(s);
        pair[0] = u.add_lazy(&t).canonicalize_lazy();
        pair[1] = u.sub_lazy(&t).canonicalize_lazy();
    }
}

/// Lazy GS rows: inputs in `[0, 2p)`; outputs in `[0, 2p)`, canonical when `last`
/// (`c` is only passed with `last`).
#[inline]
fn gs_rows_lazy(lo: &mut [Lazy], hi: &mut [Lazy], s: Lazy, c: Option<Lazy>, last: bool) {
    let n = lo.len().min(hi.len());
    let (lo, hi) = (&mut lo[..n], &mut hi[..n]);
    match (c, last) {
        (None, false) => {
            for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
                let (u, v) = (*l, *h);
                *l = u.add_lazy(&v).reduce_below_2p();
                *h = u.sub_lazy(&v).mul_lazy(&s);
            }
        }
        (None, true) => {
            for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
                let (u, v) = (*l, *h);
                *l = u.add_lazy(&v).canonicalize_lazy();
                *h = u.sub_lazy(&v).mul_lazy(&s).reduce_below_p();
            }
        }
        (Some(c), _) => {
            let sc = s * c;
            for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
                let (u, v) = (*l, *h);
                *l = u.add_lazy(&v).mul_lazy(&c).reduce_below_p();
                *h = u.sub_lazy(&v).mul_lazy(&sc).reduce_below_p();
            }
        }
    }
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
fn ct_rows<F: PrimeField>(lo: &mut [F], hi: &mut [F], s: F, last: bool) {
    if is_lazy::<F>() {
        return ct_rows_lazy(lz_slice(lo), lz_slice(hi), lz_val(s), last);
    }
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

/// `(lo, hi) ← (c·(lo + hi), c·s·(lo − hi))` element-wise (`c = 1` when `None`); `last`
/// marks the final level of the whole transform.
#[inline]
fn gs_rows<F: PrimeField>(lo: &mut [F], hi: &mut [F], s: F, c: Option<F>, last: bool) {
    if is_lazy::<F>() {
        return gs_rows_lazy(lz_slice(lo), lz_slice(hi), lz_val(s), c.map(lz_val), last);
    }
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
    if is_lazy::<F>() {
        return ct_block_lazy(lz_slice(x), lz_ref(w), base);
    }
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
                ct_rows(lo, hi, s, false);
            }
        }
    }
    if tail == 3 {
        let _ = Backend::detect().ntt_ct_last3(gl_slice(x), gl_ref(w), base << (k - 3));
    }
}

/// All levels of a contiguous block (GS, inverse, bit-reversed input). `scale` multiplies
/// the outputs of level 0 and is only passed for the whole array; `last` says that level 0
/// is the last level of the whole transform.
fn gs_block<F: PrimeField>(x: &mut [F], w_inv: &[F], base: usize, scale: Option<F>, last: bool) {
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
        let fin = last && t == 0;
        if h == 1 && c.is_none() && !is_lazy::<F>() {
            for (pair, &s) in x.chunks_exact_mut(2).zip(tw) {
                let (u, v) = (pair[0], pair[1]);
                pair[0] = u + v;
                pair[1] = (u - v) * s;
            }
        } else {
            for (blk, &s) in x.chunks_exact_mut(2 * h).zip(tw) {
                let (lo, hi) = blk.split_at_mut(h);
                gs_rows(lo, hi, s, c, fin);
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
    if is_lazy::<F>() {
        let w = lz_ref(w);
        let ptr = SendPtr(ptr.0.cast::<Lazy>());
        return for_each_tile::<F>(cols, parallel, |c0, width| {
            let mut t = 0;
            while t + 1 < l {
                let q = rows >> (t + 2);
                for i in 0..1usize << t {
                    let s = w[(base << t) + i];
                    let s0 = w[(base << (t + 1)) + 2 * i];
                    let s1 = w[(base << (t + 1)) + 2 * i + 1];
                    for r in 4 * i * q..4 * i * q + q {
                        // SAFETY: the four rows differ; this tile owns columns
                        // [c0, c0 + width) of every row and nothing else touches them.
                        let (a, b, c, d) = unsafe {
                            (
                                ptr.slice(r * cols + c0, width),
                                ptr.slice((r + q) * cols + c0, width),
                                ptr.slice((r + 2 * q) * cols + c0, width),
                                ptr.slice((r + 3 * q) * cols + c0, width),
                            )
                        };
                        ct_quad_lazy(a, b, c, d, s, s0, s1, false);
                    }
                }
                t += 2;
            }
            if t < l {
                let half = rows >> (t + 1);
                for i in 0..1usize << t {
                    let s = w[(base << t) + i];
                    for r in i * 2 * half..i * 2 * half + half {
                        // SAFETY: as above.
                        let (lo, hi) = unsafe {
                            (
                                ptr.slice(r * cols + c0, width),
                                ptr.slice((r + half) * cols + c0, width),
                            )
                        };
                        ct_rows_lazy(lo, hi, s, false);
                    }
                }
            }
        });
    }
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
                    ct_rows(lo, hi, s, false);
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
    last: bool,
) {
    let cols = x.len() >> l;
    let rows = 1usize << l;
    let ptr = SendPtr(x.as_mut_ptr());
    for_each_tile::<F>(cols, parallel, |c0, width| {
        for t in (0..l).rev() {
            let half = rows >> (t + 1);
            let c = if t == 0 { scale } else { None };
            let fin = last && t == 0;
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
                    gs_rows(lo, hi, s, c, fin);
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
    let mut l = (k - bl).min(MAX_COLUMN_LEVELS);
    if is_lazy::<F>() && l % 2 == 1 && l < MAX_COLUMN_LEVELS {
        // Radix-4 kernels: an even number of column levels (one more, smaller rows).
        l += 1;
    }
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
    gs_impl(x, w_inv, base, parallel, scale, true)
}

/// [`gs`]; `last` says this call ends the whole transform (its level 0 is the last).
fn gs_impl<F: PrimeField>(
    x: &mut [F],
    w_inv: &[F],
    base: usize,
    parallel: bool,
    scale: Option<F>,
    last: bool,
) {
    let k = log2(x.len());
    let bl = block_log::<F>(x.len(), parallel);
    if k <= bl {
        return gs_block(x, w_inv, base, scale, last);
    }
    let l = (k - bl).min(MAX_COLUMN_LEVELS);
    let cols = x.len() >> l;
    // There are at least 8 row blocks per thread here (see `block_log`), so each runs on
    // one thread.
    if parallel {
        x.par_chunks_mut(cols)
            .enumerate()
            .for_each(|(r, sub)| gs_impl(sub, w_inv, (base << l) | r, false, None, false));
    } else {
        for (r, sub) in x.chunks_mut(cols).enumerate() {
            gs_impl(sub, w_inv, (base << l) | r, false, None, false);
        }
    }
    gs_columns(x, w_inv, base, l, parallel, scale, last);
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
