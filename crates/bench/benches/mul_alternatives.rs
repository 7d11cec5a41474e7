//! Two routes to a cheaper 256-bit Montgomery product on CPUs without AVX-512 IFMA,
//! each checked for exact results and timed next to the MULX/ADX product it would
//! replace (issue 21: why neither is built).
//!
//! **AVX2 FMA lanes.** The IFMA lanes' radix-2^52 product rebuilt on double-precision
//! FMA. A 52×52-bit limb product is split exactly under round-to-nearest: `h = a·b +
//! 2^104` rounds to a multiple of 2^52 (`H = round(a·b/2^52)`), and a second FMA gives
//! `l − 1.5·2^52` exactly (`l = a·b − H·2^52`, `|l| ≤ 2^51`), whose bits are a constant
//! minus `l`: three floating-point operations and two integer additions per limb product
//! where IFMA needs two instructions, on twice the vectors for eight lanes (the fourth
//! operation, adding the bias to `l` separately, cost 7 % of a BN254 product: 11.46 →
//! 10.69 ns in lockstep). The timings run fastzk's product (`fastzk_field::ifma::avx2`,
//! which BN254 G1's MSM flush now uses without IFMA). Whether the FMA units and the scalar multiplier overlap needs work
//! placed between a product's rounds, which the library's product does not expose: that
//! experiment runs this file's copy split into rounds (`fma::Product`), checked limb for
//! limb against `ifma::mul` on the software model first.
//!
//! **Karatsuba on the 4×4-limb product** (BN254 `Fq`): three 2×2 products instead of
//! four, plus the sums' carries and two 256-bit subtractions, then the usual four
//! Montgomery reduction rounds; next to the schoolbook product with the same reduction
//! (both portable `u128` code, so the comparison is of the two products alone).
//! Checked against the field's own product.
//!
//! Run: `cargo bench -p fastzk-bench --bench mul_alternatives` (x86-64 with AVX2 and
//! FMA for the first part; `FASTZK_BENCH_ROUNDS`, default 11).

#[cfg(target_arch = "x86_64")]
mod fma {
    use core::arch::x86_64::*;

    use fastzk_field::ifma::IfmaModulus;

    const MASK52: u64 = (1 << 52) - 1;
    const TWO52: f64 = 4503599627370496.0;
    const TWO104: f64 = 20282409603651670423947251286016.0;
    /// `2^104 − 1.5·2^52`: `a·b − (h − HI_LESS_BIAS) = L − 1.5·2^52` lies in
    /// `[−2^53, −2^52]`, where a double's bits are `NEG_LO_BITS − L`.
    const HI_LESS_BIAS: f64 = 20282409603651663668547810230272.0;
    const NEG_LO_BITS: u64 = 0xc338_0000_0000_0000;
    /// What a low half subtracted from a column adds to it besides `L`.
    const LO_BITS: u64 = NEG_LO_BITS.wrapping_neg();
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

    /// `(HI_BITS + H, NEG_LO_BITS − L)` with `H·2^52 + L = a·b`: the first is added to a
    /// column, the second subtracted.
    #[inline(always)]
    unsafe fn split(a: __m256d, b: __m256d) -> (__m256i, __m256i) {
        let h = _mm256_fmadd_pd(a, b, splat_f(TWO104));
        let l = _mm256_fmsub_pd(a, b, _mm256_sub_pd(h, splat_f(HI_LESS_BIAS)));
        (_mm256_castpd_si256(h), _mm256_castpd_si256(l))
    }

    /// `a·b mod 2^52` as a signed exact double in `[−2^51, 2^51]`.
    #[inline(always)]
    unsafe fn low_signed(a: __m256d, b: __m256d) -> __m256d {
        let h = _mm256_fmadd_pd(a, b, splat_f(TWO104));
        _mm256_fmsub_pd(a, b, _mm256_sub_pd(h, splat_f(TWO104)))
    }

    /// A Montgomery product of `H` groups of four lanes in lockstep, limb-major (`a[k][g]`
    /// is limb `k` of group `g`), one round per limb of `b`, so that other work can be
    /// placed between rounds: `a·b/2^(52L) mod p` with the IFMA lanes' bounds (inputs
    /// below `8p` with normalised limbs, result below `2p`, normalised) and the same limbs
    /// as `fastzk_field::ifma::mul`.
    pub struct Product<const L: usize, const H: usize> {
        a: [[__m256d; H]; L],
        t: [[__m256i; H]; L],
    }

