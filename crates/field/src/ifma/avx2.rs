//! The eight 64-bit lanes on AVX2 (two 256-bit vectors), for CPUs without AVX-512: every
//! [`Avx512`] operation with the instruction's exact semantics, and the Montgomery
//! product on double-precision FMA instead of `madd52lo/hi`.
//!
//! **The product.** A 52×52-bit limb product is split exactly under round-to-nearest:
//! `h = a·b + 2^104` rounds to a multiple of 2^52 (`H = round(a·b/2^52)`), so
//! `l = a·b − H·2^52` is signed (`|l| ≤ 2^51`), and one FMA computes `l − 1.5·2^52`
//! exactly (subtracting `h − 2^104 + 1.5·2^52`), which lies where a double's bits are a
//! constant minus the integer. So `H` and `l` reach the 64-bit accumulators as raw bits
//! (three floating-point operations a limb product), and the constants they carry are
//! removed once per round.
//! The sum is the same integer as the IFMA algorithm's, and so are the quotient digits
//! (they depend on the low column mod 2^52 only): after the final carry pass the limbs
//! are identical to [`super::mul_madd52`]'s. `cargo bench -p fastzk-bench --bench
//! mul_alternatives` times it next to the MULX/ADX product.
//!
//! Everything is `unsafe` and needs AVX2 and FMA ([`is_supported`]).

use core::arch::x86_64::*;

use super::{Avx512, Lanes, VecModulus};

/// Whether the lanes may run: AVX2 and FMA present and `FASTZK_NO_FMA_LANES` not set
/// ([`crate::cpu::Capability::Fma`]).
pub fn is_supported() -> bool {
    crate::cpu::Capability::Fma.enabled()
}

/// Eight 64-bit lanes: lanes 0–3 in the first vector, 4–7 in the second.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub struct Avx2(__m256i, __m256i);

const MASK52: u64 = (1 << 52) - 1;
const TWO52: f64 = 4503599627370496.0;
const TWO104: f64 = 20282409603651670423947251286016.0;
/// `2^104 − 1.5·2^52 = (2^53 − 3)·2^51`, exact: `h` minus it is `H·2^52 + 1.5·2^52`, so
/// `a·b` minus that is `l − 1.5·2^52`, in `[−2^53, −2^52]`, where doubles are integers and
/// their bits are `NEG_LO_BITS − l`. (Biasing `l` by the subtrahend spares the addition
/// of a bias to `l`: three floating-point operations a limb product instead of four.)
const HI_LESS_BIAS: f64 = 20282409603651663668547810230272.0;
const NEG_LO_BITS: u64 = 0xc338_0000_0000_0000;
/// What each low half adds to a column it is subtracted from: `l + LO_BITS`.
const LO_BITS: u64 = NEG_LO_BITS.wrapping_neg();
/// The bits of `2^104`: `h`'s bits are `HI_BITS + H`.
const HI_BITS: u64 = 0x4670_0000_0000_0000;

#[inline(always)]
unsafe fn splat_f(x: f64) -> __m256d {
    _mm256_set1_pd(x)
}

#[inline(always)]
unsafe fn splat_i(x: u64) -> __m256i {
    _mm256_set1_epi64x(x as i64)
}

/// An integer below 2^52 as a double (exact).
#[inline(always)]
unsafe fn to_f64(x: __m256i) -> __m256d {
    let biased = _mm256_or_si256(x, _mm256_castpd_si256(splat_f(TWO52)));
    _mm256_sub_pd(_mm256_castsi256_pd(biased), splat_f(TWO52))
}

/// `(HI_BITS + H, NEG_LO_BITS − l)` with `H·2^52 + l = a·b`, for exact integers
/// `a, b < 2^52`: add the first to a column and subtract the second.
#[inline(always)]
unsafe fn split(a: __m256d, b: __m256d) -> (__m256i, __m256i) {
    let h = _mm256_fmadd_pd(a, b, splat_f(TWO104));
    let l = _mm256_fmsub_pd(a, b, _mm256_sub_pd(h, splat_f(HI_LESS_BIAS)));
    (_mm256_castpd_si256(h), _mm256_castpd_si256(l))
}

