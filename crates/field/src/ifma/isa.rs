//! The AVX-512 operations the IFMA engine is written against, as one interface with two
//! implementations: [`__m512i`](core::arch::x86_64::__m512i), where each operation is the
//! `std::arch` intrinsic of the same name (production), and [`Model`], the same
//! operations lane by lane in plain Rust (tests, on any host; feature `ifma-model`).
//!
//! Everything above this module — the radix-2^52 limb arithmetic, the lane field types,
//! the MSM's bucket flush — is generic over [`Avx512`], so the code that runs on the
//! CPU's instructions is the code the tests run on the model. Masks are `u8` in both
//! (`__mmask8` is `u8`): bit `l` is lane `l`.
//!
//! The operations keep the instructions' exact semantics, including the corners the
//! engine relies on: `madd52lo/hi` read only the low 52 bits of each factor, variable
//! shifts by 64 or more give zero, the arithmetic shift keeps the sign, gathers and
//! scatters use signed byte offsets and touch only masked lanes, and a scatter writes
//! lanes in order (the highest lane wins on overlap).

/// Eight 64-bit lanes and the AVX-512F / AVX-512 IFMA operations on them.
///
/// # Safety
/// For [`__m512i`](core::arch::x86_64::__m512i) every method needs a CPU with AVX-512F and
/// AVX-512 IFMA ([`super::is_supported`]); the memory methods also need their pointers to
/// address the bytes they read or write (unaligned is fine). The model needs only the
/// latter.
#[allow(clippy::missing_safety_doc)] // covered above, for all methods at once
pub trait Avx512: Copy {
    /// `_mm512_setzero_si512`.
    unsafe fn zero() -> Self;
    /// `_mm512_set1_epi64`.
    unsafe fn splat(x: u64) -> Self;
    /// `_mm512_loadu_si512` of eight words.
    unsafe fn from_array(a: [u64; 8]) -> Self;
    /// `_mm512_storeu_si512` into eight words.
    unsafe fn to_array(self) -> [u64; 8];
    /// `_mm512_loadu_si512`.
    unsafe fn load(src: *const Self) -> Self;
    /// `_mm512_storeu_si512`.
    unsafe fn store(self, dst: *mut Self);
    /// `_mm512_cvtepu32_epi64(_mm256_loadu_si256(src))`: eight `u32`, zero-extended.
    unsafe fn load_u32(src: *const u32) -> Self;

    /// `_mm512_add_epi64` (wrapping).
    unsafe fn add(a: Self, b: Self) -> Self;
    /// `_mm512_sub_epi64` (wrapping).
    unsafe fn sub(a: Self, b: Self) -> Self;
    /// `_mm512_and_si512`.
    unsafe fn and(a: Self, b: Self) -> Self;
    /// `_mm512_or_si512`.
    unsafe fn or(a: Self, b: Self) -> Self;
    /// `_mm512_andnot_si512`: `!a & b`.
    unsafe fn andnot(a: Self, b: Self) -> Self;
    /// `_mm512_srli_epi64::<N>`.
    unsafe fn srli<const N: u32>(a: Self) -> Self;
    /// `_mm512_srai_epi64::<N>`.
    unsafe fn srai<const N: u32>(a: Self) -> Self;
    /// `_mm512_srlv_epi64`: per-lane counts, zero from 64 on.
    unsafe fn srlv(a: Self, count: Self) -> Self;
    /// `_mm512_sllv_epi64`: per-lane counts, zero from 64 on.
    unsafe fn sllv(a: Self, count: Self) -> Self;
    /// `_mm512_mul_epu32`: low 32 bits times low 32 bits.
    unsafe fn mul_epu32(a: Self, b: Self) -> Self;
    /// `_mm512_madd52lo_epu64`: `acc + lo52(lo52(a)·lo52(b))`.
    unsafe fn madd52lo(acc: Self, a: Self, b: Self) -> Self;
    /// `_mm512_madd52hi_epu64`: `acc + hi52(lo52(a)·lo52(b))`.
    unsafe fn madd52hi(acc: Self, a: Self, b: Self) -> Self;