    impl<const L: usize, const H: usize> Product<L, H> {
        #[inline(always)]
        pub unsafe fn start(a: &[[__m256i; H]; L]) -> Self {
            let mut ad = [[_mm256_setzero_pd(); H]; L];
            for k in 0..L {
                for g in 0..H {
                    ad[k][g] = to_f64(a[k][g]);
                }
            }
            Self {
                a: ad,
                t: [[_mm256_setzero_si256(); H]; L],
            }
        }

        /// Multiplies by limb `bk` of `b` and divides by 2^52.
        #[inline(always)]
        pub unsafe fn round<const W: usize>(&mut self, bk: &[__m256i; H], m: &IfmaModulus<W, L>) {
            let zero = _mm256_setzero_si256();
            let zero_f = _mm256_setzero_pd();
            let t = &mut self.t;
            let mut top = [zero; H];
            let mut bd = [zero_f; H];
            for g in 0..H {
                bd[g] = to_f64(bk[g]);
            }
            for j in 0..L {
                for g in 0..H {
                    let (h, l) = split(self.a[j][g], bd[g]);
                    t[j][g] = _mm256_sub_epi64(t[j][g], l);
                    if j + 1 < L {
                        t[j + 1][g] = _mm256_add_epi64(t[j + 1][g], h);
                    } else {
                        top[g] = _mm256_add_epi64(top[g], h);
                    }
                }
            }
            // q = t0·n0 mod 2^52, made non-negative.
            let n0 = to_f64(splat_i(m.n0));
            let mut qd = [zero_f; H];
            for g in 0..H {
                let t0 = _mm256_sub_epi64(t[0][g], splat_i(LO_BITS));
                let t0 = to_f64(_mm256_and_si256(t0, splat_i(MASK52)));
                let q = low_signed(t0, n0);
                let wrap = _mm256_and_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(q, zero_f), splat_f(TWO52));
                qd[g] = _mm256_add_pd(q, wrap);
            }
            for j in 0..L {
                let pj = to_f64(splat_i(m.p[j]));
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
            // Each round leaves the same integer biases (column 0: two low halves; the
            // others: two of each): constants, removed here.
            let mid_bias = LO_BITS.wrapping_add(HI_BITS).wrapping_mul(2);
            for g in 0..H {
                // Column 0 is now ≡ 0 (mod 2^52): its value / 2^52, plus 2^10, by a
                // logical shift.
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

        /// Signed carry propagation (an arithmetic shift by 52, from a logical one).
        #[inline(always)]
        #[allow(clippy::needless_range_loop)] // limb k and its neighbour k + 1
        pub unsafe fn finish(self) -> [[__m256i; H]; L] {
            let mut t = self.t;
            for k in 0..L - 1 {
                for g in 0..H {
                    let shifted =
                        _mm256_srli_epi64::<52>(_mm256_add_epi64(t[k][g], splat_i(1 << 62)));
                    let carry = _mm256_sub_epi64(shifted, splat_i(1 << 10));
                    t[k][g] = _mm256_and_si256(t[k][g], splat_i(MASK52));
                    t[k + 1][g] = _mm256_add_epi64(t[k + 1][g], carry);
                }
            }
            t
        }
    }

    /// The whole product.
    #[inline(always)]
    pub unsafe fn mul<const W: usize, const L: usize, const H: usize>(
        a: &[[__m256i; H]; L],
        b: &[[__m256i; H]; L],
        m: &IfmaModulus<W, L>,
    ) -> [[__m256i; H]; L] {
        let mut p = Product::start(a);
        for bk in b.iter() {
            p.round(bk, m);
        }
        p.finish()
    }

    /// Lane `4g + i` of limb `k` as plain words.
    pub fn to_words<const L: usize, const H: usize>(v: &[[__m256i; H]; L]) -> [[u64; 8]; L] {
        let mut out = [[0u64; 8]; L];
        for k in 0..L {
            for g in 0..H.min(2) {
                // SAFETY: an unaligned store of one vector into four words.
                unsafe {
                    _mm256_storeu_si256(out[k][4 * g..].as_mut_ptr() as *mut __m256i, v[k][g])
                };
            }
        }
        out
    }

    /// Plain words as lanes (the first eight lanes; further groups repeat them).
    pub fn from_words<const L: usize, const H: usize>(w: &[[u64; 8]; L]) -> [[__m256i; H]; L] {
        // SAFETY: AVX, which every x86-64 CPU with AVX2 has (main checks AVX2).
        let mut out = [[unsafe { _mm256_setzero_si256() }; H]; L];
        for k in 0..L {
            for g in 0..H {
                // SAFETY: an unaligned load of four words.
                out[k][g] =
                    unsafe { _mm256_loadu_si256(w[k][4 * (g % 2)..].as_ptr() as *const __m256i) };
            }
        }
        out
    }
}

/// Portable separated-operand-scanning Montgomery products on four limbs.
#[cfg(target_arch = "x86_64")]
mod sos {
    use fastzk_field::bigint::{adc, mac, sbb};

