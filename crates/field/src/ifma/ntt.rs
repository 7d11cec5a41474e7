//! NTT butterflies on eight IFMA lanes for 4-limb Montgomery fields with two spare bits
//! (BN254 `Fr` and `Fq`): lane versions of the lazy kernels in `mont/ntt.rs`, keeping
//! their ranges in memory — `[0, 4p)` between forward levels, `[0, 2p)` between inverse
//! levels, canonical after a transform's last level — so lane and scalar kernels mix
//! freely within one transform (the lanes take the columns in multiples of eight, the
//! scalar kernels the rest and the short blocks of the last levels).
//!
//! Elements stay in the scalar Montgomery form (`R = 2^256`) in memory and in registers;
//! only the twiddles are in IFMA form (`s·2^4`, see [`super::IfmaField::to_ifma`]): the
//! radix-2^52 product (`/2^260`) of a scalar-form value with an IFMA-form twiddle is the
//! scalar-form product, so no element is ever converted. Eight consecutive elements are
//! transposed into lanes as they are loaded (two rounds of `vpermt2q`) and back as they
//! are stored.
//!
//! Every function takes raw pointers to elements stored as four little-endian words, and
//! a length that is a multiple of eight; each is `inline(always)` and generic over
//! [`Avx512`], so the CPU entry points (`*_avx512`, with the instructions enabled) and the
//! software model run the same code.

use super::{add, canonicalize, join, mul, reduce_once, split, sub, Avx512, IfmaModulus};
use super::{Lanes, VecModulus};

/// 64-bit words per element in memory.
const W: usize = 4;
/// 52-bit limbs per element in registers.
const L: usize = 5;
/// Words of eight elements.
const GROUP: usize = 8 * W;

/// A twiddle in IFMA form, as radix-2^52 limbs ([`twiddle`]).
pub type Twiddle = [u64; L];

/// The IFMA-form words of a twiddle (`s·2^4 mod p`, canonical) as the limbs the
/// kernels broadcast.
pub fn twiddle(ifma_words: [u64; W]) -> Twiddle {
    super::to_radix52(&ifma_words)
}

/// Eight consecutive elements (`src[0..32]`) into lanes.
///
/// # Safety
/// As for [`Avx512`]; `src` addresses 32 words.
#[inline(always)]
pub unsafe fn load8<V: Avx512>(src: *const u64) -> Lanes<V, L> {
    // No closures in this file's hot paths: a closure does not inherit the entry point's
    // target features, so without LTO its intrinsics would not inline.
    let src = src as *const V;
    let v = [
        V::load(src),
        V::load(src.add(1)),
        V::load(src.add(2)),
        V::load(src.add(3)),
    ];
    // v[i] holds elements 2i and 2i+1. First round: words 0,1 and 2,3 of four elements;
    // second round: word w of all eight.
    let pairs_lo = V::from_array([0, 4, 8, 12, 1, 5, 9, 13]);
    let pairs_hi = V::from_array([2, 6, 10, 14, 3, 7, 11, 15]);
    let t0 = V::permutex2var(v[0], pairs_lo, v[1]);
    let t1 = V::permutex2var(v[0], pairs_hi, v[1]);
    let t2 = V::permutex2var(v[2], pairs_lo, v[3]);
    let t3 = V::permutex2var(v[2], pairs_hi, v[3]);
    let halves_lo = V::from_array([0, 1, 2, 3, 8, 9, 10, 11]);
    let halves_hi = V::from_array([4, 5, 6, 7, 12, 13, 14, 15]);
    let words = [
        V::permutex2var(t0, halves_lo, t2),
        V::permutex2var(t0, halves_hi, t2),
        V::permutex2var(t1, halves_lo, t3),
        V::permutex2var(t1, halves_hi, t3),
    ];
    split::<V, W, L>(&words)
}