    /// `_mm512_cmplt_epi64_mask` (signed).
    unsafe fn cmplt_epi64(a: Self, b: Self) -> u8;
    /// `_mm512_cmpeq_epi64_mask`.
    unsafe fn cmpeq(a: Self, b: Self) -> u8;
    /// `_mm512_test_epi64_mask`: lanes where `a & b ≠ 0`.
    unsafe fn test(a: Self, b: Self) -> u8;
    /// `_mm512_mask_blend_epi64`: `b` where `mask` is set, else `a`.
    unsafe fn blend(mask: u8, a: Self, b: Self) -> Self;
    /// `_mm512_mask_i64gather_epi64::<1>`: the word at `base + offsets[l]` in masked
    /// lanes, `src` in the others (which read nothing).
    unsafe fn gather(src: Self, mask: u8, offsets: Self, base: *const u8) -> Self;
    /// `_mm512_mask_i64scatter_epi64::<1>`: lane `l` of `v` to `base + offsets[l]` in
    /// masked lanes, lowest lane first.
    unsafe fn scatter(base: *mut u8, mask: u8, offsets: Self, v: Self);
    /// `_mm512_permutex2var_epi64(a, idx, b)`: lane `l` is lane `idx[l] mod 8` of `a`
    /// when bit 3 of `idx[l]` is clear, of `b` when set.
    unsafe fn permutex2var(a: Self, idx: Self, b: Self) -> Self;

    /// The Montgomery product [`super::mul`]: by default the IFMA algorithm on the
    /// operations above ([`super::mul_madd52`]); a vector type whose multiply-adds are
    /// emulated computes it its own way, with the same limbs.
    #[inline(always)]
    unsafe fn mont_mul<const L: usize>(
        a: &super::Lanes<Self, L>,
        b: &super::Lanes<Self, L>,
        m: &super::VecModulus<Self, L>,
    ) -> super::Lanes<Self, L> {
        super::mul_madd52(a, b, m)
    }
    /// The square [`super::square`], likewise.
    #[inline(always)]
    unsafe fn mont_square<const L: usize>(
        a: &super::Lanes<Self, L>,
        m: &super::VecModulus<Self, L>,
    ) -> super::Lanes<Self, L> {
        super::square_madd52(a, m)
    }
    /// Two independent products `a·b` and `c·d` (`[a, b]`, `[c, d]`): by default one
    /// after the other; a type whose product is latency-bound interleaves them.
    #[inline(always)]
    unsafe fn mont_mul2<const L: usize>(
        [a, b]: [&super::Lanes<Self, L>; 2],
        [c, d]: [&super::Lanes<Self, L>; 2],
        m: &super::VecModulus<Self, L>,
    ) -> [super::Lanes<Self, L>; 2] {
        [Self::mont_mul(a, b, m), Self::mont_mul(c, d, m)]
    }
    /// Two independent squares, likewise.
    #[inline(always)]
    unsafe fn mont_square2<const L: usize>(
        a: &super::Lanes<Self, L>,
        c: &super::Lanes<Self, L>,
        m: &super::VecModulus<Self, L>,
    ) -> [super::Lanes<Self, L>; 2] {
        [Self::mont_square(a, m), Self::mont_square(c, m)]
    }
}

#[cfg(target_arch = "x86_64")]
mod hardware {
    use core::arch::x86_64::*;

    use super::Avx512;