/// `(H, l)` as integers: `l` signed, `H·2^52 + l = lo52(a)·lo52(b)`.
#[inline(always)]
unsafe fn split_int(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    let mask = splat_i(MASK52);
    let (a, b) = (
        to_f64(_mm256_and_si256(a, mask)),
        to_f64(_mm256_and_si256(b, mask)),
    );
    let (h, l) = split(a, b);
    (
        _mm256_sub_epi64(h, splat_i(HI_BITS)),
        _mm256_sub_epi64(splat_i(NEG_LO_BITS), l),
    )
}

/// A lane mask as two vector masks (all ones where the bit is set).
#[inline(always)]
unsafe fn vector_mask(m: u8) -> (__m256i, __m256i) {
    let bits = _mm256_set_epi64x(8, 4, 2, 1);
    let lo = _mm256_and_si256(_mm256_set1_epi64x((m & 15) as i64), bits);
    let hi = _mm256_and_si256(_mm256_set1_epi64x((m >> 4) as i64), bits);
    (_mm256_cmpeq_epi64(lo, bits), _mm256_cmpeq_epi64(hi, bits))
}

/// Two vector masks as a lane mask (the top bit of each lane).
#[inline(always)]
unsafe fn lane_mask(lo: __m256i, hi: __m256i) -> u8 {
    let lo = _mm256_movemask_pd(_mm256_castsi256_pd(lo));
    let hi = _mm256_movemask_pd(_mm256_castsi256_pd(hi));
    (lo | hi << 4) as u8
}

/// An intrinsic on both vectors of two operands. A macro, not a closure: a closure does not inherit the
/// caller's target features, so its intrinsics would not inline.
macro_rules! zip {
    ($f:ident($a:expr, $b:expr)) => {{
        let (a, b) = ($a, $b);
        Avx2($f(a.0, b.0), $f(a.1, b.1))
    }};
}

