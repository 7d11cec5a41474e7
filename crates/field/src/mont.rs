//! Prime fields in Montgomery form: `Fp<P, N>` holds `a·R mod p` as `N` little-endian u64
//! limbs with `R = 2^(64·N)`, the same bytes as arkworks, sppark and snarkjs files.

use core::cmp::Ordering;
use core::fmt;
use core::hash::Hash;
use core::iter::{Product, Sum};
use core::marker::PhantomData;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use num_bigint::BigUint;
use rand_core::RngCore;

use crate::bigint;
use crate::traits::{Field, FieldError, Legendre, PrimeField};

/// `N` modulus limbs followed by `-p^{-1} mod 2^64`: the layout the assembly reads.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MontTable<const N: usize> {
    pub modulus: [u64; N],
    pub inv: u64,
}

/// Everything that defines a Montgomery prime field: its modulus and a small multiplicative
/// generator. All other constants are derived at compile time.
///
/// The modulus must leave a spare bit (top limb below `2^63 - 1`), which every pairing
/// field here does; it lets additions skip a carry word and multiplication use the
/// "no-carry" CIOS. `Fp` refuses to compile for a modulus without it.
pub trait MontConfig<const N: usize>:
    'static + Copy + Clone + fmt::Debug + Default + PartialEq + Eq + Hash + Send + Sync
{
    const NAME: &'static str;
    const MODULUS: [u64; N];
    /// A generator of the multiplicative group, as a small integer.
    const GENERATOR: u64;

    const SPARE_BIT: () = assert!(
        Self::MODULUS[N - 1] < (u64::MAX >> 1) - 1,
        "Montgomery fields need a spare top bit"
    );
    const INV: u64 = bigint::mont_inv(Self::MODULUS[0]);
    const TABLE: MontTable<N> = MontTable {
        modulus: Self::MODULUS,
        inv: Self::INV,
    };
    const R: [u64; N] = bigint::r_mod(&Self::MODULUS);
    const R2: [u64; N] = bigint::r2_mod(&Self::MODULUS);
    const MODULUS_BITS: u32 = bigint::num_bits(&Self::MODULUS);
    const MODULUS_MINUS_ONE: [u64; N] = bigint::sub(&Self::MODULUS, &one_limbs::<N>()).0;
    const MODULUS_MINUS_TWO: [u64; N] = bigint::sub(&Self::MODULUS_MINUS_ONE, &one_limbs::<N>()).0;
    const HALF_MODULUS_MINUS_ONE: [u64; N] = bigint::shr1(&Self::MODULUS_MINUS_ONE);
    const TWO_ADICITY: u32 = bigint::trailing_zeros(&Self::MODULUS_MINUS_ONE);
    /// The odd part `t` of `p - 1 = 2^s · t`.
    const TRACE: [u64; N] = bigint::shr(&Self::MODULUS_MINUS_ONE, Self::TWO_ADICITY);
    const HALF_TRACE_MINUS_ONE: [u64; N] = bigint::shr1(&Self::TRACE);
    const GENERATOR_MONT: [u64; N] = bigint::mont_mul(
        &small_limbs::<N>(Self::GENERATOR),
        &Self::R2,
        &Self::MODULUS,
        Self::INV,
    );
    const TWO_ADIC_ROOT_MONT: [u64; N] = bigint::mont_pow(
        &Self::GENERATOR_MONT,
        &Self::TRACE,
        &Self::R,
        &Self::MODULUS,
        Self::INV,
    );
}

/// Hides a value from the optimiser at no cost, so masks stay masks. LLVM otherwise turns
/// `x & mask` with a mask from a borrow back into a branch, which mispredicts half the
/// time on random operands.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
fn opaque(mut x: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: no instructions (only a comment naming the register); nothing changes.
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}

/// Lazy-reduction helpers for 4 limbs as short carry chains (LLVM otherwise builds the
/// borrow chains from `setb`/`or` and the comparison from data-dependent branches, which
/// mispredict on random operands).
#[cfg(target_arch = "x86_64")]
mod lazy4 {
    /// `x − m` if `x ≥ m`, else `x` (sub/sbb, then cmov).
    #[inline(always)]
    pub fn cond_sub(x: [u64; 4], m: &'static [u64; 4]) -> [u64; 4] {
        let [mut x0, mut x1, mut x2, mut x3] = x;
        // SAFETY: register arithmetic and four reads of `m`.
        unsafe {
            core::arch::asm!(
                "mov {y0}, {x0}",
                "mov {y1}, {x1}",
                "mov {y2}, {x2}",
                "mov {y3}, {x3}",
                "sub {y0}, qword ptr [{m}]",
                "sbb {y1}, qword ptr [{m} + 8]",
                "sbb {y2}, qword ptr [{m} + 16]",
                "sbb {y3}, qword ptr [{m} + 24]",
                "cmovnc {x0}, {y0}",
                "cmovnc {x1}, {y1}",
                "cmovnc {x2}, {y2}",
                "cmovnc {x3}, {y3}",
                x0 = inout(reg) x0,
                x1 = inout(reg) x1,
                x2 = inout(reg) x2,
                x3 = inout(reg) x3,
                y0 = out(reg) _,
                y1 = out(reg) _,
                y2 = out(reg) _,
                y3 = out(reg) _,
                m = in(reg) m.as_ptr(),
                options(pure, readonly, nostack),
            );
        }
        [x0, x1, x2, x3]
    }