    // Each method is one intrinsic. `inline(always)` without a target feature: the
    // engine's entry points carry `avx512f,avx512ifma`, and once these wrappers are
    // inlined there the intrinsics inline too.
    impl Avx512 for __m512i {
        #[inline(always)]
        unsafe fn zero() -> Self {
            _mm512_setzero_si512()
        }
        #[inline(always)]
        unsafe fn splat(x: u64) -> Self {
            _mm512_set1_epi64(x as i64)
        }
        #[inline(always)]
        unsafe fn from_array(a: [u64; 8]) -> Self {
            _mm512_loadu_si512(a.as_ptr() as *const _)
        }
        #[inline(always)]
        unsafe fn to_array(self) -> [u64; 8] {
            let mut a = [0u64; 8];
            _mm512_storeu_si512(a.as_mut_ptr() as *mut _, self);
            a
        }
        #[inline(always)]
        unsafe fn load(src: *const Self) -> Self {
            _mm512_loadu_si512(src as *const _)
        }
        #[inline(always)]
        unsafe fn store(self, dst: *mut Self) {
            _mm512_storeu_si512(dst as *mut _, self)
        }
        #[inline(always)]
        unsafe fn load_u32(src: *const u32) -> Self {
            _mm512_cvtepu32_epi64(_mm256_loadu_si256(src as *const __m256i))
        }
        #[inline(always)]
        unsafe fn add(a: Self, b: Self) -> Self {
            _mm512_add_epi64(a, b)
        }
        #[inline(always)]
        unsafe fn sub(a: Self, b: Self) -> Self {
            _mm512_sub_epi64(a, b)
        }
        #[inline(always)]
        unsafe fn and(a: Self, b: Self) -> Self {
            _mm512_and_si512(a, b)
        }
        #[inline(always)]
        unsafe fn or(a: Self, b: Self) -> Self {
            _mm512_or_si512(a, b)
        }
        #[inline(always)]
        unsafe fn andnot(a: Self, b: Self) -> Self {
            _mm512_andnot_si512(a, b)
        }
        #[inline(always)]
        unsafe fn srli<const N: u32>(a: Self) -> Self {
            _mm512_srli_epi64::<N>(a)
        }
        #[inline(always)]
        unsafe fn srai<const N: u32>(a: Self) -> Self {
            _mm512_srai_epi64::<N>(a)
        }
        #[inline(always)]
        unsafe fn srlv(a: Self, count: Self) -> Self {
            _mm512_srlv_epi64(a, count)
        }
        #[inline(always)]
        unsafe fn sllv(a: Self, count: Self) -> Self {
            _mm512_sllv_epi64(a, count)
        }
        #[inline(always)]
        unsafe fn mul_epu32(a: Self, b: Self) -> Self {
            _mm512_mul_epu32(a, b)
        }
        #[inline(always)]
        unsafe fn madd52lo(acc: Self, a: Self, b: Self) -> Self {
            _mm512_madd52lo_epu64(acc, a, b)
        }
        #[inline(always)]
        unsafe fn madd52hi(acc: Self, a: Self, b: Self) -> Self {
            _mm512_madd52hi_epu64(acc, a, b)
        }
        #[inline(always)]
        unsafe fn cmplt_epi64(a: Self, b: Self) -> u8 {
            _mm512_cmplt_epi64_mask(a, b)
        }
        #[inline(always)]
        unsafe fn cmpeq(a: Self, b: Self) -> u8 {
            _mm512_cmpeq_epi64_mask(a, b)
        }
        #[inline(always)]
        unsafe fn test(a: Self, b: Self) -> u8 {
            _mm512_test_epi64_mask(a, b)
        }
        #[inline(always)]
        unsafe fn blend(mask: u8, a: Self, b: Self) -> Self {
            _mm512_mask_blend_epi64(mask, a, b)
        }
        #[inline(always)]
        unsafe fn gather(src: Self, mask: u8, offsets: Self, base: *const u8) -> Self {
            _mm512_mask_i64gather_epi64::<1>(src, mask, offsets, base as *const _)
        }
        #[inline(always)]
        unsafe fn scatter(base: *mut u8, mask: u8, offsets: Self, v: Self) {
            _mm512_mask_i64scatter_epi64::<1>(base as *mut _, mask, offsets, v)
        }
        #[inline(always)]
        unsafe fn permutex2var(a: Self, idx: Self, b: Self) -> Self {
            _mm512_permutex2var_epi64(a, idx, b)
        }
    }
}

/// The eight lanes in plain Rust: each operation computed lane by lane with the
/// instruction's semantics. Slow, portable, and only for tests and debugging.
#[cfg(any(test, feature = "ifma-model"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Model(pub [u64; 8]);

#[cfg(any(test, feature = "ifma-model"))]
mod model {
    use super::{Avx512, Model};

    const LO52: u64 = (1 << 52) - 1;

    #[inline]
    fn map(a: Model, f: impl Fn(u64) -> u64) -> Model {
        Model(a.0.map(f))
    }
    #[inline]
    fn zip(a: Model, b: Model, f: impl Fn(u64, u64) -> u64) -> Model {
        Model(core::array::from_fn(|l| f(a.0[l], b.0[l])))
    }
    #[inline]
    fn mask(f: impl Fn(usize) -> bool) -> u8 {
        (0..8).fold(0u8, |m, l| m | ((f(l) as u8) << l))
    }
    #[inline]
    fn product52(a: u64, b: u64) -> u128 {
        (a & LO52) as u128 * (b & LO52) as u128
    }
    #[inline]
    fn set(mask: u8, l: usize) -> bool {
        mask >> l & 1 == 1
    }