    /// The 2×2-limb product.
    #[inline(always)]
    fn mul2(a: [u64; 2], b: [u64; 2]) -> [u64; 4] {
        let (r0, c) = mac(0, a[0], b[0], 0);
        let (r1, c) = mac(0, a[1], b[0], c);
        let (r1, c2) = mac(r1, a[0], b[1], 0);
        let (r2, c3) = mac(c, a[1], b[1], c2);
        [r0, r1, r2, c3]
    }

    /// The 4×4-limb product, schoolbook: 16 multiplications.
    #[inline(always)]
    pub fn schoolbook(a: &[u64; 4], b: &[u64; 4]) -> [u64; 8] {
        let mut t = [0u64; 8];
        for i in 0..4 {
            let mut carry = 0;
            for j in 0..4 {
                (t[i + j], carry) = mac(t[i + j], a[j], b[i], carry);
            }
            t[i + 4] = carry;
        }
        t
    }

    /// The 4×4-limb product, Karatsuba on 128-bit halves: 12 multiplications.
    #[inline(always)]
    pub fn karatsuba(a: &[u64; 4], b: &[u64; 4]) -> [u64; 8] {
        let lo = mul2([a[0], a[1]], [b[0], b[1]]);
        let hi = mul2([a[2], a[3]], [b[2], b[3]]);
        // (a_lo + a_hi)(b_lo + b_hi) with 129-bit sums: the low 128 bits' product, plus
        // the carry bits' cross terms.
        let (sa0, c) = adc(a[0], a[2], 0);
        let (sa1, ca) = adc(a[1], a[3], c);
        let (sb0, c) = adc(b[0], b[2], 0);
        let (sb1, cb) = adc(b[1], b[3], c);
        let m = mul2([sa0, sa1], [sb0, sb1]);
        let (mask_a, mask_b) = (ca.wrapping_neg(), cb.wrapping_neg());
        let (m2, c) = adc(m[2], sb0 & mask_a, 0);
        let (m3, c) = adc(m[3], sb1 & mask_a, c);
        let m4 = c + (ca & cb);
        let (m2, c) = adc(m2, sa0 & mask_b, 0);
        let (m3, c) = adc(m3, sa1 & mask_b, c);
        let m4 = m4 + c;
        // The middle term: that product minus the low and high products.
        let (d0, br) = sbb(m[0], lo[0], 0);
        let (d1, br) = sbb(m[1], lo[1], br);
        let (d2, br) = sbb(m2, lo[2], br);
        let (d3, br) = sbb(m3, lo[3], br);
        let d4 = m4 - br;
        let (d0, br) = sbb(d0, hi[0], 0);
        let (d1, br) = sbb(d1, hi[1], br);
        let (d2, br) = sbb(d2, hi[2], br);
        let (d3, br) = sbb(d3, hi[3], br);
        let d4 = d4 - br;
        let (t2, c) = adc(lo[2], d0, 0);
        let (t3, c) = adc(lo[3], d1, c);
        let (t4, c) = adc(hi[0], d2, c);
        let (t5, c) = adc(hi[1], d3, c);
        let (t6, c) = adc(hi[2], d4, c);
        [lo[0], lo[1], t2, t3, t4, t5, t6, hi[3] + c]
    }

    /// Four Montgomery reduction rounds: `t/2^256 mod p`, below `2p`.
    #[inline(always)]
    pub fn reduce(mut t: [u64; 8], p: &[u64; 4], inv: u64) -> [u64; 4] {
        let mut top = 0u64;
        for i in 0..4 {
            let m = t[i].wrapping_mul(inv);
            let (_, mut carry) = mac(t[i], m, p[0], 0);
            for j in 1..4 {
                (t[i + j], carry) = mac(t[i + j], m, p[j], carry);
            }
            (t[i + 4], top) = adc(t[i + 4], carry, top);
        }
        [t[4], t[5], t[6], t[7]]
    }
}

#[cfg(target_arch = "x86_64")]
mod run {
    use core::arch::x86_64::__m512i;
    use std::hint::black_box;