    /// `x + y` (wrapping).
    #[inline(always)]
    pub fn add(x: [u64; 4], y: [u64; 4]) -> [u64; 4] {
        let [mut x0, mut x1, mut x2, mut x3] = x;
        // SAFETY: register arithmetic only.
        unsafe {
            core::arch::asm!(
                "add {x0}, {y0}",
                "adc {x1}, {y1}",
                "adc {x2}, {y2}",
                "adc {x3}, {y3}",
                x0 = inout(reg) x0,
                x1 = inout(reg) x1,
                x2 = inout(reg) x2,
                x3 = inout(reg) x3,
                y0 = in(reg) y[0],
                y1 = in(reg) y[1],
                y2 = in(reg) y[2],
                y3 = in(reg) y[3],
                options(pure, nomem, nostack),
            );
        }
        [x0, x1, x2, x3]
    }

    /// `x − y + m` (wrapping; exact when the true value lies in `[0, 2^256)`).
    #[inline(always)]
    pub fn sub_add(x: [u64; 4], y: [u64; 4], m: &'static [u64; 4]) -> [u64; 4] {
        let [mut x0, mut x1, mut x2, mut x3] = x;
        // SAFETY: register arithmetic and four reads of `m`.
        unsafe {
            core::arch::asm!(
                "sub {x0}, {y0}",
                "sbb {x1}, {y1}",
                "sbb {x2}, {y2}",
                "sbb {x3}, {y3}",
                "add {x0}, qword ptr [{m}]",
                "adc {x1}, qword ptr [{m} + 8]",
                "adc {x2}, qword ptr [{m} + 16]",
                "adc {x3}, qword ptr [{m} + 24]",
                x0 = inout(reg) x0,
                x1 = inout(reg) x1,
                x2 = inout(reg) x2,
                x3 = inout(reg) x3,
                y0 = in(reg) y[0],
                y1 = in(reg) y[1],
                y2 = in(reg) y[2],
                y3 = in(reg) y[3],
                m = in(reg) m.as_ptr(),
                options(pure, readonly, nostack),
            );
        }
        [x0, x1, x2, x3]
    }
}

/// `[u64; N]` as `[u64; 4]`; only called when `N == 4`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn as4<const N: usize>(x: &[u64; N]) -> [u64; 4] {
    assert!(N == 4);
    // SAFETY: N == 4 (checked; the check folds away).
    unsafe { *(x.as_ptr() as *const [u64; 4]) }
}
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn from4<const N: usize>(x: [u64; 4]) -> [u64; N] {
    assert!(N == 4);
    let mut r = [0u64; N];
    // SAFETY: N == 4 (checked; the check folds away).
    unsafe { core::ptr::copy_nonoverlapping(x.as_ptr(), r.as_mut_ptr(), 4) };
    r
}
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn static4<const N: usize>(x: &'static [u64; N]) -> &'static [u64; 4] {
    assert!(N == 4);
    // SAFETY: N == 4 (checked; the check folds away).
    unsafe { &*(x.as_ptr() as *const [u64; 4]) }
}

/// All ones if `bit` is 1, zero if 0, opaque to the optimiser.
#[inline(always)]
fn mask_from_bit(bit: u64) -> u64 {
    opaque(bit.wrapping_neg())
}

/// `if cond { a } else { b }` limb by limb, without a branch.
#[inline(always)]
fn select<const N: usize>(cond: bool, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
    let mask = mask_from_bit(cond as u64);
    let mut r = [0u64; N];
    for i in 0..N {
        r[i] = b[i] ^ ((a[i] ^ b[i]) & mask);
    }
    r
}

const fn one_limbs<const N: usize>() -> [u64; N] {
    small_limbs(1)
}

const fn small_limbs<const N: usize>(v: u64) -> [u64; N] {
    let mut l = [0u64; N];
    l[0] = v;
    l
}

/// An element of the prime field described by `P`, in Montgomery form, always `< p`.
pub struct Fp<P: MontConfig<N>, const N: usize> {
    limbs: [u64; N],
    _config: PhantomData<P>,
}

impl<P: MontConfig<N>, const N: usize> Clone for Fp<P, N> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: MontConfig<N>, const N: usize> Copy for Fp<P, N> {}
impl<P: MontConfig<N>, const N: usize> PartialEq for Fp<P, N> {
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        self.limbs == other.limbs
    }
}
impl<P: MontConfig<N>, const N: usize> Eq for Fp<P, N> {}
impl<P: MontConfig<N>, const N: usize> Hash for Fp<P, N> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.limbs.hash(state)
    }
}
impl<P: MontConfig<N>, const N: usize> Default for Fp<P, N> {
    fn default() -> Self {
        Self::ZERO
    }
}