    // Not inlined: the engine is generic over the vector type, and inlining these
    // loops into every monomorphised caller made the field's IFMA trials compile in
    // 128 s instead of 96, for no gain in a model that exists to be checked against.
    impl Avx512 for Model {
        #[inline(never)]
        unsafe fn zero() -> Self {
            Model([0; 8])
        }
        #[inline(never)]
        unsafe fn splat(x: u64) -> Self {
            Model([x; 8])
        }
        #[inline(never)]
        unsafe fn from_array(a: [u64; 8]) -> Self {
            Model(a)
        }
        #[inline(never)]
        unsafe fn to_array(self) -> [u64; 8] {
            self.0
        }
        #[inline(never)]
        unsafe fn load(src: *const Self) -> Self {
            src.read_unaligned()
        }
        #[inline(never)]
        unsafe fn store(self, dst: *mut Self) {
            dst.write_unaligned(self)
        }
        #[inline(never)]
        unsafe fn load_u32(src: *const u32) -> Self {
            Model(core::array::from_fn(|l| src.add(l).read_unaligned() as u64))
        }
        #[inline(never)]
        unsafe fn add(a: Self, b: Self) -> Self {
            zip(a, b, u64::wrapping_add)
        }
        #[inline(never)]
        unsafe fn sub(a: Self, b: Self) -> Self {
            zip(a, b, u64::wrapping_sub)
        }
        #[inline(never)]
        unsafe fn and(a: Self, b: Self) -> Self {
            zip(a, b, |x, y| x & y)
        }
        #[inline(never)]
        unsafe fn or(a: Self, b: Self) -> Self {
            zip(a, b, |x, y| x | y)
        }
        #[inline(never)]
        unsafe fn andnot(a: Self, b: Self) -> Self {
            zip(a, b, |x, y| !x & y)
        }
        #[inline(never)]
        unsafe fn srli<const N: u32>(a: Self) -> Self {
            map(a, |x| x.checked_shr(N).unwrap_or(0))
        }
        #[inline(never)]
        unsafe fn srai<const N: u32>(a: Self) -> Self {
            map(a, |x| ((x as i64) >> N.min(63)) as u64)
        }
        #[inline(never)]
        unsafe fn srlv(a: Self, count: Self) -> Self {
            zip(a, count, |x, c| if c < 64 { x >> c } else { 0 })
        }
        #[inline(never)]
        unsafe fn sllv(a: Self, count: Self) -> Self {
            zip(a, count, |x, c| if c < 64 { x << c } else { 0 })
        }
        #[inline(never)]
        unsafe fn mul_epu32(a: Self, b: Self) -> Self {
            zip(a, b, |x, y| (x as u32 as u64) * (y as u32 as u64))
        }
        #[inline(never)]
        unsafe fn madd52lo(acc: Self, a: Self, b: Self) -> Self {
            Model(core::array::from_fn(|l| {
                acc.0[l].wrapping_add(product52(a.0[l], b.0[l]) as u64 & LO52)
            }))
        }
        #[inline(never)]
        unsafe fn madd52hi(acc: Self, a: Self, b: Self) -> Self {
            Model(core::array::from_fn(|l| {
                acc.0[l].wrapping_add((product52(a.0[l], b.0[l]) >> 52) as u64)
            }))
        }
        #[inline(never)]
        unsafe fn cmplt_epi64(a: Self, b: Self) -> u8 {
            mask(|l| (a.0[l] as i64) < (b.0[l] as i64))
        }
        #[inline(never)]
        unsafe fn cmpeq(a: Self, b: Self) -> u8 {
            mask(|l| a.0[l] == b.0[l])
        }
        #[inline(never)]
        unsafe fn test(a: Self, b: Self) -> u8 {
            mask(|l| a.0[l] & b.0[l] != 0)
        }
        #[inline(never)]
        unsafe fn blend(m: u8, a: Self, b: Self) -> Self {
            Model(core::array::from_fn(|l| {
                if set(m, l) {
                    b.0[l]
                } else {
                    a.0[l]
                }
            }))
        }
        #[inline(never)]
        unsafe fn gather(src: Self, m: u8, offsets: Self, base: *const u8) -> Self {
            Model(core::array::from_fn(|l| {
                if set(m, l) {
                    let at = base.wrapping_offset(offsets.0[l] as i64 as isize);
                    (at as *const u64).read_unaligned()
                } else {
                    src.0[l]
                }
            }))
        }
        #[inline(never)]
        unsafe fn scatter(base: *mut u8, m: u8, offsets: Self, v: Self) {
            for l in 0..8 {
                if set(m, l) {
                    let at = base.wrapping_offset(offsets.0[l] as i64 as isize);
                    (at as *mut u64).write_unaligned(v.0[l]);
                }
            }
        }
        #[inline(never)]
        unsafe fn permutex2var(a: Self, idx: Self, b: Self) -> Self {
            Model(core::array::from_fn(|l| {
                let i = (idx.0[l] & 15) as usize;
                if i < 8 {
                    a.0[i]
                } else {
                    b.0[i - 8]
                }
            }))
        }
    }
}
