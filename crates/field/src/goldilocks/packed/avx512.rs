//! AVX-512F Goldilocks: 8 canonical lanes per `__m512i`.
//!
//! The 64×64→128-bit product is built from four 32×32→64 `vpmuludq` products; the
//! reduction uses `2^64 ≡ 2^32 − 1` and `2^96 ≡ −1` with mask registers for the
//! carries and borrows, and a final conditional subtraction keeps lanes canonical.

// AVX-512 intrinsics are stable since Rust 1.89, the workspace's minimum version.

use core::arch::x86_64::*;

use super::slices::pair_lengths;
use crate::goldilocks::{Goldilocks, GoldilocksExt3};

const P: i64 = 0xffff_ffff_0000_0001_u64 as i64;
const EPS: i64 = 0xffff_ffff;

#[inline]
#[target_feature(enable = "avx512f")]
fn canon(x: __m512i) -> __m512i {
    let p = _mm512_set1_epi64(P);
    let ge = _mm512_cmpge_epu64_mask(x, p);
    _mm512_mask_sub_epi64(x, ge, x, p)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn add(a: __m512i, b: __m512i) -> __m512i {
    let s = _mm512_add_epi64(a, b);
    let carry = _mm512_cmplt_epu64_mask(s, a);
    // After a carry, s + ε < p (both inputs were canonical), so it cannot carry again.
    let s = _mm512_mask_add_epi64(s, carry, s, _mm512_set1_epi64(EPS));
    canon(s)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn sub(a: __m512i, b: __m512i) -> __m512i {
    let d = _mm512_sub_epi64(a, b);
    let borrow = _mm512_cmplt_epu64_mask(a, b);
    _mm512_mask_add_epi64(d, borrow, d, _mm512_set1_epi64(P))
}

/// `a·b` where `b_hi = b >> 32` is given (it is often a loop constant).
#[inline]
#[target_feature(enable = "avx512f")]
fn mul_hi(a: __m512i, b: __m512i, b_hi: __m512i) -> __m512i {
    let eps = _mm512_set1_epi64(EPS);
    let a_hi = _mm512_srli_epi64::<32>(a);
    let ll = _mm512_mul_epu32(a, b);
    let lh = _mm512_mul_epu32(a, b_hi);
    let hl = _mm512_mul_epu32(a_hi, b);
    let hh = _mm512_mul_epu32(a_hi, b_hi);
    // Schoolbook with 32-bit columns; no intermediate overflows 64 bits.
    let t = _mm512_add_epi64(hl, _mm512_srli_epi64::<32>(ll));
    let u = _mm512_add_epi64(lh, _mm512_and_si512(t, eps));
    let lo = _mm512_or_si512(_mm512_slli_epi64::<32>(u), _mm512_and_si512(ll, eps));
    let hi = _mm512_add_epi64(
        _mm512_add_epi64(hh, _mm512_srli_epi64::<32>(t)),
        _mm512_srli_epi64::<32>(u),
    );
    reduce(hi, lo)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn mul(a: __m512i, b: __m512i) -> __m512i {
    mul_hi(a, b, _mm512_srli_epi64::<32>(b))
}

/// `hi·2^64 + lo mod p`.
#[inline]
#[target_feature(enable = "avx512f")]
fn reduce(hi: __m512i, lo: __m512i) -> __m512i {
    let eps = _mm512_set1_epi64(EPS);
    let hi_hi = _mm512_srli_epi64::<32>(hi);
    let hi_lo = _mm512_and_si512(hi, eps);
    // lo − hi_hi (2^96 ≡ −1); a borrow of 2^64 ≡ ε is taken back by subtracting ε.
    let t0 = _mm512_sub_epi64(lo, hi_hi);
    let borrow = _mm512_cmplt_epu64_mask(lo, hi_hi);
    let t0 = _mm512_mask_sub_epi64(t0, borrow, t0, eps);
    // hi_lo·ε = hi_lo·2^32 − hi_lo (2^64 ≡ ε).
    let t1 = _mm512_sub_epi64(_mm512_slli_epi64::<32>(hi_lo), hi_lo);
    let r = _mm512_add_epi64(t0, t1);
    let carry = _mm512_cmplt_epu64_mask(r, t1);
    let r = _mm512_mask_add_epi64(r, carry, r, eps);
    canon(r)
}

#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn ld(p: *const u64) -> __m512i {
    _mm512_loadu_si512(p.cast())
}
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn st(p: *mut u64, v: __m512i) {
    _mm512_storeu_si512(p.cast(), v)
}

/// `s` in every lane, and its high halves (the form [`mul_hi`] takes).
#[inline]
#[target_feature(enable = "avx512f")]
fn splat(s: u64) -> (__m512i, __m512i) {
    let v = _mm512_set1_epi64(s as i64);
    (v, _mm512_srli_epi64::<32>(v))
}

slice_kernels!("avx512f", 8);

#[inline]
#[target_feature(enable = "avx512f")]
fn perm(a: __m512i, b: __m512i, idx: [i64; 8]) -> __m512i {
    let i = _mm512_set_epi64(
        idx[7], idx[6], idx[5], idx[4], idx[3], idx[2], idx[1], idx[0],
    );
    _mm512_permutex2var_epi64(a, i, b)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn ct(l: __m512i, h: __m512i, w: __m512i) -> (__m512i, __m512i) {
    let v = mul(h, w);
    (add(l, v), sub(l, v))
}

#[inline]
#[target_feature(enable = "avx512f")]
fn gs(l: __m512i, h: __m512i, w: __m512i) -> (__m512i, __m512i) {
    (add(l, h), mul(sub(l, h), w))
}

/// Twiddle vectors for the 16 elements of groups `g, g+1`:
/// `[w_g ×4, w_{g+1} ×4]`, `[w_{2g}, w_{2g}, …, w_{2g+3}, w_{2g+3}]`, `w[4g..4g+8]`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn twiddles(w: *const u64, g: usize) -> (__m512i, __m512i, __m512i) {
    let t4 = _mm512_mask_blend_epi64(
        0xf0,
        _mm512_set1_epi64(*w.add(g) as i64),
        _mm512_set1_epi64(*w.add(g + 1) as i64),
    );
    let w2 = _mm512_castsi256_si512(_mm256_loadu_si256(w.add(2 * g).cast()));
    let t2 = _mm512_permutexvar_epi64(_mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0), w2);
    let t1 = ld(w.add(4 * g));
    (t4, t2, t1)
}

/// See `Backend::ntt_ct_last3`; the caller checked `x.len() % 16 == 0` and the bounds of `w`.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn ntt_ct_last3(x: &mut [u64], w: &[u64], g0: usize) {
    let px = x.as_mut_ptr();
    let pw = w.as_ptr();
    let mut i = 0;
    while i < x.len() {
        let (t4, t2, t1) = twiddles(pw, g0 + i / 8);
        let a = ld(px.add(i));
        let b = ld(px.add(i + 8));
        // Distance 4: lanes [a0..a3 b0..b3] against [a4..a7 b4..b7].
        let (l, h) = ct(
            perm(a, b, [0, 1, 2, 3, 8, 9, 10, 11]),
            perm(a, b, [4, 5, 6, 7, 12, 13, 14, 15]),
            t4,
        );
        // Distance 2: [a0 a1 a4 a5 b0 b1 b4 b5] against [a2 a3 a6 a7 b2 b3 b6 b7].
        let (l, h) = ct(
            perm(l, h, [0, 1, 8, 9, 4, 5, 12, 13]),
            perm(l, h, [2, 3, 10, 11, 6, 7, 14, 15]),
            t2,
        );
        // Distance 1: [a0 a2 a4 a6 b0 b2 b4 b6] against [a1 a3 a5 a7 b1 b3 b5 b7].
        let (l, h) = ct(
            perm(l, h, [0, 8, 2, 10, 4, 12, 6, 14]),
            perm(l, h, [1, 9, 3, 11, 5, 13, 7, 15]),
            t1,
        );
        st(px.add(i), perm(l, h, [0, 8, 1, 9, 2, 10, 3, 11]));
        st(px.add(i + 8), perm(l, h, [4, 12, 5, 13, 6, 14, 7, 15]));
        i += 16;
    }
}