/// Stores lanes holding values below `2^256` (normalised limbs) as eight consecutive
/// elements.
///
/// # Safety
/// As for [`Avx512`]; `dst` addresses 32 words.
#[inline(always)]
pub unsafe fn store8<V: Avx512>(dst: *mut u64, x: &Lanes<V, L>) {
    let w: [V; W] = join(x);
    let halves_lo = V::from_array([0, 1, 2, 3, 8, 9, 10, 11]);
    let halves_hi = V::from_array([4, 5, 6, 7, 12, 13, 14, 15]);
    let t0 = V::permutex2var(w[0], halves_lo, w[1]);
    let t1 = V::permutex2var(w[2], halves_lo, w[3]);
    let t2 = V::permutex2var(w[0], halves_hi, w[1]);
    let t3 = V::permutex2var(w[2], halves_hi, w[3]);
    let pairs_lo = V::from_array([0, 4, 8, 12, 1, 5, 9, 13]);
    let pairs_hi = V::from_array([2, 6, 10, 14, 3, 7, 11, 15]);
    let dst = dst as *mut V;
    V::permutex2var(t0, pairs_lo, t1).store(dst);
    V::permutex2var(t0, pairs_hi, t1).store(dst.add(1));
    V::permutex2var(t2, pairs_lo, t3).store(dst.add(2));
    V::permutex2var(t2, pairs_hi, t3).store(dst.add(3));
}

#[inline(always)]
unsafe fn splat_tw<V: Avx512>(t: &Twiddle) -> Lanes<V, L> {
    super::splat(t)
}

/// The eight elements at word offset `o` of each of four rows.
#[inline(always)]
unsafe fn load4<V: Avx512>(rows: &[*mut u64; 4], o: usize) -> [Lanes<V, L>; 4] {
    [
        load8::<V>(rows[0].add(o)),
        load8::<V>(rows[1].add(o)),
        load8::<V>(rows[2].add(o)),
        load8::<V>(rows[3].add(o)),
    ]
}

/// Stores four rows' eight elements at word offset `o`.
#[inline(always)]
unsafe fn store4<V: Avx512>(rows: &[*mut u64; 4], o: usize, x: &[Lanes<V, L>; 4]) {
    for k in 0..4 {
        store8(rows[k].add(o), &x[k]);
    }
}

/// One lazy CT butterfly: `x, y < 4p` → `(x + s·y, x − s·y)`, both `< 4p`. `ONE` says
/// `s = 1`.
#[inline(always)]
unsafe fn ct_bf<V: Avx512, const ONE: bool>(
    x: &Lanes<V, L>,
    y: &Lanes<V, L>,
    s: &Lanes<V, L>,
    m: &VecModulus<V, L>,
) -> (Lanes<V, L>, Lanes<V, L>) {
    let x = reduce_once(x, &m.two_p);
    let t = if ONE {
        reduce_once(y, &m.two_p)
    } else {
        mul(y, s, m)
    };
    (add(&x, &t), sub(&x, &t, &m.two_p))
}

/// Two forward levels on the quarters `rows` (each `len` elements, `len` a multiple of
/// eight) with twiddles `[s, s0, s1]`, as `NttField::ct_quad`: inputs `< 4p`, outputs
/// `< 4p`, canonical when `LAST`; `ONE` says `s = s0 = 1`.
///
/// # Safety
/// As for [`Avx512`]; each row addresses `len` elements (`4·len` words), rows disjoint.
#[inline(always)]
pub unsafe fn ct_quad<V: Avx512, const ONE: bool, const LAST: bool>(
    rows: [*mut u64; 4],
    len: usize,
    tw: &[Twiddle; 3],
    m: &IfmaModulus<W, L>,
) {
    let m = VecModulus::<V, L>::new(m);
    let (s, s0, s1) = (
        splat_tw::<V>(&tw[0]),
        splat_tw::<V>(&tw[1]),
        splat_tw::<V>(&tw[2]),
    );
    for g in 0..len / 8 {
        let o = g * GROUP;
        let [a, b, c, d] = load4::<V>(&rows, o);
        let (y0, y2) = ct_bf::<V, ONE>(&a, &c, &s, &m);
        let (y1, y3) = ct_bf::<V, ONE>(&b, &d, &s, &m);
        let (z0, z1) = ct_bf::<V, ONE>(&y0, &y1, &s0, &m);
        let (z2, z3) = ct_bf::<V, false>(&y2, &y3, &s1, &m);
        let mut z = [z0, z1, z2, z3];
        if LAST {
            for v in &mut z {
                *v = canonicalize(v, &m);
            }
        }
        store4(&rows, o, &z);
    }
}

