//! Byte encodings of `Fp`: canonical little- and big-endian (arkworks, ffjavascript,
//! JSON) and the raw Montgomery limbs little-endian (snarkjs' `.zkey`/`.ptau` sections).
//! Readers reject wrong lengths and values `≥ p`; writers fill a caller's buffer, so
//! encoding many points allocates nothing.

use num_bigint::BigUint;

use super::{Fp, MontConfig};
use crate::bigint;
use crate::traits::FieldError;

/// `8·N` bytes as little-endian limbs (`big_endian` reverses the limb and byte order).
fn limbs_from_bytes<const N: usize>(
    bytes: &[u8],
    big_endian: bool,
) -> Result<[u64; N], FieldError> {
    if bytes.len() != 8 * N {
        return Err(FieldError::WrongLength {
            expected: 8 * N,
            got: bytes.len(),
        });
    }
    let mut limbs = [0u64; N];
    for (i, l) in limbs.iter_mut().enumerate() {
        *l = if big_endian {
            let chunk = &bytes[8 * (N - 1 - i)..8 * (N - i)];
            u64::from_be_bytes(chunk.try_into().expect("8 bytes"))
        } else {
            u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"))
        };
    }
    Ok(limbs)
}

/// Writes limbs as bytes into `out` (`8·N` long; a shorter buffer takes a prefix).
fn limbs_to_bytes<const N: usize>(limbs: &[u64; N], out: &mut [u8], big_endian: bool) {
    for (chunk, limb) in out.chunks_exact_mut(8).zip(limbs) {
        chunk.copy_from_slice(&limb.to_le_bytes());
    }
    if big_endian {
        out.reverse();
    }
}

pub(super) fn limbs_to_biguint(limbs: &[u64]) -> BigUint {
    let digits: Vec<u32> = limbs
        .iter()
        .flat_map(|&l| [l as u32, (l >> 32) as u32])
        .collect();
    BigUint::new(digits)
}

impl<P: MontConfig<N>, const N: usize> Fp<P, N> {
    /// Wraps Montgomery limbs, rejecting values `>= p`.
    pub fn from_montgomery_limbs(limbs: [u64; N]) -> Result<Self, FieldError> {
        if bigint::geq(&limbs, &P::MODULUS) {
            return Err(FieldError::NotCanonical);
        }
        Ok(Self::from_montgomery_limbs_unchecked(limbs))
    }

    /// From the canonical integer's limbs, rejecting values `>= p`.
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
        (*self * Self::from_montgomery_limbs_unchecked(super::config::small_limbs(1))).limbs
    }

    /// Canonical little-endian bytes into `out` (`8·N` long).
    pub fn write_le_bytes(&self, out: &mut [u8]) {
        limbs_to_bytes(&self.to_canonical_limbs(), out, false);
    }

    /// Canonical big-endian bytes into `out` (`8·N` long).
    pub fn write_be_bytes(&self, out: &mut [u8]) {
        limbs_to_bytes(&self.to_canonical_limbs(), out, true);
    }

    /// Parses canonical big-endian bytes; rejects wrong lengths and values `>= p`.
    pub fn from_be_bytes(bytes: &[u8]) -> Result<Self, FieldError> {
        Self::from_canonical_limbs(limbs_from_bytes(bytes, true)?)
    }

    /// Parses canonical little-endian bytes (as [`crate::PrimeField::from_le_bytes`]).
    pub(super) fn from_le_bytes_impl(bytes: &[u8]) -> Result<Self, FieldError> {
        Self::from_canonical_limbs(limbs_from_bytes(bytes, false)?)
    }

    /// The Montgomery limbs as little-endian bytes into `out` (`8·N` long).
    pub fn write_montgomery_bytes(&self, out: &mut [u8]) {
        limbs_to_bytes(&self.limbs, out, false);
    }

    /// Montgomery limbs from little-endian bytes; rejects wrong lengths and values `>= p`.
    pub fn from_montgomery_bytes(bytes: &[u8]) -> Result<Self, FieldError> {
        Self::from_montgomery_limbs(limbs_from_bytes(bytes, false)?)
    }
}