#[cfg(target_arch = "x86_64")]
mod detect {
    use core::sync::atomic::{AtomicU8, Ordering};

    static ADX: AtomicU8 = AtomicU8::new(0);

    /// Whether MULX/ADX may be used: detected once, then one relaxed load per call.
    #[inline(always)]
    pub fn has_adx() -> bool {
        match ADX.load(Ordering::Relaxed) {
            2 => true,
            1 => false,
            _ => detect(),
        }
    }

    #[cold]
    fn detect() -> bool {
        let yes = std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("adx")
            && std::env::var_os("FASTZK_NO_ADX").is_none();
        ADX.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
        yes
    }
}

/// Whether this process multiplies with the MULX/ADX assembly (`FASTZK_NO_ADX` turns it off).
pub fn uses_adx() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        detect::has_adx()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl<P: MontConfig<N>, const N: usize> Fp<P, N> {
    pub const ZERO: Self = Self::from_montgomery_limbs_unchecked([0; N]);
    pub const ONE: Self = Self::from_montgomery_limbs_unchecked(P::R);

    /// Wraps raw Montgomery limbs without checking they are below `p`.
    #[inline(always)]
    pub const fn from_montgomery_limbs_unchecked(limbs: [u64; N]) -> Self {
        Self {
            limbs,
            _config: PhantomData,
        }
    }

    /// The raw Montgomery-form limbs (what files and the GPU store).
    #[inline(always)]
    pub const fn montgomery_limbs(&self) -> [u64; N] {
        self.limbs
    }

    /// Wraps Montgomery limbs, rejecting values `>= p`.
    pub fn from_montgomery_limbs(limbs: [u64; N]) -> Result<Self, FieldError> {
        if bigint::geq(&limbs, &P::MODULUS) {
            return Err(FieldError::NotCanonical);
        }
        Ok(Self::from_montgomery_limbs_unchecked(limbs))
    }

    /// From a canonical integer below `p`; panics (at compile time in constants) otherwise.
    pub const fn from_canonical_limbs_const(limbs: [u64; N]) -> Self {
        assert!(!bigint::geq(&limbs, &P::MODULUS), "value not below modulus");
        Self::from_montgomery_limbs_unchecked(bigint::mont_mul(&limbs, &P::R2, &P::MODULUS, P::INV))
    }

    /// From a canonical big-endian hex string; panics (at compile time in constants) if
    /// malformed or `>= p`.
    pub const fn from_hex(s: &str) -> Self {
        Self::from_canonical_limbs_const(bigint::from_hex::<N>(s))
    }

    pub fn from_canonical_limbs(limbs: [u64; N]) -> Result<Self, FieldError> {
        if bigint::geq(&limbs, &P::MODULUS) {
            return Err(FieldError::NotCanonical);
        }
        Ok(Self::from_montgomery_limbs_unchecked(limbs)
            * Self::from_montgomery_limbs_unchecked(P::R2))
    }

    /// The canonical integer, as little-endian limbs.
    #[inline]
    pub fn to_canonical_limbs(&self) -> [u64; N] {
        let mut one = [0u64; N];
        one[0] = 1;
        (*self * Self::from_montgomery_limbs_unchecked(one)).limbs
    }

    /// `x mod p` for `x < 2p`, after a multiplication (LLVM turns this comparison into
    /// branch-free code there; measured faster than the subtract-and-select below).
    #[inline(always)]
    fn reduce_once(mut limbs: [u64; N]) -> Self {
        if bigint::geq(&limbs, &P::MODULUS) {
            limbs = bigint::sub(&limbs, &P::MODULUS).0;
        }
        Self::from_montgomery_limbs_unchecked(limbs)
    }

    /// Portable no-carry CIOS multiplication; the fallback, and the reference the
    /// assembly is tested against.
    #[inline(always)]
    pub fn mul_portable(&self, rhs: &Self) -> Self {
        Self::reduce_once(Self::cios_portable(&self.limbs, &rhs.limbs))
    }

    /// No-carry CIOS without the final subtraction. `a` is the operand whose limbs form the
    /// inner carry chain: every intermediate stays below `a + p`, so this is exact for
    /// any `b < R` as long as `a + p < R`; the result is `< a·b/R + p`.
    #[inline(always)]
    fn cios_portable(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        let () = P::SPARE_BIT;
        let p = &P::MODULUS;
        let mut r = [0u64; N];
        for &bi in b.iter() {
            let (t0, mut c1) = bigint::mac(r[0], a[0], bi, 0);
            let m = t0.wrapping_mul(P::INV);
            let (_, mut c2) = bigint::mac(t0, m, p[0], 0);
            for j in 1..N {
                let (tj, c1n) = bigint::mac(r[j], a[j], bi, c1);
                c1 = c1n;
                let (rj, c2n) = bigint::mac(tj, m, p[j], c2);
                c2 = c2n;
                r[j - 1] = rj;
            }
            r[N - 1] = c1.wrapping_add(c2);
        }
        r
    }

    /// Montgomery product `a·b/R`, not reduced below `p`, with `chain` as the operand whose
    /// limbs form the inner carry chain (the bound is `< a·b/R + p` given `chain + p < R`).
    #[inline(always)]
    fn mul_unreduced(chain: &[u64; N], other: &[u64; N]) -> [u64; N] {
        #[cfg(target_arch = "x86_64")]
        {
            let () = P::SPARE_BIT;
            if (N == 4 || N == 6) && detect::has_adx() {
                let table: &'static MontTable<N> = &P::TABLE;
                let table = table as *const MontTable<N> as *const u64;
                let mut out = [0u64; N];
                // SAFETY: BMI2+ADX were detected; N matches the routine; the table layout is
                // repr(C) (modulus then inv); SPARE_BIT holds. Pointer casts reinterpret
                // [u64; N] as [u64; 4] or [u64; 6] only when N is exactly that.
                unsafe {
                    if N == 4 {
                        // `mul_4` chains over its memory operand `a`; `b` travels in
                        // registers (in `x *= y` chains it is the loop-carried value).
                        let r = crate::mont_x86::mul_4(
                            &*(chain.as_ptr() as *const [u64; 4]),
                            *(other.as_ptr() as *const [u64; 4]),
                            table,
                        );
                        core::ptr::copy_nonoverlapping(r.as_ptr(), out.as_mut_ptr(), 4);
                    } else {
                        // `mul_6` chains over `a` too.
                        let r = crate::mont_x86::mul_6(
                            &*(chain.as_ptr() as *const [u64; 6]),
                            &*(other.as_ptr() as *const [u64; 6]),
                            table,
                        );
                        core::ptr::copy_nonoverlapping(r.as_ptr(), out.as_mut_ptr(), 6);
                    }
                }
                return out;
            }
        }
        Self::cios_portable(chain, other)
    }

    #[inline(always)]
    fn mul_fast(&self, rhs: &Self) -> Self {
        if cfg!(target_arch = "x86_64") && N == 4 {
            Self::reduce_once(Self::mul_unreduced(&rhs.limbs, &self.limbs))
        } else {
            Self::reduce_once(Self::mul_unreduced(&self.limbs, &rhs.limbs))
        }
    }

    /// Unused top bits of `R = 2^(64·N)` above the modulus: `p < 2^(64·N − SPARE_BITS)`.
    /// Lazy reduction in `[0, 4p)` needs `SPARE_BITS ≥ 2` (BN254's fields have 2,
    /// BLS12-381 `Fr` has 1 and `Fq` 3).
    pub const SPARE_BITS: u32 = 64 * N as u32 - P::MODULUS_BITS;
    /// `2p` as limbs (`< R`: every field here has a spare bit).
    pub const TWO_P: [u64; N] = bigint::add(&P::MODULUS, &P::MODULUS).0;

    /// Montgomery product **without the final conditional subtraction** (lazy
    /// reduction). Exact whenever `rhs + p < R` (`rhs` forms the inner carry chain);
    /// `self` may be any limbs `< R`. The result is congruent to `self·rhs` and below
    /// `self·rhs/R + p`: in `[0, 2p)` when `rhs < p`, and also when both operands are
    /// `< 2p` and `SPARE_BITS ≥ 2` (`4p < R`), as the Fq2 product uses it. Same MULX/ADX
    /// or portable path as `*`.
    #[inline(always)]
    pub fn mul_lazy(&self, rhs: &Self) -> Self {
        // `rhs` forms the carry chain: intermediates stay below `rhs + p < 2p < R`.
        Self::from_montgomery_limbs_unchecked(Self::mul_unreduced(&rhs.limbs, &self.limbs))
    }

    /// [`Self::mul_lazy`] on the MULX/ADX assembly, without the per-call detection, so a
    /// hot loop can pick the backend once ([`uses_adx`]) and monomorphise. Falls back to
    /// the portable path for limb counts without assembly (not 4 or 6) or off x86-64.
    ///
    /// # Safety
    /// The CPU must support BMI2 and ADX (e.g. [`uses_adx`] returned `true`).
    #[inline(always)]
    pub unsafe fn mul_lazy_adx(&self, rhs: &Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            let () = P::SPARE_BIT;
            debug_assert!(uses_adx());
            let table: &'static MontTable<N> = &P::TABLE;
            let table = table as *const MontTable<N> as *const u64;
            let mut out = [0u64; N];
            // SAFETY: the caller guarantees BMI2+ADX; otherwise as in `mul_unreduced`.
            unsafe {
                if N == 4 {
                    let r = crate::mont_x86::mul_4(
                        &*(rhs.limbs.as_ptr() as *const [u64; 4]),
                        *(self.limbs.as_ptr() as *const [u64; 4]),
                        table,
                    );
                    core::ptr::copy_nonoverlapping(r.as_ptr(), out.as_mut_ptr(), 4);
                    return Self::from_montgomery_limbs_unchecked(out);
                } else if N == 6 {
                    let r = crate::mont_x86::mul_6(
                        &*(rhs.limbs.as_ptr() as *const [u64; 6]),
                        &*(self.limbs.as_ptr() as *const [u64; 6]),
                        table,
                    );
                    core::ptr::copy_nonoverlapping(r.as_ptr(), out.as_mut_ptr(), 6);
                    return Self::from_montgomery_limbs_unchecked(out);
                }
            }
        }
        self.mul_lazy_portable(rhs)
    }

    /// [`Self::mul_lazy`] on the portable path (same result).
    #[inline(always)]
    pub fn mul_lazy_portable(&self, rhs: &Self) -> Self {
        Self::from_montgomery_limbs_unchecked(Self::cios_portable(&rhs.limbs, &self.limbs))
    }

    /// `self + rhs` without reduction. Sound when the sum is below `R`, e.g. both
    /// `< 2p` with `SPARE_BITS ≥ 2` (sum `< 4p`), or both `< p` with one spare bit.
    #[inline(always)]
    pub fn add_lazy(&self, rhs: &Self) -> Self {
        debug_assert!(
            bigint::add(&self.limbs, &rhs.limbs).1 == 0,
            "add_lazy overflow"
        );
        #[cfg(target_arch = "x86_64")]
        if N == 4 {
            let r = lazy4::add(as4(&self.limbs), as4(&rhs.limbs));
            return Self::from_montgomery_limbs_unchecked(from4(r));
        }
        Self::from_montgomery_limbs_unchecked(bigint::add(&self.limbs, &rhs.limbs).0)
    }

    /// `self + 2p − rhs` without reduction: congruent to `self − rhs`, for `rhs ≤ 2p`; at
    /// most `self + 2p`, which must stay below `R`: with `SPARE_BITS ≥ 2`, `self < 2p`
    /// gives a result below `4p` (with one spare bit this is not sound in general).
    #[inline(always)]
    pub fn sub_lazy(&self, rhs: &Self) -> Self {
        let (d, _) = bigint::sub(&Self::TWO_P, &rhs.limbs);
        debug_assert!(bigint::add(&self.limbs, &d).1 == 0, "sub_lazy overflow");
        #[cfg(target_arch = "x86_64")]
        if N == 4 {
            let two_p: &'static [u64; N] = &Self::TWO_P;
            let r = lazy4::sub_add(as4(&self.limbs), as4(&rhs.limbs), static4(two_p));
            return Self::from_montgomery_limbs_unchecked(from4(r));
        }
        Self::from_montgomery_limbs_unchecked(bigint::add(&self.limbs, &d).0)
    }

    /// `(a0 + a1·u)(b0 + b1·u)` in `Fp[u]/(u^2 + 1)` as canonical `(c0, c1)`, by
    /// Karatsuba with lazy reduction: with `SPARE_BITS ≥ 2` (`4p < R`) the sums
    /// `a0 + a1`, `b0 + b1` (`< 2p`) feed the Montgomery product unreduced (the chain
    /// operand stays below `3p < R`, the product below `4p²/R + p < 2p`) and `c1` is
    /// reduced once at the end. Fields without the margin use the reduced formulas.
    #[inline(always)]
    pub fn mul_ext_minus_one(a0: Self, a1: Self, b0: Self, b1: Self) -> (Self, Self) {
        let v0 = a0 * b0;
        let v1 = a1 * b1;
        if Self::SPARE_BITS >= 2 {
            let s = a0.add_lazy(&a1);
            let t = b0.add_lazy(&b1);
            // Below 2p; then m + 2p − (v0 + v1) < 4p, then to [0, p).
            let m = s.mul_lazy(&t);
            let c1 = m.sub_lazy(&v0.add_lazy(&v1)).canonicalize_lazy();
            (v0 - v1, c1)
        } else {
            (v0 - v1, (a0 + a1) * (b0 + b1) - v0 - v1)
        }
    }

    /// `(a0 + a1·u)^2` in `Fp[u]/(u^2 + 1)` as canonical `(c0, c1)`:
    /// `((a0 + a1)(a0 − a1), 2·a0·a1)`, with the sum and the doubling left unreduced
    /// (`< 2p`) when `SPARE_BITS ≥ 2`; each product is then `< 2p·p/R + p < 2p` and
    /// reduced once.
    #[inline(always)]
    pub fn square_ext_minus_one(a0: Self, a1: Self) -> (Self, Self) {
        if Self::SPARE_BITS >= 2 {
            let c0 = a0.add_lazy(&a1).mul_lazy(&(a0 - a1)).reduce_below_p();
            let c1 = a0.add_lazy(&a0).mul_lazy(&a1).reduce_below_p();
            (c0, c1)
        } else {
            ((a0 + a1) * (a0 - a1), (a0 * a1).double())
        }
    }

    /// `x − m` if `x ≥ m`, else `x`, without a branch.
    #[inline(always)]
    fn cond_sub_static(&self, m: &'static [u64; N]) -> Self {
        #[cfg(target_arch = "x86_64")]
        if N == 4 {
            let r = lazy4::cond_sub(as4(&self.limbs), static4(m));
            return Self::from_montgomery_limbs_unchecked(from4(r));
        }
        let (d, borrow) = bigint::sub(&self.limbs, m);
        Self::from_montgomery_limbs_unchecked(select(borrow == 0, &d, &self.limbs))
    }

    /// `x − 2p` if `x ≥ 2p`, else `x`: maps `[0, 4p)` to `[0, 2p)` (branch-free).
    #[inline(always)]
    pub fn reduce_below_2p(&self) -> Self {
        self.cond_sub_static(&Self::TWO_P)
    }

    /// `x − p` if `x ≥ p`, else `x`: maps `[0, 2p)` to the canonical `[0, p)` (branch-free).
    #[inline(always)]
    pub fn reduce_below_p(&self) -> Self {
        self.cond_sub_static(&P::MODULUS)
    }

    /// The canonical element for a lazily reduced value in `[0, 4p)`.
    #[inline(always)]
    pub fn canonicalize_lazy(&self) -> Self {
        self.reduce_below_2p().reduce_below_p()
    }

    /// `a + b mod p` without data-dependent branches (random operands would mispredict an
    /// early-exit comparison half the time). `a − (p − b)` runs beside `a + b`, and `p − b`
    /// does not depend on `a`, so the path through `a` stays one carry chain long.
    #[inline(always)]
    fn add_impl(&self, rhs: &Self) -> Self {
        let sum = bigint::add(&self.limbs, &rhs.limbs).0; // no carry: spare bit
        let p_minus_b = bigint::sub(&P::MODULUS, &rhs.limbs).0;
        let (reduced, borrow) = bigint::sub(&self.limbs, &p_minus_b);
        Self::from_montgomery_limbs_unchecked(select(borrow == 0, &reduced, &sum))
    }

    #[inline(always)]
    fn sub_impl(&self, rhs: &Self) -> Self {
        let (d, borrow) = bigint::sub(&self.limbs, &rhs.limbs);
        // Add p back on borrow, by masking p rather than branching (random operands).
        let mask = mask_from_bit(borrow);
        let mut p = P::MODULUS;
        for l in p.iter_mut() {
            *l &= mask;
        }
        Self::from_montgomery_limbs_unchecked(bigint::add(&d, &p).0)
    }

    #[inline(always)]
    fn neg_impl(&self) -> Self {
        if bigint::is_zero(&self.limbs) {
            *self
        } else {
            Self::from_montgomery_limbs_unchecked(bigint::sub(&P::MODULUS, &self.limbs).0)
        }
    }

    /// Inverse by the binary extended Euclidean algorithm on Montgomery form: for
    /// `x = aR`, returns `a^{-1}R = R^2 / x` (the running coefficient starts at `R^2`).
    fn inverse_impl(&self) -> Option<Self> {
        if bigint::is_zero(&self.limbs) {
            return None;
        }
        let p = P::MODULUS;
        let mut u = self.limbs;
        let mut v = p;
        let mut b = Self::from_montgomery_limbs_unchecked(P::R2); // coefficient of u
        let mut c = Self::ZERO; // coefficient of v
        let is_one = |x: &[u64; N]| x[0] == 1 && x[1..].iter().all(|&w| w == 0);
        while !is_one(&u) && !is_one(&v) {
            while u[0] & 1 == 0 {
                u = bigint::shr1(&u);
                b = b.half();
            }
            while v[0] & 1 == 0 {
                v = bigint::shr1(&v);
                c = c.half();
            }
            if bigint::geq(&u, &v) {
                u = bigint::sub(&u, &v).0;
                b -= c;
            } else {
                v = bigint::sub(&v, &u).0;
                c -= b;
            }
        }
        Some(if is_one(&u) { b } else { c })
    }

    /// `self / 2`.
    #[inline]
    pub fn half(&self) -> Self {
        if self.limbs[0] & 1 == 0 {
            Self::from_montgomery_limbs_unchecked(bigint::shr1(&self.limbs))
        } else {
            // (x + p) / 2, with the carry of x + p shifted back in (x + p < 2^(64N)).
            let (s, _) = bigint::add(&self.limbs, &P::MODULUS);
            Self::from_montgomery_limbs_unchecked(bigint::shr1(&s))
        }
    }

    /// Tonelli–Shanks; `p ≡ 3 (mod 4)` takes the single exponentiation shortcut.
    fn sqrt_impl(&self) -> Option<Self> {
        if self.is_zero() {
            return Some(*self);
        }
        if P::TWO_ADICITY == 1 {
            // p ≡ 3 mod 4: x = a^((p+1)/4) = a^((t+1)/2) with t = (p-1)/2.
            let exp = bigint::add(&P::HALF_TRACE_MINUS_ONE, &one_limbs::<N>()).0;
            let x = self.pow(&exp);
            return (x.square() == *self).then_some(x);
        }
        crate::sqrt::tonelli_shanks(
            self,
            P::TWO_ADICITY,
            Self::from_montgomery_limbs_unchecked(P::TWO_ADIC_ROOT_MONT),
            &P::HALF_TRACE_MINUS_ONE,
        )
    }
}