// As for `__m512i`: `inline(always)` without a target feature, inlined into entry points
// that enable `avx2,fma`.
impl Avx512 for Avx2 {
    #[inline(always)]
    unsafe fn zero() -> Self {
        Self(_mm256_setzero_si256(), _mm256_setzero_si256())
    }
    #[inline(always)]
    unsafe fn splat(x: u64) -> Self {
        Self(splat_i(x), splat_i(x))
    }
    #[inline(always)]
    unsafe fn from_array(a: [u64; 8]) -> Self {
        Self::load(a.as_ptr() as *const Self)
    }
    #[inline(always)]
    unsafe fn to_array(self) -> [u64; 8] {
        let mut a = [0u64; 8];
        self.store(a.as_mut_ptr() as *mut Self);
        a
    }
    #[inline(always)]
    unsafe fn load(src: *const Self) -> Self {
        let p = src as *const __m256i;
        Self(_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)))
    }
    #[inline(always)]
    unsafe fn store(self, dst: *mut Self) {
        let p = dst as *mut __m256i;
        _mm256_storeu_si256(p, self.0);
        _mm256_storeu_si256(p.add(1), self.1);
    }
    #[inline(always)]
    unsafe fn load_u32(src: *const u32) -> Self {
        Self(
            _mm256_cvtepu32_epi64(_mm_loadu_si128(src as *const __m128i)),
            _mm256_cvtepu32_epi64(_mm_loadu_si128(src.add(4) as *const __m128i)),
        )
    }
    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        zip!(_mm256_add_epi64(a, b))
    }
    #[inline(always)]
    unsafe fn sub(a: Self, b: Self) -> Self {
        zip!(_mm256_sub_epi64(a, b))
    }
    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        zip!(_mm256_and_si256(a, b))
    }
    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        zip!(_mm256_or_si256(a, b))
    }
    #[inline(always)]
    unsafe fn andnot(a: Self, b: Self) -> Self {
        zip!(_mm256_andnot_si256(a, b))
    }
    #[inline(always)]
    unsafe fn srli<const N: u32>(a: Self) -> Self {
        Self::srlv(a, Self::splat(N as u64))
    }
    #[inline(always)]
    unsafe fn srai<const N: u32>(a: Self) -> Self {
        // A logical shift, then the sign bit (now at 63 − N) extended: (x ^ s) − s.
        let n = N.min(63);
        let sign = Self::splat(1 << (63 - n));
        let shifted = Self::srlv(a, Self::splat(n as u64));
        Self::sub(zip!(_mm256_xor_si256(shifted, sign)), sign)
    }
    #[inline(always)]
    unsafe fn srlv(a: Self, count: Self) -> Self {
        zip!(_mm256_srlv_epi64(a, count))
    }
    #[inline(always)]
    unsafe fn sllv(a: Self, count: Self) -> Self {
        zip!(_mm256_sllv_epi64(a, count))
    }
    #[inline(always)]
    unsafe fn mul_epu32(a: Self, b: Self) -> Self {
        zip!(_mm256_mul_epu32(a, b))
    }
    #[inline(always)]
    unsafe fn madd52lo(acc: Self, a: Self, b: Self) -> Self {
        let (_, l0) = split_int(a.0, b.0);
        let (_, l1) = split_int(a.1, b.1);
        let lo = zip!(_mm256_and_si256(Self(l0, l1), Self::splat(MASK52)));
        zip!(_mm256_add_epi64(acc, lo))
    }
    #[inline(always)]
    unsafe fn madd52hi(acc: Self, a: Self, b: Self) -> Self {
        // Where `l` came out negative, `H` was rounded up.
        let (h0, l0) = split_int(a.0, b.0);
        let (h1, l1) = split_int(a.1, b.1);
        let negative = zip!(_mm256_cmpgt_epi64(Self::zero(), Self(l0, l1)));
        zip!(_mm256_add_epi64(
            acc,
            zip!(_mm256_add_epi64(Self(h0, h1), negative))
        ))
    }
    #[inline(always)]
    unsafe fn cmplt_epi64(a: Self, b: Self) -> u8 {
        lane_mask(_mm256_cmpgt_epi64(b.0, a.0), _mm256_cmpgt_epi64(b.1, a.1))
    }
    #[inline(always)]
    unsafe fn cmpeq(a: Self, b: Self) -> u8 {
        lane_mask(_mm256_cmpeq_epi64(a.0, b.0), _mm256_cmpeq_epi64(a.1, b.1))
    }
    #[inline(always)]
    unsafe fn test(a: Self, b: Self) -> u8 {
        let z = zip!(_mm256_cmpeq_epi64(Self::and(a, b), Self::zero()));
        !lane_mask(z.0, z.1)
    }
    #[inline(always)]
    unsafe fn blend(mask: u8, a: Self, b: Self) -> Self {
        let (m0, m1) = vector_mask(mask);
        Self(
            _mm256_blendv_epi8(a.0, b.0, m0),
            _mm256_blendv_epi8(a.1, b.1, m1),
        )
    }
    #[inline(always)]
    unsafe fn gather(src: Self, mask: u8, offsets: Self, base: *const u8) -> Self {
        let (m0, m1) = vector_mask(mask);
        let base = base as *const i64;
        Self(
            _mm256_mask_i64gather_epi64::<1>(src.0, base, offsets.0, m0),
            _mm256_mask_i64gather_epi64::<1>(src.1, base, offsets.1, m1),
        )
    }
    #[inline(always)]
    unsafe fn scatter(base: *mut u8, mask: u8, offsets: Self, v: Self) {
        // AVX2 has no scatter: the lanes in order, as the instruction writes them.
        let (offsets, v) = (offsets.to_array(), v.to_array());
        for l in 0..8 {
            if mask >> l & 1 == 1 {
                let at = base.wrapping_offset(offsets[l] as i64 as isize);
                (at as *mut u64).write_unaligned(v[l]);
            }
        }
    }
    #[inline(always)]
    unsafe fn permutex2var(a: Self, idx: Self, b: Self) -> Self {
        let (a, idx, b) = (a.to_array(), idx.to_array(), b.to_array());
        let mut r = [0u64; 8];
        for (l, r) in r.iter_mut().enumerate() {
            let i = (idx[l] & 15) as usize;
            *r = if i < 8 { a[i] } else { b[i - 8] };
        }
        Self::from_array(r)
    }

    #[inline(always)]
    unsafe fn mont_mul<const L: usize>(
        a: &Lanes<Self, L>,
        b: &Lanes<Self, L>,
        m: &VecModulus<Self, L>,
    ) -> Lanes<Self, L> {
        let [r] = values(&fma_mul(&groups(a), &groups(b), m));
        r
    }
    #[inline(always)]
    unsafe fn mont_square<const L: usize>(
        a: &Lanes<Self, L>,
        m: &VecModulus<Self, L>,
    ) -> Lanes<Self, L> {
        let [r] = values(&fma_square(&groups(a), m));
        r
    }
    // Two products in lockstep: four independent chains (10.6 against 13.2 ns a product
    // for BN254 in `mul_alternatives`).
    #[inline(always)]
    unsafe fn mont_mul2<const L: usize>(
        [a, b]: [&Lanes<Self, L>; 2],
        [c, d]: [&Lanes<Self, L>; 2],
        m: &VecModulus<Self, L>,
    ) -> [Lanes<Self, L>; 2] {
        values(&fma_mul(&groups2(a, c), &groups2(b, d), m))
    }
    #[inline(always)]
    unsafe fn mont_square2<const L: usize>(
        a: &Lanes<Self, L>,
        c: &Lanes<Self, L>,
        m: &VecModulus<Self, L>,
    ) -> [Lanes<Self, L>; 2] {
        values(&fma_square(&groups2(a, c), m))
    }
}

