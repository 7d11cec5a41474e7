//! The field traits every kernel and curve is written against.

use core::fmt::{Debug, Display};
use core::hash::Hash;
use core::iter::{Product, Sum};
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use num_bigint::BigUint;
use rand_core::RngCore;

/// Why bytes or an integer could not become a field element.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    #[error("expected {expected} bytes for a field element, got {got}")]
    WrongLength { expected: usize, got: usize },
    #[error("value is not below the field modulus")]
    NotCanonical,
}

/// Two slices that had to be the same length (or a length that had to be a multiple of a
/// block size, or a table that had to reach an index) were not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("expected length {expected}, got {got}")]
pub struct LengthMismatch {
    pub expected: usize,
    pub got: usize,
}

/// The quadratic character of a field element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legendre {
    Zero,
    QuadraticResidue,
    QuadraticNonResidue,
}

/// A finite field. Elements are always fully reduced, so `Eq` and `Hash` are value equality.
pub trait Field:
    'static
    + Copy
    + Clone
    + Debug
    + Display
    + Default
    + Eq
    + Hash
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + Sum
    + Product
{
    const ZERO: Self;
    const ONE: Self;

    fn is_zero(&self) -> bool {
        *self == Self::ZERO
    }
    fn is_one(&self) -> bool {
        *self == Self::ONE
    }
    fn double(&self) -> Self {
        *self + *self
    }
    fn square(&self) -> Self {
        *self * *self
    }
    /// The multiplicative inverse; `None` for zero.
    fn inverse(&self) -> Option<Self>;
    /// `self^exp`, with the exponent as little-endian 64-bit limbs.
    fn pow(&self, exp: &[u64]) -> Self {
        let mut acc = Self::ONE;
        for limb in exp.iter().rev() {
            for bit in (0..64).rev() {
                acc = acc.square();
                if (limb >> bit) & 1 == 1 {
                    acc *= *self;
                }
            }
        }
        acc
    }
    fn pow_u64(&self, exp: u64) -> Self {
        self.pow(&[exp])
    }
    /// A uniformly random element.
    fn random<R: RngCore + ?Sized>(rng: &mut R) -> Self;
    /// A square root, if one exists (either of the two; callers that care pick by sign).
    fn sqrt(&self) -> Option<Self>;
    fn legendre(&self) -> Legendre;
    fn from_u64(v: u64) -> Self;

    /// `lo[j] += r·(hi[j] − lo[j])` over the common length: a multilinear table's first
    /// variable bound to `r` (its halves `lo`, `hi`). A slice kernel, so that a field
    /// with packed lanes (Goldilocks) runs it on them; the default is the scalar loop.
    #[inline]
    fn lerp_assign(lo: &mut [Self], hi: &[Self], r: Self) {
        for (l, h) in lo.iter_mut().zip(hi) {
            *l += r * (*h - *l);
        }
    }
}

/// A prime field `Z/pZ`.
pub trait PrimeField: Field + Ord + PartialOrd {
    /// Bit length of the modulus.
    const MODULUS_BITS: u32;
    /// Length of the canonical little-endian byte encoding.
    const BYTES: usize;
    /// Largest `s` with `2^s | p - 1`.
    const TWO_ADICITY: u32;