    use fastzk_bench::paired::{median, seconds};
    use fastzk_field::ifma::avx2::Avx2;
    use fastzk_field::ifma::{self, Avx512, IfmaField, IfmaModulus, Model, VecModulus};
    use fastzk_field::{bls12_381, bn254, ChordArith, Field, MontConfig};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    use super::{fma, sos};

    /// Random lanes below `8p` with normalised limbs, the edge limbs (0, 2^52 − 1, the
    /// modulus' own limb) mixed in.
    fn lanes_below_8p<const L: usize>(p: &[u64; L], rng: &mut ChaCha20Rng) -> [[u64; 8]; L] {
        core::array::from_fn(|k| {
            core::array::from_fn(|_| {
                let limb = match rng.gen_range(0..8) {
                    0 => 0,
                    1 => (1 << 52) - 1,
                    2 => p[k],
                    _ => rng.gen::<u64>() & ((1 << 52) - 1),
                };
                if k == L - 1 {
                    limb % (8 * p[L - 1])
                } else {
                    limb
                }
            })
        })
    }

    /// The FMA product equals `ifma::mul` on the model, limb for limb.
    fn check<const W: usize, const L: usize>(m: &IfmaModulus<W, L>, cases: usize) {
        let mut rng = ChaCha20Rng::seed_from_u64(52);
        // SAFETY: the model needs no CPU feature.
        let model = unsafe { VecModulus::<Model, L>::new(m) };
        for case in 0..cases {
            let (a, b) = (
                lanes_below_8p(&m.p, &mut rng),
                lanes_below_8p(&m.p, &mut rng),
            );
            // SAFETY: the model needs no CPU feature; main checked AVX2 and FMA.
            let (want, got) = unsafe {
                let want = ifma::mul(&a.map(Model), &b.map(Model), &model).map(|v| v.0);
                (want, fma_product::<W, L>(&a, &b, m))
            };
            assert_eq!(
                got, want,
                "FMA product differs from the IFMA model at case {case}"
            );
        }
    }

    #[target_feature(enable = "avx2,fma")]
    unsafe fn fma_product<const W: usize, const L: usize>(
        a: &[[u64; 8]; L],
        b: &[[u64; 8]; L],
        m: &IfmaModulus<W, L>,
    ) -> [[u64; 8]; L] {
        fma::to_words(&fma::mul::<W, L, 2>(
            &fma::from_words(a),
            &fma::from_words(b),
            m,
        ))
    }

    const ITERS: usize = 100_000;

    /// Seconds taken by `f`, its result kept alive.
    fn time<T>(f: impl FnOnce() -> T) -> f64 {
        seconds(|| {
            black_box(f());
        })
    }

    /// Four 8-lane values multiplied in turn (`ifma::mul` on fastzk's `Avx2` lanes), or in
    /// two pairs (`ifma::mul2`: four vectors in lockstep): 32 products per iteration.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn fma_loop<const W: usize, const L: usize>(m: &IfmaModulus<W, L>, paired: bool) -> u64 {
        let k = VecModulus::<Avx2, L>::new(m);
        let mut v: [[Avx2; L]; 4] =
            core::array::from_fn(|c| core::array::from_fn(|i| Avx2::splat(m.one[i] ^ c as u64)));
        let b = k.to_factor;
        for _ in 0..ITERS {
            if paired {
                [v[0], v[1]] = ifma::mul2([&v[0], &b], [&v[1], &b], &k);
                [v[2], v[3]] = ifma::mul2([&v[2], &b], [&v[3], &b], &k);
            } else {
                for x in v.iter_mut() {
                    *x = ifma::mul(x, &b, &k);
                }
            }
        }
        v[0][0].to_array()[0]
    }

    /// The same with the IFMA lanes.
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn ifma_loop<const W: usize, const L: usize>(m: &IfmaModulus<W, L>) -> u64 {
        let k = VecModulus::<__m512i, L>::new(m);
        let mut v: [[__m512i; L]; 4] =
            core::array::from_fn(|c| core::array::from_fn(|i| __m512i::splat(m.one[i] ^ c as u64)));
        for _ in 0..ITERS {
            for x in v.iter_mut() {
                *x = ifma::mul(x, &k.to_factor, &k);
            }
        }
        v[0][0].to_array()[0]
    }