impl<P: MontConfig<N>, const N: usize> Field for Fp<P, N> {
    const ZERO: Self = Self::from_montgomery_limbs_unchecked([0; N]);
    const ONE: Self = Self::from_montgomery_limbs_unchecked(P::R);

    #[inline(always)]
    fn is_zero(&self) -> bool {
        bigint::is_zero(&self.limbs)
    }
    #[inline(always)]
    fn double(&self) -> Self {
        self.add_impl(self)
    }
    #[inline(always)]
    fn square(&self) -> Self {
        self.mul_fast(self)
    }
    fn inverse(&self) -> Option<Self> {
        self.inverse_impl()
    }
    fn random<R: RngCore + ?Sized>(rng: &mut R) -> Self {
        // Rejection sampling on the top bits: uniform over [0, p). Montgomery form is a
        // bijection, so the sampled limbs are used as the Montgomery representation.
        let top_bits = P::MODULUS_BITS - 64 * (N as u32 - 1);
        let mask = if top_bits == 64 {
            u64::MAX
        } else {
            (1u64 << top_bits) - 1
        };
        loop {
            let mut limbs = [0u64; N];
            for l in limbs.iter_mut() {
                *l = rng.next_u64();
            }
            limbs[N - 1] &= mask;
            if !bigint::geq(&limbs, &P::MODULUS) {
                return Self::from_montgomery_limbs_unchecked(limbs);
            }
        }
    }
    fn sqrt(&self) -> Option<Self> {
        self.sqrt_impl()
    }
    fn legendre(&self) -> Legendre {
        if self.is_zero() {
            return Legendre::Zero;
        }
        if self.pow(&P::HALF_MODULUS_MINUS_ONE).is_one() {
            Legendre::QuadraticResidue
        } else {
            Legendre::QuadraticNonResidue
        }
    }
    fn from_u64(v: u64) -> Self {
        let mut l = [0u64; N];
        l[0] = v;
        // v < 2^64 <= p for every field with N >= 2; for N == 1 reduce first.
        if N == 1 && v >= P::MODULUS[0] {
            l[0] = v - P::MODULUS[0];
        }
        Self::from_montgomery_limbs_unchecked(l) * Self::from_montgomery_limbs_unchecked(P::R2)
    }
}

