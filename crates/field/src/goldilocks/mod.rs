//! The Goldilocks field `p = 2^64 − 2^32 + 1`, kept canonical (`< p`) in one u64, and its
//! degree-2 extension `F[u]/(u^2 − 7)` for 128-bit-secure challenges.

use core::fmt;

use num_bigint::BigUint;
use rand_core::RngCore;

use crate::quad::{QuadExt, QuadExtConfig};
use crate::traits::{Field, FieldError, Legendre, PrimeField};

mod ext3;
mod ntt;
pub mod packed;

pub use ext3::{sum_of_ext3_base_products, sum_of_ext3_products, GoldilocksExt3};

/// An element of the Goldilocks field, canonical.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Goldilocks(u64);

impl Goldilocks {
    pub const MODULUS: u64 = 0xffff_ffff_0000_0001;
    /// `2^64 mod p = 2^32 − 1`.
    const EPSILON: u64 = 0xffff_ffff;
    const GENERATOR: u64 = 7;

    /// From a canonical value; `None` if `>= p`.
    pub const fn new(v: u64) -> Option<Self> {
        if v < Self::MODULUS {
            Some(Self(v))
        } else {
            None
        }
    }
    /// Reduces any u64.
    pub const fn from_u64_reduced(v: u64) -> Self {
        if v >= Self::MODULUS {
            Self(v - Self::MODULUS)
        } else {
            Self(v)
        }
    }
    /// The canonical value.
    pub const fn value(&self) -> u64 {
        self.0
    }

    /// Reduces a 128-bit product using `2^64 ≡ 2^32 − 1` and `2^96 ≡ −1`.
    #[inline(always)]
    pub(crate) fn reduce128(x: u128) -> Self {
        let lo = x as u64;
        let hi = (x >> 64) as u64;
        let hi_hi = hi >> 32;
        let hi_lo = hi & Self::EPSILON;
        let (mut t0, borrow) = lo.overflowing_sub(hi_hi);
        if borrow {
            t0 = t0.wrapping_sub(Self::EPSILON); // borrowed 2^64 ≡ ε
        }
        let t1 = hi_lo * Self::EPSILON;
        let (mut r, carry) = t0.overflowing_add(t1);
        if carry {
            r = r.wrapping_add(Self::EPSILON);
        }
        Self::from_u64_reduced(r)
    }
}

impl fmt::Debug for Goldilocks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Goldilocks({})", self.0)
    }
}
impl fmt::Display for Goldilocks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Goldilocks {
    #[inline(always)]
    fn add_impl(&self, rhs: &Self) -> Self {
        let (s, carry) = self.0.overflowing_add(rhs.0);
        // On carry, 2^64 ≡ ε; s + ε cannot carry again since s < p − 1 + p − 2^64.
        let s = if carry { s + Self::EPSILON } else { s };
        Self::from_u64_reduced(s)
    }
    #[inline(always)]
    fn sub_impl(&self, rhs: &Self) -> Self {
        let (d, borrow) = self.0.overflowing_sub(rhs.0);
        Self(if borrow {
            d.wrapping_add(Self::MODULUS)
        } else {
            d
        })
    }
    #[inline(always)]
    fn mul_impl(&self, rhs: &Self) -> Self {
        Self::reduce128(self.0 as u128 * rhs.0 as u128)
    }
    #[inline(always)]
    fn neg_impl(&self) -> Self {
        if self.0 == 0 {
            *self
        } else {
            Self(Self::MODULUS - self.0)
        }
    }
}

crate::ops::field_ops!([] Goldilocks, add_impl, sub_impl, mul_impl, neg_impl);

impl Field for Goldilocks {
    const ZERO: Self = Self(0);
    const ONE: Self = Self(1);

    /// On the packed lanes ([`packed::Backend::detect`]); the common length, as the
    /// default.
    fn lerp_assign(lo: &mut [Self], hi: &[Self], r: Self) {
        let n = lo.len().min(hi.len());
        packed::Backend::detect()
            .lerp_assign(&mut lo[..n], &hi[..n], r)
            .expect("equal lengths");
    }

    fn inverse(&self) -> Option<Self> {
        if self.0 == 0 {
            return None;
        }
        Some(self.pow_u64(Self::MODULUS - 2))
    }
    fn random<R: RngCore + ?Sized>(rng: &mut R) -> Self {
        loop {
            let v = rng.next_u64();
            if v < Self::MODULUS {
                return Self(v);
            }
        }
    }
    fn sqrt(&self) -> Option<Self> {
        let half_trace_minus_one = (Self::MODULUS >> Self::TWO_ADICITY) >> 1;
        crate::sqrt::tonelli_shanks(
            self,
            Self::TWO_ADICITY,
            Self::two_adic_root_of_unity(),
            &[half_trace_minus_one],
        )
    }
    fn legendre(&self) -> Legendre {
        if self.0 == 0 {
            return Legendre::Zero;
        }
        if self.pow_u64((Self::MODULUS - 1) / 2).is_one() {
            Legendre::QuadraticResidue
        } else {
            Legendre::QuadraticNonResidue
        }
    }
    fn from_u64(v: u64) -> Self {
        Self::from_u64_reduced(v)
    }
}

/// The exact operations (a 64-bit field has no Montgomery products to relax).
impl crate::traits::ChordArith for Goldilocks {}

impl PrimeField for Goldilocks {
    const MODULUS_BITS: u32 = 64;
    const BYTES: usize = 8;
    const TWO_ADICITY: u32 = 32;

    fn modulus() -> BigUint {
        BigUint::from(Self::MODULUS)
    }
    fn multiplicative_generator() -> Self {
        Self(Self::GENERATOR)
    }
    fn two_adic_root_of_unity() -> Self {
        Self(Self::GENERATOR).pow_u64(Self::MODULUS >> Self::TWO_ADICITY)
    }
    fn to_le_bytes(&self) -> Vec<u8> {
        self.0.to_le_bytes().to_vec()
    }
    fn extend_le_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }
    fn from_le_bytes(bytes: &[u8]) -> Result<Self, FieldError> {
        let arr: [u8; 8] = bytes.try_into().map_err(|_| FieldError::WrongLength {
            expected: 8,
            got: bytes.len(),
        })?;
        Self::new(u64::from_le_bytes(arr)).ok_or(FieldError::NotCanonical)
    }
}

/// `u^2 = 7`: 7 generates the multiplicative group, so it is a non-residue.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct GoldilocksExt2Config;
impl QuadExtConfig for GoldilocksExt2Config {
    type Base = Goldilocks;
    const NAME: &'static str = "GoldilocksExt2";
    const NONRESIDUE: Goldilocks = Goldilocks(7);
}
/// The degree-2 extension of Goldilocks (≈128-bit challenges).
pub type GoldilocksExt2 = QuadExt<GoldilocksExt2Config>;
