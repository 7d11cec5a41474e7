//! Prime fields in Montgomery form: `Fp<P, N>` holds `a·R mod p` as `N` little-endian u64
//! limbs with `R = 2^(64·N)`, the same bytes as arkworks, sppark and snarkjs files.

use core::cmp::Ordering;
use core::fmt;
use core::hash::Hash;
use core::marker::PhantomData;

use num_bigint::BigUint;
use rand_core::RngCore;

mod bytes;
mod config;
mod inverse;
mod lazy;
mod mul;
mod ntt;
mod wide;
#[cfg(target_arch = "x86_64")]
mod x86_64;

pub use config::{MontConfig, MontTable};
pub use lazy::MinusOneExt;

use crate::bigint;
use crate::traits::{Field, FieldError, Legendre, NormInverse, PrimeField};
use bytes::limbs_to_biguint;
use config::small_limbs;

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

/// An element of the prime field described by `P`, in Montgomery form, always `< p`.
/// `repr(transparent)`: slices of elements are slices of `[u64; N]` (the IFMA NTT
/// kernels read them as words).
#[repr(transparent)]
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
    /// The reference the divsteps inversion is tested against.
    pub fn inverse_binary(&self) -> Option<Self> {
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
            let exp = bigint::add(&P::HALF_TRACE_MINUS_ONE, &small_limbs::<N>(1)).0;
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

/// A prime field is its own norm field: the batch inversions' chain runs on the elements.
impl<P: MontConfig<N>, const N: usize> NormInverse for Fp<P, N> {
    type Norm = Self;
    #[inline(always)]
    fn norm_of(&self) -> Self {
        *self
    }
    #[inline(always)]
    fn inverse_from_norm(&self, norm_inverse: Self) -> Self {
        norm_inverse
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
        self.square_fast()
    }
    fn inverse(&self) -> Option<Self> {
        self.inverse_divsteps()
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
        let mut out = vec![0u8; 8 * N];
        self.write_le_bytes(&mut out);
        out
    }
    fn extend_le_bytes(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + 8 * N, 0);
        self.write_le_bytes(&mut out[start..]);
    }
    fn from_le_bytes(bytes: &[u8]) -> Result<Self, FieldError> {
        Self::from_le_bytes_impl(bytes)
    }
    fn to_biguint(&self) -> BigUint {
        limbs_to_biguint(&self.to_canonical_limbs())
    }
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

crate::ops::field_ops!([P: MontConfig<N>, const N: usize] Fp<P, N>, add_impl, sub_impl, mul_fast, neg_impl);
