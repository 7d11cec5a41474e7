//! AVX2 Goldilocks: 4 canonical lanes per `__m256i`. AVX2 has no unsigned 64-bit compare,
//! so comparisons flip the sign bit and use the signed one.

use core::arch::x86_64::*;

use super::slices::pair_lengths;
use crate::goldilocks::Goldilocks;

const P: i64 = 0xffff_ffff_0000_0001_u64 as i64;
const EPS: i64 = 0xffff_ffff;

/// All-ones lanes where `a < b` as unsigned integers.
#[inline]
#[target_feature(enable = "avx2")]
fn lt(a: __m256i, b: __m256i) -> __m256i {
    let sign = _mm256_set1_epi64x(i64::MIN);
    _mm256_cmpgt_epi64(_mm256_xor_si256(b, sign), _mm256_xor_si256(a, sign))
}

#[inline]
#[target_feature(enable = "avx2")]
fn canon(x: __m256i) -> __m256i {
    let p = _mm256_set1_epi64x(P);
    // Subtract p where x >= p, i.e. where !(x < p).
    _mm256_sub_epi64(x, _mm256_andnot_si256(lt(x, p), p))
}

#[inline]
#[target_feature(enable = "avx2")]
fn add(a: __m256i, b: __m256i) -> __m256i {
    let s = _mm256_add_epi64(a, b);
    let carry = lt(s, a);
    canon(_mm256_add_epi64(
        s,
        _mm256_and_si256(carry, _mm256_set1_epi64x(EPS)),
    ))
}

#[inline]
#[target_feature(enable = "avx2")]
fn sub(a: __m256i, b: __m256i) -> __m256i {
    let d = _mm256_sub_epi64(a, b);
    let borrow = lt(a, b);
    _mm256_add_epi64(d, _mm256_and_si256(borrow, _mm256_set1_epi64x(P)))
}

#[inline]
#[target_feature(enable = "avx2")]
fn mul_hi(a: __m256i, b: __m256i, b_hi: __m256i) -> __m256i {
    let eps = _mm256_set1_epi64x(EPS);
    let a_hi = _mm256_srli_epi64::<32>(a);
    let ll = _mm256_mul_epu32(a, b);
    let lh = _mm256_mul_epu32(a, b_hi);
    let hl = _mm256_mul_epu32(a_hi, b);
    let hh = _mm256_mul_epu32(a_hi, b_hi);
    let t = _mm256_add_epi64(hl, _mm256_srli_epi64::<32>(ll));
    let u = _mm256_add_epi64(lh, _mm256_and_si256(t, eps));
    let lo = _mm256_or_si256(_mm256_slli_epi64::<32>(u), _mm256_and_si256(ll, eps));
    let hi = _mm256_add_epi64(
        _mm256_add_epi64(hh, _mm256_srli_epi64::<32>(t)),
        _mm256_srli_epi64::<32>(u),
    );
    // Reduce hi·2^64 + lo as in the AVX-512 code.
    let hi_hi = _mm256_srli_epi64::<32>(hi);
    let hi_lo = _mm256_and_si256(hi, eps);
    let t0 = _mm256_sub_epi64(lo, hi_hi);
    let t0 = _mm256_sub_epi64(t0, _mm256_and_si256(lt(lo, hi_hi), eps));
    let t1 = _mm256_sub_epi64(_mm256_slli_epi64::<32>(hi_lo), hi_lo);
    let r = _mm256_add_epi64(t0, t1);
    let r = _mm256_add_epi64(r, _mm256_and_si256(lt(r, t1), eps));
    canon(r)
}

#[inline]
#[target_feature(enable = "avx2")]
fn mul(a: __m256i, b: __m256i) -> __m256i {
    mul_hi(a, b, _mm256_srli_epi64::<32>(b))
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn ld(p: *const u64) -> __m256i {
    _mm256_loadu_si256(p.cast())
}
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn st(p: *mut u64, v: __m256i) {
    _mm256_storeu_si256(p.cast(), v)
}

/// `s` in every lane, and its high halves (the form [`mul_hi`] takes).
#[inline]
#[target_feature(enable = "avx2")]
fn splat(s: u64) -> (__m256i, __m256i) {
    let v = _mm256_set1_epi64x(s as i64);
    (v, _mm256_srli_epi64::<32>(v))
}

slice_kernels!("avx2", 4);

/// Bit `l` set where lane `l` of `a` equals that of `b`.
#[inline]
#[target_feature(enable = "avx2")]
fn eq_bits(a: __m256i, b: __m256i) -> u8 {
    _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(a, b))) as u8
}

/// Eight canonical Goldilocks lanes in two vectors (the AVX-512 backend's width, so that
/// one lane count serves every backend), for code that keeps values in lanes across many
/// operations (the runtime's kernel lanes). Every method needs AVX2: callers check
/// [`super::Backend::Avx2`] is supported first.
#[derive(Clone, Copy, Debug)]
pub struct Lanes8([__m256i; 2]);

// Every method's safety condition is the one `load` states.
#[allow(clippy::missing_safety_doc)]
impl Lanes8 {
    /// # Safety
    /// The CPU has AVX2; so for every method here.
    #[inline(always)]
    pub unsafe fn load(x: &[Goldilocks; 8]) -> Self {
        // `Goldilocks` is a transparent `u64`.
        let x = x.as_ptr().cast::<u64>();
        Self([ld(x), ld(x.add(4))])
    }
    #[inline(always)]
    pub unsafe fn store(self, x: &mut [Goldilocks; 8]) {
        let x = x.as_mut_ptr().cast::<u64>();
        st(x, self.0[0]);
        st(x.add(4), self.0[1]);
    }
    #[inline(always)]
    pub unsafe fn splat(x: Goldilocks) -> Self {
        let x = x.value();
        let v = _mm256_set1_epi64x(x as i64);
        Self([v, v])
    }
    #[inline(always)]
    pub unsafe fn add(self, b: Self) -> Self {
        Self([add(self.0[0], b.0[0]), add(self.0[1], b.0[1])])
    }
    #[inline(always)]
    pub unsafe fn sub(self, b: Self) -> Self {
        Self([sub(self.0[0], b.0[0]), sub(self.0[1], b.0[1])])
    }
    #[inline(always)]
    pub unsafe fn mul(self, b: Self) -> Self {
        Self([mul(self.0[0], b.0[0]), mul(self.0[1], b.0[1])])
    }
    /// Bit `l` set where lane `l` of `self` equals that of `b`.
    #[inline(always)]
    pub unsafe fn eq(self, b: Self) -> u8 {
        eq_bits(self.0[0], b.0[0]) | (eq_bits(self.0[1], b.0[1]) << 4)
    }
}