/// One forward level on `lo` and `hi` (`len` elements each) with twiddle `s`, as
/// `NttField::ct_rows`: inputs `< 4p`, outputs `< 4p`, canonical when `LAST`.
///
/// # Safety
/// As for [`ct_quad`].
#[inline(always)]
pub unsafe fn ct_rows<V: Avx512, const LAST: bool>(
    lo: *mut u64,
    hi: *mut u64,
    len: usize,
    s: &Twiddle,
    m: &IfmaModulus<W, L>,
) {
    let m = VecModulus::<V, L>::new(m);
    let s = splat_tw::<V>(s);
    for g in 0..len / 8 {
        let (pl, ph) = (lo.add(g * GROUP), hi.add(g * GROUP));
        let (a, b) = ct_bf::<V, false>(&load8(pl), &load8(ph), &s, &m);
        let (a, b) = if LAST {
            (canonicalize(&a, &m), canonicalize(&b, &m))
        } else {
            (a, b)
        };
        store8(pl, &a);
        store8(ph, &b);
    }
}

/// One lazy GS butterfly: `u, v < 2p` → `(u + v, s·(u − v))`, both `< 2p` (canonical
/// when `LAST`), or with `scale = Some((c, s·c))` both also times `c` (and canonical).
#[inline(always)]
unsafe fn gs_bf<V: Avx512, const LAST: bool>(
    u: &Lanes<V, L>,
    v: &Lanes<V, L>,
    s: &Lanes<V, L>,
    scale: &Option<(Lanes<V, L>, Lanes<V, L>)>,
    m: &VecModulus<V, L>,
) -> (Lanes<V, L>, Lanes<V, L>) {
    let sum = add(u, v);
    let diff = sub(u, v, &m.two_p);
    match scale {
        Some((c, sc)) => (
            reduce_once(&mul(&sum, c, m), &m.p),
            reduce_once(&mul(&diff, sc, m), &m.p),
        ),
        None => {
            let (a, b) = (reduce_once(&sum, &m.two_p), mul(&diff, s, m));
            if LAST {
                (reduce_once(&a, &m.p), reduce_once(&b, &m.p))
            } else {
                (a, b)
            }
        }
    }
}

/// The broadcast common factor pair of a last level.
#[inline(always)]
unsafe fn splat_scale<V: Avx512>(
    scale: Option<&(Twiddle, Twiddle)>,
) -> Option<(Lanes<V, L>, Lanes<V, L>)> {
    #[allow(clippy::manual_map)] // `Option::map` takes a closure: see `load8`
    match scale {
        Some((c, sc)) => Some((splat_tw::<V>(c), splat_tw::<V>(sc))),
        None => None,
    }
}

/// One inverse level on `lo` and `hi` (`len` elements each), as `NttField::gs_rows`:
/// `(u + v, s·(u − v))`, inputs `< 2p`, outputs `< 2p`, canonical when `LAST`. With
/// `scale = Some((c, s·c))` both outputs are also multiplied by `c` (and canonical).
///
/// # Safety
/// As for [`ct_quad`].
#[inline(always)]
pub unsafe fn gs_rows<V: Avx512, const LAST: bool>(
    lo: *mut u64,
    hi: *mut u64,
    len: usize,
    s: &Twiddle,
    scale: Option<&(Twiddle, Twiddle)>,
    m: &IfmaModulus<W, L>,
) {
    let m = VecModulus::<V, L>::new(m);
    let s = splat_tw::<V>(s);
    let scale = splat_scale::<V>(scale);
    for g in 0..len / 8 {
        let (pl, ph) = (lo.add(g * GROUP), hi.add(g * GROUP));
        let (a, b) = gs_bf::<V, LAST>(&load8(pl), &load8(ph), &s, &scale, &m);
        store8(pl, &a);
        store8(ph, &b);
    }
}