    /// 32 scalar products per iteration in four independent chains (the flush's
    /// `chain_mul`, on MULX/ADX where the CPU has it).
    fn scalar_loop<F: ChordArith + Field>(x: F) -> F {
        let mut v = [x, x + x, x + F::ONE, x - F::ONE];
        for _ in 0..ITERS * 8 {
            for y in v.iter_mut() {
                *y = y.chain_mul(&x);
            }
        }
        v[0] + v[1] + v[2] + v[3]
    }

    /// One 16-lane FMA product (`H = 4`) and 4·L scalar products per iteration: with the
    /// scalar products between the FMA rounds (`interleave`), or all after them.
    #[target_feature(enable = "avx2,fma,bmi2,adx")]
    unsafe fn both_loop<F: ChordArith + Field, const W: usize, const L: usize>(
        m: &IfmaModulus<W, L>,
        x: F,
        interleave: bool,
    ) -> (F, u64) {
        let mut v = fma::from_words::<L, 4>(&[[m.one[0]; 8]; L]);
        let b = fma::from_words::<L, 4>(&m.to_factor.map(|x| [x; 8]));
        let mut s = [x, x + x, x + F::ONE, x - F::ONE];
        for _ in 0..ITERS / 2 {
            let mut p = fma::Product::start(&v);
            for bk in b.iter() {
                p.round(bk, m);
                if interleave {
                    for y in s.iter_mut() {
                        *y = y.chain_mul(&x);
                    }
                }
            }
            v = p.finish();
            if !interleave {
                for _ in 0..L {
                    for y in s.iter_mut() {
                        *y = y.chain_mul(&x);
                    }
                }
            }
        }
        (s[0] + s[1] + s[2] + s[3], fma::to_words(&v)[0][0])
    }

    fn scalar_only<F: ChordArith + Field, const L: usize>(x: F) -> F {
        let mut s = [x, x + x, x + F::ONE, x - F::ONE];
        for _ in 0..ITERS / 2 * L {
            for y in s.iter_mut() {
                *y = y.chain_mul(&x);
            }
        }
        s[0] + s[1] + s[2] + s[3]
    }

    #[target_feature(enable = "avx2,fma")]
    unsafe fn fma_only<const W: usize, const L: usize>(m: &IfmaModulus<W, L>) -> u64 {
        let mut v = fma::from_words::<L, 4>(&[[m.one[0]; 8]; L]);
        let b = fma::from_words::<L, 4>(&m.to_factor.map(|x| [x; 8]));
        for _ in 0..ITERS / 2 {
            v = fma::mul(&v, &b, m);
        }
        fma::to_words(&v)[0][0]
    }

    fn report<F: IfmaField<W, L> + ChordArith, const W: usize, const L: usize>(
        name: &str,
        rounds: usize,
    ) {
        let m = &F::IFMA;
        check::<W, L>(m, 20_000);
        println!("checked: the FMA product equals the IFMA model's on 20,000 lane pairs ({name})");
        let x = F::from_u64(3).inverse().expect("3 is invertible");
        let ifma = ifma::is_supported();
        let per = |s: f64, products: usize| s * 1e9 / products as f64;
        let (mut scalar, mut fma2, mut fma4, mut lanes) = (vec![], vec![], vec![], vec![]);
        let (mut s_only, mut f_only, mut after, mut between) = (vec![], vec![], vec![], vec![]);
        for _ in 0..rounds {
            let n = 32 * ITERS;
            scalar.push(per(time(|| scalar_loop(x)), n));
            // SAFETY: main checked AVX2 and FMA (and BMI2/ADX where the scalar product
            // uses them: `chain_mul` dispatches on the CPU itself).
            unsafe {
                fma2.push(per(time(|| fma_loop::<W, L>(m, false)), n));
                fma4.push(per(time(|| fma_loop::<W, L>(m, true)), n));
                if ifma {
                    lanes.push(per(time(|| ifma_loop::<W, L>(m)), n));
                }
                let block = ITERS / 2;
                s_only.push(time(|| scalar_only::<F, L>(x)) * 1e9 / block as f64);
                f_only.push(time(|| fma_only::<W, L>(m)) * 1e9 / block as f64);
                after.push(time(|| both_loop::<F, W, L>(m, x, false)) * 1e9 / block as f64);
                between.push(time(|| both_loop::<F, W, L>(m, x, true)) * 1e9 / block as f64);
            }
        }
        println!("{name}: ns per product, medians of {rounds} rounds");
        println!(
            "  MULX/ADX scalar product (4 independent chains)   {:6.2}",
            median(scalar)
        );
        println!(
            "  FMA lanes (fastzk), 8 lanes per product          {:6.2}",
            median(fma2)
        );
        println!(
            "  FMA lanes (fastzk), two products in lockstep      {:6.2}",
            median(fma4)
        );
        if ifma {
            println!(
                "  IFMA lanes, 8 lanes per product                   {:6.2}",
                median(lanes)
            );
        }
        let (so, fo) = (median(s_only), median(f_only));
        println!(
            "  one 16-lane FMA product + {} scalar products, ns: scalar alone {so:.0}, FMA alone {fo:.0}, \
             sum {:.0}; together, scalar after the FMA rounds {:.0}, between them {:.0}",
            4 * L,
            so + fo,
            median(after),
            median(between)
        );
    }