    fn modulus() -> BigUint;
    /// A generator of the multiplicative group (a quadratic non-residue).
    fn multiplicative_generator() -> Self;
    /// A primitive `2^TWO_ADICITY`-th root of unity: `generator^((p-1)/2^s)`.
    fn two_adic_root_of_unity() -> Self;
    /// A primitive `2^log_n`-th root of unity, or `None` past the two-adicity.
    fn root_of_unity(log_n: u32) -> Option<Self> {
        if log_n > Self::TWO_ADICITY {
            return None;
        }
        let mut w = Self::two_adic_root_of_unity();
        for _ in log_n..Self::TWO_ADICITY {
            w = w.square();
        }
        Some(w)
    }
    /// Canonical (not Montgomery) little-endian bytes, `BYTES` long.
    fn to_le_bytes(&self) -> Vec<u8>;
    /// Appends [`Self::to_le_bytes`] to `out`; fields override it to skip the allocation
    /// (hashing millions of elements, writing files).
    fn extend_le_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    /// Parses canonical little-endian bytes; rejects wrong lengths and values `>= p`.
    fn from_le_bytes(bytes: &[u8]) -> Result<Self, FieldError>;
    /// Reduces arbitrary little-endian bytes modulo `p`.
    fn from_le_bytes_mod_order(bytes: &[u8]) -> Self {
        Self::from_biguint_mod_order(&BigUint::from_bytes_le(bytes))
    }
    fn to_biguint(&self) -> BigUint {
        BigUint::from_bytes_le(&self.to_le_bytes())
    }
    /// Rejects integers `>= p`.
    fn from_biguint(v: &BigUint) -> Result<Self, FieldError> {
        if *v >= Self::modulus() {
            return Err(FieldError::NotCanonical);
        }
        let mut bytes = v.to_bytes_le();
        bytes.resize(Self::BYTES, 0);
        Self::from_le_bytes(&bytes)
    }
    fn from_biguint_mod_order(v: &BigUint) -> Self {
        Self::from_biguint(&(v % Self::modulus())).expect("reduced value is canonical")
    }
}

/// A degree-2 extension `F[u]/(u^2 - β)` element's view, for code generic over extensions.
pub trait ExtensionField: Field {
    type Base: Field;
    const DEGREE: usize;
    fn from_base(b: Self::Base) -> Self;
    /// Coefficients in the basis `1, u, …`.
    fn to_base_coeffs(&self) -> Vec<Self::Base>;
    /// The Frobenius map `x ↦ x^p`.
    fn frobenius(&self) -> Self;
}

/// Inversion through the norm down to the prime field below: `x⁻¹ = adj(x) · N(x)⁻¹`.
/// A batch inversion (Montgomery's trick) over an extension runs its chain of products
/// on the norms: for `Fq2`, three `Fq` products per element in place of three `Fq2`
/// products (nine `Fq` products), at the price of the norm (two) and the final scaling
/// (two). For a prime field the norm is the element itself and both steps are free.
pub trait NormInverse: Field {
    type Norm: ChordArith;
    /// `N(x)`: zero exactly when `x` is zero.
    fn norm_of(&self) -> Self::Norm;
    /// `x⁻¹`, given `N(x)⁻¹`.
    fn inverse_from_norm(&self, norm_inverse: Self::Norm) -> Self;
}

/// The field arithmetic of batch-affine chord additions (Montgomery's trick, then
/// `λ = (y₂ − y₁)·d⁻¹`, `x₃ = λ² − x₁ − x₂`, `y₃ = λ(x₁ − x₃) − y₁`), scheduled for the
/// field's representation. The defaults are the exact operations; a Montgomery field
/// with two spare bits overrides them to skip the final subtraction of every product
/// (values in `[0, 2p)` between steps) and settle each coordinate once.
pub trait ChordArith: Field {
    /// A product in the inversion chain, congruent to `self·rhs`. Operands and result
    /// are chain values: canonical elements or results of `chain_mul` (not canonical in
    /// general, so not to be compared, hashed or serialised before [`settle`](Self::settle)).
    #[inline(always)]
    fn chain_mul(&self, rhs: &Self) -> Self {
        *self * *rhs
    }

    /// The canonical element of a chain value.
    #[inline(always)]
    fn settle(&self) -> Self {
        *self
    }

    /// The chord sum `(x₃, y₃)` of the canonical points `(x₁, y₁)` and `(x₂, y₂)`, given
    /// `dinv ≡ (x₂ − x₁)⁻¹` (a chain value); the result is canonical.
    #[inline(always)]
    fn chord(x1: &Self, y1: &Self, x2: &Self, y2: &Self, dinv: &Self) -> (Self, Self) {
        exact_chord(x1, y1, x2, y2, dinv)
    }
}

/// [`ChordArith::chord`] with the exact operations (the default, and the fallback of
/// fields that override it only where they can).
#[inline(always)]
pub(crate) fn exact_chord<F: Field>(x1: &F, y1: &F, x2: &F, y2: &F, dinv: &F) -> (F, F) {
    let lambda = (*y2 - *y1) * *dinv;
    let x3 = lambda.square() - (*x1 + *x2);
    let y3 = lambda * (*x1 - x3) - *y1;
    (x3, y3)
}