impl<P: MontConfig<N>, const N: usize> PrimeField for Fp<P, N> {
    const MODULUS_BITS: u32 = P::MODULUS_BITS;
    const BYTES: usize = 8 * N;
    const TWO_ADICITY: u32 = P::TWO_ADICITY;

    fn modulus() -> BigUint {
        limbs_to_biguint(&P::MODULUS)
    }
    fn multiplicative_generator() -> Self {
        Self::from_montgomery_limbs_unchecked(P::GENERATOR_MONT)
    }
    fn two_adic_root_of_unity() -> Self {
        Self::from_montgomery_limbs_unchecked(P::TWO_ADIC_ROOT_MONT)
    }
    fn to_le_bytes(&self) -> Vec<u8> {
        self.to_canonical_limbs()
            .iter()
            .flat_map(|l| l.to_le_bytes())
            .collect()
    }
    fn from_le_bytes(bytes: &[u8]) -> Result<Self, FieldError> {
        if bytes.len() != 8 * N {
            return Err(FieldError::WrongLength {
                expected: 8 * N,
                got: bytes.len(),
            });
        }
        let mut limbs = [0u64; N];
        for (l, chunk) in limbs.iter_mut().zip(bytes.chunks_exact(8)) {
            *l = u64::from_le_bytes(chunk.try_into().expect("chunks of 8"));
        }
        Self::from_canonical_limbs(limbs)
    }
    fn to_biguint(&self) -> BigUint {
        limbs_to_biguint(&self.to_canonical_limbs())
    }
}