    const P: [u64; 4] = <bn254::FqConfig as MontConfig<4>>::MODULUS;
    const INV: u64 = <bn254::FqConfig as MontConfig<4>>::INV;

    /// Both portable products, reduced, against the field's product (random elements and
    /// 0, 1, p − 1).
    fn check_karatsuba(cases: usize) {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let edges = [bn254::Fq::ZERO, bn254::Fq::ONE, -bn254::Fq::ONE];
        for case in 0..cases {
            let pick = |rng: &mut ChaCha20Rng| match rng.gen_range(0..6) {
                e @ 0..=2 => edges[e],
                _ => bn254::Fq::random(rng),
            };
            let (x, y) = (pick(&mut rng), pick(&mut rng));
            let (a, b) = (x.montgomery_limbs(), y.montgomery_limbs());
            let want = (x * y).montgomery_limbs();
            for (name, wide) in [
                ("schoolbook", sos::schoolbook(&a, &b)),
                ("karatsuba", sos::karatsuba(&a, &b)),
            ] {
                let r = bn254::Fq::from_montgomery_limbs_unchecked(sos::reduce(wide, &P, INV));
                // Below 2p: one conditional subtraction, by the field's own addition.
                let got = (r + bn254::Fq::ZERO).montgomery_limbs();
                assert_eq!(got, want, "{name} product differs at case {case}");
            }
        }
    }

    fn sos_loop(karatsuba: bool) -> [u64; 4] {
        let x = black_box(
            bn254::Fq::from_u64(3)
                .inverse()
                .expect("invertible")
                .montgomery_limbs(),
        );
        let mut v = [
            x,
            [x[1], x[0], x[2], x[3]],
            [x[2], x[1], x[0], x[3]],
            [x[0], x[2], x[1], x[3]],
        ];
        for _ in 0..ITERS * 8 {
            for y in v.iter_mut() {
                let wide = if karatsuba {
                    sos::karatsuba(y, &x)
                } else {
                    sos::schoolbook(y, &x)
                };
                *y = sos::reduce(wide, &P, INV);
            }
        }
        v[0]
    }

    fn report_karatsuba(rounds: usize) {
        check_karatsuba(100_000);
        println!("checked: both portable products equal the field's on 100,000 pairs");
        let x = bn254::Fq::from_u64(3).inverse().expect("invertible");
        let (mut asm, mut school, mut kara) = (vec![], vec![], vec![]);
        let n = (32 * ITERS) as f64;
        for _ in 0..rounds {
            asm.push(time(|| scalar_loop(x)) * 1e9 / n);
            school.push(time(|| sos_loop(false)) * 1e9 / n);
            kara.push(time(|| sos_loop(true)) * 1e9 / n);
        }
        println!("BN254 Fq 4×4-limb products (4 independent chains): ns per product, medians of {rounds} rounds");
        println!(
            "  fastzk's product (MULX/ADX assembly where the CPU has it) {:6.2}",
            median(asm)
        );
        println!(
            "  portable schoolbook + reduction                         {:6.2}",
            median(school)
        );
        println!(
            "  portable Karatsuba + reduction                          {:6.2}",
            median(kara)
        );
    }

    pub fn main() {
        let rounds = std::env::var("FASTZK_BENCH_ROUNDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(11);
        report_karatsuba(rounds);
        if !(std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")) {
            println!("this CPU has no AVX2 and FMA: no FMA lanes to measure");
            return;
        }
        report::<bn254::Fq, 4, 5>("BN254 Fq (5 limbs of 52 bits)", rounds);
        report::<bls12_381::Fq, 6, 8>("BLS12-381 Fq (8 limbs of 52 bits)", rounds);
    }
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    run::main();
    #[cfg(not(target_arch = "x86_64"))]
    println!("x86-64 only: AVX2 and FMA");
}