/// Two inverse levels on the quarters `rows` (each `len` elements, a multiple of eight)
/// with twiddles `[s, s0, s1]`, as `NttField::gs_quad`: `(a, b)` with `s0` and `(c, d)`
/// with `s1`, then `(a, c)` and `(b, d)` with `s` (and `scale`, `LAST`, as
/// [`gs_rows`]). Inputs `< 2p`, outputs `< 2p`.
///
/// # Safety
/// As for [`ct_quad`].
#[inline(always)]
pub unsafe fn gs_quad<V: Avx512, const LAST: bool>(
    rows: [*mut u64; 4],
    len: usize,
    tw: &[Twiddle; 3],
    scale: Option<&(Twiddle, Twiddle)>,
    m: &IfmaModulus<W, L>,
) {
    let m = VecModulus::<V, L>::new(m);
    let (s, s0, s1) = (
        splat_tw::<V>(&tw[0]),
        splat_tw::<V>(&tw[1]),
        splat_tw::<V>(&tw[2]),
    );
    let scale = splat_scale::<V>(scale);
    for g in 0..len / 8 {
        let o = g * GROUP;
        let [a, b, c, d] = load4::<V>(&rows, o);
        let (a1, b1) = gs_bf::<V, false>(&a, &b, &s0, &None, &m);
        let (c1, d1) = gs_bf::<V, false>(&c, &d, &s1, &None, &m);
        let (a2, c2) = gs_bf::<V, LAST>(&a1, &c1, &s, &scale, &m);
        let (b2, d2) = gs_bf::<V, LAST>(&b1, &d1, &s, &scale, &m);
        store4(&rows, o, &[a2, b2, c2, d2]);
    }
}

/// [`ct_quad`] on the CPU's instructions.
///
/// # Safety
/// As for [`ct_quad`], on a CPU with AVX-512F and IFMA ([`super::is_supported`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn ct_quad_avx512<const ONE: bool, const LAST: bool>(
    rows: [*mut u64; 4],
    len: usize,
    tw: &[Twiddle; 3],
    m: &IfmaModulus<W, L>,
) {
    ct_quad::<core::arch::x86_64::__m512i, ONE, LAST>(rows, len, tw, m)
}

/// [`ct_rows`] on the CPU's instructions.
///
/// # Safety
/// As for [`ct_quad_avx512`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn ct_rows_avx512<const LAST: bool>(
    lo: *mut u64,
    hi: *mut u64,
    len: usize,
    s: &Twiddle,
    m: &IfmaModulus<W, L>,
) {
    ct_rows::<core::arch::x86_64::__m512i, LAST>(lo, hi, len, s, m)
}

/// [`gs_rows`] on the CPU's instructions.
///
/// # Safety
/// As for [`ct_quad_avx512`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn gs_rows_avx512<const LAST: bool>(
    lo: *mut u64,
    hi: *mut u64,
    len: usize,
    s: &Twiddle,
    scale: Option<&(Twiddle, Twiddle)>,
    m: &IfmaModulus<W, L>,
) {
    gs_rows::<core::arch::x86_64::__m512i, LAST>(lo, hi, len, s, scale, m)
}

/// [`gs_quad`] on the CPU's instructions.
///
/// # Safety
/// As for [`ct_quad_avx512`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn gs_quad_avx512<const LAST: bool>(
    rows: [*mut u64; 4],
    len: usize,
    tw: &[Twiddle; 3],
    scale: Option<&(Twiddle, Twiddle)>,
    m: &IfmaModulus<W, L>,
) {
    gs_quad::<core::arch::x86_64::__m512i, LAST>(rows, len, tw, scale, m)
}