/// `H` groups of four lanes, limb-major: `[k][g]` is limb `k` of group `g`.
type Groups<const L: usize, const H: usize> = [[__m256i; H]; L];

/// One value's two vectors as groups.
#[inline(always)]
unsafe fn groups<const L: usize>(a: &Lanes<Avx2, L>) -> Groups<L, 2> {
    let mut r = [[_mm256_setzero_si256(); 2]; L];
    for k in 0..L {
        r[k] = [a[k].0, a[k].1];
    }
    r
}

/// Two values' vectors as four groups.
#[inline(always)]
unsafe fn groups2<const L: usize>(a: &Lanes<Avx2, L>, b: &Lanes<Avx2, L>) -> Groups<L, 4> {
    let mut r = [[_mm256_setzero_si256(); 4]; L];
    for k in 0..L {
        r[k] = [a[k].0, a[k].1, b[k].0, b[k].1];
    }
    r
}

/// Groups back to values (two groups each).
#[inline(always)]
unsafe fn values<const L: usize, const H: usize, const N: usize>(
    t: &Groups<L, H>,
) -> [Lanes<Avx2, L>; N] {
    let zero = _mm256_setzero_si256();
    let mut r = [[Avx2(zero, zero); L]; N];
    for v in 0..N {
        for k in 0..L {
            r[v][k] = Avx2(t[k][2 * v], t[k][2 * v + 1]);
        }
    }
    r
}

/// The quotient digit `q = t·n0 mod 2^52` (non-negative, as a double) of a column whose
/// exact value is `t`.
#[inline(always)]
unsafe fn quotient(t: __m256i, n0: __m256d) -> __m256d {
    let t = to_f64(_mm256_and_si256(t, splat_i(MASK52)));
    let h = _mm256_fmadd_pd(t, n0, splat_f(TWO104));
    let q = _mm256_fmsub_pd(t, n0, _mm256_sub_pd(h, splat_f(TWO104)));
    let negative = _mm256_cmp_pd::<_CMP_LT_OQ>(q, _mm256_setzero_pd());
    _mm256_add_pd(q, _mm256_and_pd(negative, splat_f(TWO52)))
}