/// See `Backend::ntt_gs_first3`; the caller checked the lengths.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn ntt_gs_first3(x: &mut [u64], w: &[u64], g0: usize) {
    let px = x.as_mut_ptr();
    let pw = w.as_ptr();
    let mut i = 0;
    while i < x.len() {
        let (t4, t2, t1) = twiddles(pw, g0 + i / 8);
        let a = ld(px.add(i));
        let b = ld(px.add(i + 8));
        let (l, h) = gs(
            perm(a, b, [0, 2, 4, 6, 8, 10, 12, 14]),
            perm(a, b, [1, 3, 5, 7, 9, 11, 13, 15]),
            t1,
        );
        let (l, h) = gs(
            perm(l, h, [0, 8, 2, 10, 4, 12, 6, 14]),
            perm(l, h, [1, 9, 3, 11, 5, 13, 7, 15]),
            t2,
        );
        let (l, h) = gs(
            perm(l, h, [0, 1, 8, 9, 4, 5, 12, 13]),
            perm(l, h, [2, 3, 10, 11, 6, 7, 14, 15]),
            t4,
        );
        st(px.add(i), perm(l, h, [0, 1, 2, 3, 8, 9, 10, 11]));
        st(px.add(i + 8), perm(l, h, [4, 5, 6, 7, 12, 13, 14, 15]));
        i += 16;
    }
}