fn limbs_to_biguint(limbs: &[u64]) -> BigUint {
    let digits: Vec<u32> = limbs
        .iter()
        .flat_map(|&l| [l as u32, (l >> 32) as u32])
        .collect();
    BigUint::new(digits)
}

impl<P: MontConfig<N>, const N: usize> Ord for Fp<P, N> {
    /// Orders by canonical integer value.
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.to_canonical_limbs(), other.to_canonical_limbs());
        a.iter().rev().cmp(b.iter().rev())
    }
}
impl<P: MontConfig<N>, const N: usize> PartialOrd for Fp<P, N> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<P: MontConfig<N>, const N: usize> fmt::Debug for Fp<P, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(0x{:x})", P::NAME, self.to_biguint())
    }
}
impl<P: MontConfig<N>, const N: usize> fmt::Display for Fp<P, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_biguint())
    }
}

impl<P: MontConfig<N>, const N: usize> Add for Fp<P, N> {
    type Output = Self;
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        self.add_impl(&rhs)
    }
}
impl<P: MontConfig<N>, const N: usize> Sub for Fp<P, N> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        self.sub_impl(&rhs)
    }
}
impl<P: MontConfig<N>, const N: usize> Mul for Fp<P, N> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        self.mul_fast(&rhs)
    }
}
impl<P: MontConfig<N>, const N: usize> Neg for Fp<P, N> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        self.neg_impl()
    }
}
impl<P: MontConfig<N>, const N: usize> AddAssign for Fp<P, N> {
    #[inline(always)]
    fn add_assign(&mut self, rhs: Self) {
        *self = self.add_impl(&rhs)
    }
}
impl<P: MontConfig<N>, const N: usize> SubAssign for Fp<P, N> {
    #[inline(always)]
    fn sub_assign(&mut self, rhs: Self) {
        *self = self.sub_impl(&rhs)
    }
}
impl<P: MontConfig<N>, const N: usize> MulAssign for Fp<P, N> {
    #[inline(always)]
    fn mul_assign(&mut self, rhs: Self) {
        *self = self.mul_fast(&rhs)
    }
}
impl<P: MontConfig<N>, const N: usize> Sum for Fp<P, N> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ZERO, |a, b| a + b)
    }
}
impl<P: MontConfig<N>, const N: usize> Product for Fp<P, N> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ONE, |a, b| a * b)
    }
}

/// Defines a Montgomery field type from its modulus (hex) and generator.
#[macro_export]
macro_rules! mont_field {
    ($(#[$doc:meta])* $name:ident, $config:ident, $limbs:literal, $modulus:literal, $generator:literal) => {
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $config;
        impl $crate::MontConfig<$limbs> for $config {
            const NAME: &'static str = stringify!($name);
            const MODULUS: [u64; $limbs] = $crate::bigint::from_hex::<$limbs>($modulus);
            const GENERATOR: u64 = $generator;
        }
        $(#[$doc])*
        pub type $name = $crate::Fp<$config, $limbs>;
    };
}