/// Signed carry propagation over exact columns (an arithmetic shift by 52, from a
/// logical one): every limb but the top one ends in `[0, 2^52)`.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // limb k and its neighbour k + 1
unsafe fn carry_pass<const L: usize, const H: usize>(t: &mut Groups<L, H>) {
    for k in 0..L - 1 {
        for g in 0..H {
            let shifted = _mm256_srli_epi64::<52>(_mm256_add_epi64(t[k][g], splat_i(1 << 62)));
            let carry = _mm256_sub_epi64(shifted, splat_i(1 << 10));
            t[k][g] = _mm256_and_si256(t[k][g], splat_i(MASK52));
            t[k + 1][g] = _mm256_add_epi64(t[k + 1][g], carry);
        }
    }
}

/// Pairs `i < j < l` with `i + j = k`.
const fn pairs(k: usize, l: usize) -> u64 {
    let mut n = 0;
    let mut i = 0;
    while i < l {
        if k > i && k - i > i && k - i < l {
            n += 1;
        }
        i += 1;
    }
    n
}

/// `lo` low halves and `hi` high halves of raw bits: the bias they add to a column.
const fn bias(lo: u64, hi: u64) -> u64 {
    LO_BITS
        .wrapping_mul(lo)
        .wrapping_add(HI_BITS.wrapping_mul(hi))
}

/// Adds the split of `a·b` to columns `k` (low half) and `k + 1` (high half) of each
/// group.
#[inline(always)]
unsafe fn accumulate<const N: usize, const H: usize>(
    t: &mut [[__m256i; H]; N],
    k: usize,
    a: &[__m256d; H],
    b: &[__m256d; H],
) {
    for g in 0..H {
        let (h, l) = split(a[g], b[g]);
        t[k][g] = _mm256_sub_epi64(t[k][g], l);
        t[k + 1][g] = _mm256_add_epi64(t[k + 1][g], h);
    }
}

/// The Montgomery square on FMA, `H` groups of four lanes in lockstep: the `2L`-column
/// square with each cross product split once and doubled (15 limb products for `L = 5`
/// instead of 25), then `L` reduction steps, as [`super::square_madd52`]; the same limbs.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // column indices i + j read best as such
unsafe fn fma_square<const L: usize, const H: usize>(
    a: &Groups<L, H>,
    m: &VecModulus<Avx2, L>,
) -> Groups<L, H> {
    const MAX: usize = 16;
    assert!(2 * L <= MAX, "at most 8 limbs");
    let zero = _mm256_setzero_si256();
    let zero_f = _mm256_setzero_pd();
    let mut ad = [[zero_f; H]; L];
    for k in 0..L {
        for g in 0..H {
            ad[k][g] = to_f64(a[k][g]);
        }
    }
    let mut t = [[zero; H]; MAX];
    for i in 0..L {
        for j in i + 1..L {
            accumulate(&mut t, i + j, &ad[i], &ad[j]);
        }
    }
    // Exact, then doubled; then the squares.
    for k in 0..2 * L {
        let b = splat_i(bias(pairs(k, L), if k > 0 { pairs(k - 1, L) } else { 0 }));
        for g in 0..H {
            let v = _mm256_sub_epi64(t[k][g], b);
            t[k][g] = _mm256_add_epi64(v, v);
        }
    }
    for i in 0..L {
        accumulate(&mut t, 2 * i, &ad[i], &ad[i]);
    }
    for k in 0..2 * L {
        let b = splat_i(bias((k % 2 == 0) as u64, (k % 2 == 1) as u64));
        for g in 0..H {
            t[k][g] = _mm256_sub_epi64(t[k][g], b);
        }
    }
    // Reduction: step i clears column i, which enters it with i low and i high halves of
    // the earlier steps' `q·p` still biased.
    let n0 = to_f64(m.n0.0);
    for i in 0..L {
        let carried = bias(i as u64, i as u64);
        let mut qd = [zero_f; H];
        for g in 0..H {
            qd[g] = quotient(_mm256_sub_epi64(t[i][g], splat_i(carried)), n0);
        }
        for j in 0..L {
            let pj = to_f64(m.p[j].0);
            accumulate(&mut t, i + j, &qd, &[pj; H]);
        }
        // Column i is now ≡ 0 (mod 2^52) past its biases: carry its value / 2^52.
        let cleared = carried.wrapping_add(LO_BITS).wrapping_sub(1 << 62);
        for g in 0..H {
            let shifted = _mm256_srli_epi64::<52>(_mm256_sub_epi64(t[i][g], splat_i(cleared)));
            let carry = _mm256_sub_epi64(shifted, splat_i(1 << 10));
            t[i + 1][g] = _mm256_add_epi64(t[i + 1][g], carry);
        }
    }
    // Columns L..2L hold the result, biased by the last steps' halves.
    let mut r = [[zero; H]; L];
    for k in 0..L {
        let c = L + k;
        let b = splat_i(bias((2 * L - 1 - c) as u64, (2 * L - c) as u64));
        for g in 0..H {
            r[k][g] = _mm256_sub_epi64(t[c][g], b);
        }
    }
    carry_pass(&mut r);
    r
}