/// The permutations of [`Lanes8::load_ext3`]: coefficient `k` of element `l` is word
/// `w = 3l + k` of the three loaded vectors, lane `w % 8` of vector `w / 8`; the first
/// permutation takes the words of the first two vectors, the second those of the third.
const EXT3_LOAD: [([i64; 8], [i64; 8]); 3] = {
    let mut t = [([0; 8], [0; 8]); 3];
    let mut k = 0;
    while k < 3 {
        let mut l = 0;
        while l < 8 {
            let w = (3 * l + k) as i64;
            if w < 16 {
                t[k].0[l] = w;
                t[k].1[l] = l as i64;
            } else {
                t[k].1[l] = w - 16 + 8;
            }
            l += 1;
        }
        k += 1;
    }
    t
};

/// The permutations of [`Lanes8::store_ext3`]: word `w = 8g + j` of stored vector `g` is
/// coefficient `w % 3` of element `w / 3`; the first permutation takes the words from the
/// first two coefficients' lanes, the second those from the third's.
const EXT3_STORE: [([i64; 8], [i64; 8]); 3] = {
    let mut t = [([0; 8], [0; 8]); 3];
    let mut g = 0;
    while g < 3 {
        let mut j = 0;
        while j < 8 {
            let w = (8 * g + j) as i64;
            match w % 3 {
                0 => t[g].0[j] = w / 3,
                1 => t[g].0[j] = w / 3 + 8,
                _ => {}
            }
            t[g].1[j] = if w % 3 == 2 { w / 3 + 8 } else { j as i64 };
            j += 1;
        }
        g += 1;
    }
    t
};

/// Eight canonical Goldilocks lanes in one vector, for code that keeps values in lanes
/// across many operations (the runtime's kernel lanes). Every method needs AVX-512F:
/// callers check [`super::Backend::Avx512`] is supported first.
#[derive(Clone, Copy, Debug)]
pub struct Lanes8(__m512i);

// Every method's safety condition is the one `load` states.
#[allow(clippy::missing_safety_doc)]
impl Lanes8 {
    /// # Safety
    /// The CPU has AVX-512F; so for every method here.
    #[inline(always)]
    pub unsafe fn load(x: &[Goldilocks; 8]) -> Self {
        // `Goldilocks` is a transparent `u64`.
        let x = x.as_ptr().cast::<u64>();
        Self(ld(x))
    }
    #[inline(always)]
    pub unsafe fn store(self, x: &mut [Goldilocks; 8]) {
        let x = x.as_mut_ptr().cast::<u64>();
        st(x, self.0)
    }
    #[inline(always)]
    pub unsafe fn splat(x: Goldilocks) -> Self {
        let x = x.value();
        Self(_mm512_set1_epi64(x as i64))
    }
    #[inline(always)]
    pub unsafe fn add(self, b: Self) -> Self {
        Self(add(self.0, b.0))
    }
    #[inline(always)]
    pub unsafe fn sub(self, b: Self) -> Self {
        Self(sub(self.0, b.0))
    }
    #[inline(always)]
    pub unsafe fn mul(self, b: Self) -> Self {
        Self(mul(self.0, b.0))
    }
    /// Bit `l` set where lane `l` of `self` equals that of `b`.
    #[inline(always)]
    pub unsafe fn eq(self, b: Self) -> u8 {
        _mm512_cmpeq_epu64_mask(self.0, b.0)
    }

    /// Eight cubic-extension elements as their three coefficients' lanes: three loads
    /// and six two-source permutations (the 24 words are element-major).
    #[inline(always)]
    pub unsafe fn load_ext3(x: &[GoldilocksExt3; 8]) -> [Self; 3] {
        // `GoldilocksExt3` is three transparent `u64`s.
        let p = x.as_ptr().cast::<u64>();
        let (v0, v1, v2) = (ld(p), ld(p.add(8)), ld(p.add(16)));
        let [(a0, b0), (a1, b1), (a2, b2)] = EXT3_LOAD;
        [
            Self(perm(perm(v0, v1, a0), v2, b0)),
            Self(perm(perm(v0, v1, a1), v2, b1)),
            Self(perm(perm(v0, v1, a2), v2, b2)),
        ]
    }

    /// The inverse of [`load_ext3`](Self::load_ext3).
    #[inline(always)]
    pub unsafe fn store_ext3(c: [Self; 3], x: &mut [GoldilocksExt3; 8]) {
        let p = x.as_mut_ptr().cast::<u64>();
        for (g, (first, second)) in EXT3_STORE.iter().enumerate() {
            st(
                p.add(8 * g),
                perm(perm(c[0].0, c[1].0, *first), c[2].0, *second),
            );
        }
    }
}