/// The Montgomery product on FMA, `H` groups of four lanes in lockstep (independent
/// chains).
#[inline(always)]
#[allow(clippy::needless_range_loop)] // limb j and its neighbour j + 1
unsafe fn fma_mul<const L: usize, const H: usize>(
    a: &Groups<L, H>,
    b: &Groups<L, H>,
    m: &VecModulus<Avx2, L>,
) -> Groups<L, H> {
    let zero = _mm256_setzero_si256();
    let zero_f = _mm256_setzero_pd();
    let mut ad = [[zero_f; H]; L];
    for k in 0..L {
        for g in 0..H {
            ad[k][g] = to_f64(a[k][g]);
        }
    }
    let n0 = to_f64(m.n0.0);
    // Per round, column 0 gains two low halves and the others two of each: constant
    // biases, removed as the columns shift down.
    let mid_bias = LO_BITS.wrapping_add(HI_BITS).wrapping_mul(2);
    let mut t = [[zero; H]; L];
    for bk in b.iter() {
        let mut bd = [zero_f; H];
        for g in 0..H {
            bd[g] = to_f64(bk[g]);
        }
        let mut top = [zero; H];
        for j in 0..L {
            for g in 0..H {
                let (h, l) = split(ad[j][g], bd[g]);
                t[j][g] = _mm256_sub_epi64(t[j][g], l);
                if j + 1 < L {
                    t[j + 1][g] = _mm256_add_epi64(t[j + 1][g], h);
                } else {
                    top[g] = _mm256_add_epi64(top[g], h);
                }
            }
        }
        let mut qd = [zero_f; H];
        for g in 0..H {
            qd[g] = quotient(_mm256_sub_epi64(t[0][g], splat_i(LO_BITS)), n0);
        }
        for j in 0..L {
            let pj = to_f64(m.p[j].0);
            for g in 0..H {
                let (h, l) = split(qd[g], pj);
                t[j][g] = _mm256_sub_epi64(t[j][g], l);
                if j + 1 < L {
                    t[j + 1][g] = _mm256_add_epi64(t[j + 1][g], h);
                } else {
                    top[g] = _mm256_add_epi64(top[g], h);
                }
            }
        }
        for g in 0..H {
            // Column 0 is now ≡ 0 (mod 2^52): its value / 2^52, plus 2^10, by a logical
            // shift.
            let biased = _mm256_sub_epi64(
                t[0][g],
                splat_i(LO_BITS.wrapping_mul(2).wrapping_sub(1 << 62)),
            );
            let carry = _mm256_srli_epi64::<52>(biased);
            for j in 0..L - 1 {
                let bias = if j == 0 {
                    mid_bias.wrapping_add(1 << 10)
                } else {
                    mid_bias
                };
                t[j][g] = _mm256_sub_epi64(t[j + 1][g], splat_i(bias));
            }
            t[L - 1][g] = _mm256_sub_epi64(top[g], splat_i(HI_BITS.wrapping_mul(2)));
            t[0][g] = _mm256_add_epi64(t[0][g], carry);
        }
    }
    carry_pass(&mut t);
    t
}
