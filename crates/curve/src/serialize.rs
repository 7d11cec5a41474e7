//! Byte encodings of affine points, compatible with arkworks 0.5 and snarkjs/ffjavascript.
//!
//! Every encoding is a zero-sized type implementing [`PointEncoding`] for the four groups
//! (BN254 and BLS12-381, G1 and G2):
//!
//! | type                    | bytes (G1 BN254 / G2 BN254 / G1 BLS / G2 BLS) | what writes it |
//! |-------------------------|-----------------------------------------------|----------------|
//! | [`ArkCompressed`]       | 32 / 64 / 48 / 96                             | arkworks `serialize_compressed` |
//! | [`ArkUncompressed`]     | 64 / 128 / 96 / 192                           | arkworks `serialize_uncompressed` |
//! | [`SnarkjsLem`]          | 64 / 128 / 96 / 192                           | `.zkey` / `.ptau` sections (ffjavascript `toRprLEM`) |
//! | [`SnarkjsUncompressed`] | 64 / 128 / 96 / 192                           | ffjavascript `toRprUncompressed` (ptau challenges) |
//! | [`SnarkjsCompressed`]   | 32 / 64 / 48 / 96                             | ffjavascript `toRprCompressed` (ptau responses) |
//!
//! Byte layouts (`‖` is concatenation; an `Fq2` element is `c0 + c1·u`):
//!
//! * **arkworks, BN254** (arkworks' generic short-Weierstrass format): coordinates are
//!   canonical little-endian, `Fq2` as `c0 ‖ c1`. Flags sit in the top two bits of the
//!   *last* byte: `0x80` = y is the lexicographically largest of `±y`, `0x40` = infinity
//!   (never both). Compressed is `x` with flags; uncompressed is `x ‖ y` with the flags in
//!   `y`'s last byte (arkworks sets the sign bit there too). Infinity is all-zero
//!   coordinates with `0x40`.
//! * **arkworks, BLS12-381** (the Zcash / IETF format, which `ark-bls12-381` uses instead
//!   of the generic one): coordinates are canonical big-endian, `Fq2` as `c1 ‖ c0`. Flags
//!   sit in the top three bits of the *first* byte: `0x80` = compressed, `0x40` = infinity,
//!   `0x20` = y is lexicographically largest (compressed, finite points only). Infinity is
//!   `0xc0 ‖ 0…` compressed and `0x40 ‖ 0…` uncompressed.
//! * **snarkjs LEM**: `x ‖ y`, each coordinate in *Montgomery* form, little-endian, `Fq2`
//!   as `c0 ‖ c1`; no flags; infinity is all zeros.
//! * **snarkjs uncompressed**: `x ‖ y`, canonical big-endian, `Fq2` as `c1 ‖ c0`; no
//!   flags; infinity is all zeros (ffjavascript's pure-JS curve writes `0x40 ‖ 0…`
//!   instead, which is accepted on decode as an alias).
//! * **snarkjs compressed**: `x`, canonical big-endian, `Fq2` as `c1 ‖ c0`; `0x80` in the
//!   first byte = y is lexicographically largest; infinity is `0x40 ‖ 0…`.
//!
//! "Lexicographically largest" is the same predicate everywhere: `y > −y`, comparing
//! canonical integers, and for `Fq2` comparing `c1` first and `c0` only when `c1 = 0`.
//!
//! Decoding never panics. It rejects wrong lengths, coordinates `≥ p`, contradictory or
//! stray flag bits, non-zero bytes in an infinity encoding, sign bits that disagree with
//! the `y` they accompany, `x` without a square root, and off-curve points; with
//! [`Validate::Yes`] (the default) also points outside the prime-order subgroup. Every
//! encoding accepted is canonical: re-encoding the decoded point gives the same bytes
//! (the one exception is the `0x40 ‖ 0…` infinity alias of [`SnarkjsUncompressed`]).

use fastzk_field::{Field, FieldError, Fp, MontConfig, PrimeField, QuadExt, QuadExtConfig};

use crate::affine::Affine;
use crate::config::CurveConfig;
use crate::{bls12_381, bn254};

/// Whether decoding checks prime-order subgroup membership.
///
/// The on-curve check is always done (it costs a few multiplications); the subgroup
/// check costs a scalar multiplication and can be skipped for trusted input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Validate {
    /// Check that the point is in the prime-order subgroup.
    #[default]
    Yes,
    /// Skip the subgroup check (the point is still checked to be on the curve).
    No,
}

/// Why bytes could not be decoded into a point (or a point encoded into a buffer).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SerializeError {
    #[error("{encoding}: expected {expected} bytes, got {got}")]
    WrongLength {
        encoding: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("{encoding}: coordinate is not below the field modulus")]
    NonCanonicalCoordinate { encoding: &'static str },
    #[error("{encoding}: invalid flag bits {flags:#04x}: {reason}")]
    InvalidFlags {
        encoding: &'static str,
        flags: u8,
        reason: &'static str,
    },
    #[error("{encoding}: point at infinity with non-zero coordinate bytes")]
    NonZeroInfinity { encoding: &'static str },
    #[error("{encoding}: y-sign flag does not match the y coordinate")]
    SignMismatch { encoding: &'static str },
    #[error("{encoding}: x is not the x-coordinate of any curve point (x^3 + b is not a square)")]
    NoSquareRoot { encoding: &'static str },
    #[error("{encoding}: point is not on the curve")]
    NotOnCurve { encoding: &'static str },
    #[error("{encoding}: point is not in the prime-order subgroup")]
    NotInSubgroup { encoding: &'static str },
    #[error("point {index}: {source}")]
    AtIndex {
        index: usize,
        #[source]
        source: Box<SerializeError>,
    },
}

// ---------------------------------------------------------------------------------------
// Coordinates
// ---------------------------------------------------------------------------------------

mod sealed {
    pub trait Sealed {}
    impl<P: fastzk_field::MontConfig<N>, const N: usize> Sealed for fastzk_field::Fp<P, N> {}
    impl<C: fastzk_field::QuadExtConfig> Sealed for fastzk_field::QuadExt<C> {}
}

/// A coordinate field whose elements have fixed-size byte representations: the prime
/// fields `Fp` and their quadratic extensions. Sealed; used by the encodings.
pub trait Coordinate: Field + sealed::Sealed {
    /// Bytes of one prime-field component.
    const COMPONENT_BYTES: usize;
    /// Number of prime-field components (1 for `Fq`, 2 for `Fq2`).
    const DEGREE: usize;
    /// Bit length of the prime modulus (how many top bits are free for flags).
    const MODULUS_BITS: u32;
    /// `COMPONENT_BYTES · DEGREE`.
    const SIZE: usize = Self::COMPONENT_BYTES * Self::DEGREE;

    /// Canonical little-endian, lowest-degree component first. `out.len() == SIZE`.
    fn write_le(&self, out: &mut [u8]);
    /// Inverse of [`Coordinate::write_le`]; rejects components `≥ p`.
    fn read_le(bytes: &[u8]) -> Result<Self, FieldError>;
    /// Canonical big-endian, highest-degree component first. `out.len() == SIZE`.
    fn write_be(&self, out: &mut [u8]);
    /// Inverse of [`Coordinate::write_be`]; rejects components `≥ p`.
    fn read_be(bytes: &[u8]) -> Result<Self, FieldError>;
    /// Montgomery form, little-endian, lowest-degree component first.
    fn write_le_mont(&self, out: &mut [u8]);
    /// Inverse of [`Coordinate::write_le_mont`]; rejects components `≥ p`.
    fn read_le_mont(bytes: &[u8]) -> Result<Self, FieldError>;
    /// `self > −self`, comparing canonical integers (highest-degree non-zero component
    /// decides). False for zero.
    fn is_lexicographically_largest(&self) -> bool;
}

impl<P: MontConfig<N>, const N: usize> Coordinate for Fp<P, N> {
    const COMPONENT_BYTES: usize = 8 * N;
    const DEGREE: usize = 1;
    const MODULUS_BITS: u32 = <Self as PrimeField>::MODULUS_BITS;

    fn write_le(&self, out: &mut [u8]) {
        for (chunk, limb) in out.chunks_exact_mut(8).zip(self.to_canonical_limbs()) {
            chunk.copy_from_slice(&limb.to_le_bytes());
        }
    }
    fn read_le(bytes: &[u8]) -> Result<Self, FieldError> {
        Self::from_canonical_limbs(read_limbs(bytes)?)
    }
    fn write_be(&self, out: &mut [u8]) {
        self.write_le(out);
        out.reverse();
    }
    fn read_be(bytes: &[u8]) -> Result<Self, FieldError> {
        if bytes.len() != 8 * N {
            return Err(FieldError::WrongLength {
                expected: 8 * N,
                got: bytes.len(),
            });
        }
        // Limb i is the i-th 8-byte group counted from the end, read big-endian.
        let mut limbs = [0u64; N];
        for (l, chunk) in limbs.iter_mut().zip(bytes.rchunks_exact(8)) {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            *l = u64::from_be_bytes(b);
        }
        Self::from_canonical_limbs(limbs)
    }
    fn write_le_mont(&self, out: &mut [u8]) {
        for (chunk, limb) in out.chunks_exact_mut(8).zip(self.montgomery_limbs()) {
            chunk.copy_from_slice(&limb.to_le_bytes());
        }
    }
    fn read_le_mont(bytes: &[u8]) -> Result<Self, FieldError> {
        Self::from_montgomery_limbs(read_limbs(bytes)?)
    }
    fn is_lexicographically_largest(&self) -> bool {
        *self > -*self
    }
}

fn read_limbs<const N: usize>(bytes: &[u8]) -> Result<[u64; N], FieldError> {
    if bytes.len() != 8 * N {
        return Err(FieldError::WrongLength {
            expected: 8 * N,
            got: bytes.len(),
        });
    }
    let mut limbs = [0u64; N];
    for (l, chunk) in limbs.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        *l = u64::from_le_bytes(b);
    }
    Ok(limbs)
}

impl<C: QuadExtConfig> Coordinate for QuadExt<C>
where
    C::Base: Coordinate,
{
    const COMPONENT_BYTES: usize = <C::Base as Coordinate>::COMPONENT_BYTES;
    const DEGREE: usize = 2 * <C::Base as Coordinate>::DEGREE;
    const MODULUS_BITS: u32 = <C::Base as Coordinate>::MODULUS_BITS;

    fn write_le(&self, out: &mut [u8]) {
        let (lo, hi) = out.split_at_mut(<C::Base as Coordinate>::SIZE);
        self.c0.write_le(lo);
        self.c1.write_le(hi);
    }
    fn read_le(bytes: &[u8]) -> Result<Self, FieldError> {
        let (lo, hi) = split_half(bytes, Self::SIZE)?;
        Ok(Self::new(C::Base::read_le(lo)?, C::Base::read_le(hi)?))
    }
    fn write_be(&self, out: &mut [u8]) {
        let (hi, lo) = out.split_at_mut(<C::Base as Coordinate>::SIZE);
        self.c1.write_be(hi);
        self.c0.write_be(lo);
    }
    fn read_be(bytes: &[u8]) -> Result<Self, FieldError> {
        let (hi, lo) = split_half(bytes, Self::SIZE)?;
        Ok(Self::new(C::Base::read_be(lo)?, C::Base::read_be(hi)?))
    }
    fn write_le_mont(&self, out: &mut [u8]) {
        let (lo, hi) = out.split_at_mut(<C::Base as Coordinate>::SIZE);
        self.c0.write_le_mont(lo);
        self.c1.write_le_mont(hi);
    }
    fn read_le_mont(bytes: &[u8]) -> Result<Self, FieldError> {
        let (lo, hi) = split_half(bytes, Self::SIZE)?;
        Ok(Self::new(
            C::Base::read_le_mont(lo)?,
            C::Base::read_le_mont(hi)?,
        ))
    }
    fn is_lexicographically_largest(&self) -> bool {
        if self.c1.is_zero() {
            self.c0.is_lexicographically_largest()
        } else {
            self.c1.is_lexicographically_largest()
        }
    }
}

fn split_half(bytes: &[u8], size: usize) -> Result<(&[u8], &[u8]), FieldError> {
    if bytes.len() != size {
        return Err(FieldError::WrongLength {
            expected: size,
            got: bytes.len(),
        });
    }
    Ok(bytes.split_at(size / 2))
}

// ---------------------------------------------------------------------------------------
// Curves
// ---------------------------------------------------------------------------------------

/// Which layout arkworks 0.5 uses for a group's `CanonicalSerialize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArkLayout {
    /// arkworks' generic short-Weierstrass format (`SWFlags`, little-endian).
    SwFlags,
    /// The Zcash / IETF BLS12-381 format (three flag bits, big-endian).
    Zcash,
}

/// A group the encodings support.
pub trait SerializableCurve: CurveConfig<Base: Coordinate> {
    /// What arkworks does for this group.
    const ARK_LAYOUT: ArkLayout;
}

impl SerializableCurve for bn254::G1Config {
    const ARK_LAYOUT: ArkLayout = ArkLayout::SwFlags;
}
impl SerializableCurve for bn254::G2Config {
    const ARK_LAYOUT: ArkLayout = ArkLayout::SwFlags;
}
impl SerializableCurve for bls12_381::G1Config {
    const ARK_LAYOUT: ArkLayout = ArkLayout::Zcash;
}
impl SerializableCurve for bls12_381::G2Config {
    const ARK_LAYOUT: ArkLayout = ArkLayout::Zcash;
}

// ---------------------------------------------------------------------------------------
// The encoding trait
// ---------------------------------------------------------------------------------------

/// A byte encoding of the points of group `C`.
pub trait PointEncoding<C: SerializableCurve> {
    /// Short name, used in error messages.
    const NAME: &'static str;
    /// Bytes per point.
    const ENCODED_LEN: usize;

    /// Writes `p` into `out`, which must be exactly [`Self::ENCODED_LEN`] bytes.
    fn encode_into(p: &Affine<C>, out: &mut [u8]) -> Result<(), SerializeError> {
        check_len(Self::NAME, Self::ENCODED_LEN, out.len())?;
        Self::encode_unchecked_len(p, out);
        Ok(())
    }

    /// Encodes `p` into a new vector.
    fn encode(p: &Affine<C>) -> Vec<u8> {
        let mut out = vec![0u8; Self::ENCODED_LEN];
        Self::encode_unchecked_len(p, &mut out);
        out
    }

    /// Decodes exactly [`Self::ENCODED_LEN`] bytes.
    fn decode(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError>;

    /// Encodes points back to back.
    fn encode_many(points: &[Affine<C>]) -> Vec<u8> {
        let mut out = vec![0u8; Self::ENCODED_LEN * points.len()];
        for (p, chunk) in points.iter().zip(out.chunks_exact_mut(Self::ENCODED_LEN)) {
            Self::encode_unchecked_len(p, chunk);
        }
        out
    }

    /// Decodes back-to-back points; the length must be a multiple of
    /// [`Self::ENCODED_LEN`]. Decoding (and the subgroup check, the expensive part) runs
    /// in parallel chunks on rayon's pool into one output allocation; an error names the
    /// *lowest* offending index, as a sequential decode would.
    fn decode_many(bytes: &[u8], validate: Validate) -> Result<Vec<Affine<C>>, SerializeError> {
        let n = count_points(Self::NAME, Self::ENCODED_LEN, bytes)?;
        let mut out = vec![Affine::identity(); n];
        Self::decode_many_into(bytes, &mut out, validate)?;
        Ok(out)
    }

    /// Same as [`Self::decode_many`] (kept as an explicit name for callers that want to
    /// say they rely on the parallel decode).
    fn decode_many_par(bytes: &[u8], validate: Validate) -> Result<Vec<Affine<C>>, SerializeError> {
        Self::decode_many(bytes, validate)
    }

    /// [`Self::decode_many`] into a caller-provided buffer of exactly
    /// `bytes.len() / ENCODED_LEN` points (e.g. a section of a larger array).
    fn decode_many_into(
        bytes: &[u8],
        out: &mut [Affine<C>],
        validate: Validate,
    ) -> Result<(), SerializeError> {
        let n = count_points(Self::NAME, Self::ENCODED_LEN, bytes)?;
        if out.len() != n {
            return Err(SerializeError::WrongLength {
                encoding: Self::NAME,
                expected: out.len() * Self::ENCODED_LEN,
                got: bytes.len(),
            });
        }
        let len = Self::ENCODED_LEN;
        crate::validate::par_try_fill(out, crate::validate::PAR_CHUNK, |start, dst| {
            let src = &bytes[start * len..(start + dst.len()) * len];
            for (i, (d, chunk)) in dst.iter_mut().zip(src.chunks_exact(len)).enumerate() {
                *d = Self::decode(chunk, validate).map_err(|e| (start + i, e))?;
            }
            Ok(())
        })
        .map_err(|(index, e)| SerializeError::AtIndex {
            index,
            source: Box::new(e),
        })
    }

    /// Decodes back-to-back points on the calling thread only.
    fn decode_many_serial(
        bytes: &[u8],
        validate: Validate,
    ) -> Result<Vec<Affine<C>>, SerializeError> {
        let n = count_points(Self::NAME, Self::ENCODED_LEN, bytes)?;
        let mut out = Vec::with_capacity(n);
        for (index, chunk) in bytes.chunks_exact(Self::ENCODED_LEN).enumerate() {
            out.push(
                Self::decode(chunk, validate).map_err(|e| SerializeError::AtIndex {
                    index,
                    source: Box::new(e),
                })?,
            );
        }
        Ok(out)
    }

    #[doc(hidden)]
    /// `out.len() == ENCODED_LEN` is the caller's promise.
    fn encode_unchecked_len(p: &Affine<C>, out: &mut [u8]);
}

/// Convenience methods on [`Affine`] for any [`PointEncoding`].
pub trait AffineSerializeExt<C: SerializableCurve>: Sized {
    /// `E::encode(self)`.
    fn to_bytes<E: PointEncoding<C>>(&self) -> Vec<u8>;
    /// `E::decode(bytes, Validate::Yes)`.
    fn from_bytes<E: PointEncoding<C>>(bytes: &[u8]) -> Result<Self, SerializeError>;
    /// `E::decode(bytes, Validate::No)`: on-curve check only.
    fn from_bytes_unchecked_subgroup<E: PointEncoding<C>>(
        bytes: &[u8],
    ) -> Result<Self, SerializeError>;
}

impl<C: SerializableCurve> AffineSerializeExt<C> for Affine<C> {
    fn to_bytes<E: PointEncoding<C>>(&self) -> Vec<u8> {
        E::encode(self)
    }
    fn from_bytes<E: PointEncoding<C>>(bytes: &[u8]) -> Result<Self, SerializeError> {
        E::decode(bytes, Validate::Yes)
    }
    fn from_bytes_unchecked_subgroup<E: PointEncoding<C>>(
        bytes: &[u8],
    ) -> Result<Self, SerializeError> {
        E::decode(bytes, Validate::No)
    }
}

// ---------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------

fn check_len(encoding: &'static str, expected: usize, got: usize) -> Result<(), SerializeError> {
    if expected == got {
        Ok(())
    } else {
        Err(SerializeError::WrongLength {
            encoding,
            expected,
            got,
        })
    }
}

/// Number of `len`-byte points in `bytes`, or a length error if it is not a whole number.
fn count_points(encoding: &'static str, len: usize, bytes: &[u8]) -> Result<usize, SerializeError> {
    if !bytes.len().is_multiple_of(len) {
        return Err(SerializeError::WrongLength {
            encoding,
            expected: (bytes.len() / len + 1) * len,
            got: bytes.len(),
        });
    }
    Ok(bytes.len() / len)
}

fn coord_err(encoding: &'static str) -> impl Fn(FieldError) -> SerializeError {
    move |_| SerializeError::NonCanonicalCoordinate { encoding }
}

fn all_zero(bytes: &[u8]) -> bool {
    bytes.iter().all(|&b| b == 0)
}

/// Runs `f` on a mutable copy of `bytes` kept on the stack (every built-in encoding
/// fits), so decoding a point allocates nothing.
fn with_scratch<R>(bytes: &[u8], f: impl FnOnce(&mut [u8]) -> R) -> R {
    const STACK: usize = 256;
    if bytes.len() <= STACK {
        let mut buf = [0u8; STACK];
        let buf = &mut buf[..bytes.len()];
        buf.copy_from_slice(bytes);
        f(buf)
    } else {
        f(&mut bytes.to_vec())
    }
}

/// Number of top bits of a coordinate's most significant byte that a value `< p` leaves
/// free.
const fn free_top_bits<F: Coordinate>() -> u32 {
    (8 * F::COMPONENT_BYTES as u32) - F::MODULUS_BITS
}

/// On-curve and (optionally) subgroup checks for a decoded finite point.
fn finish<C: SerializableCurve>(
    encoding: &'static str,
    x: C::Base,
    y: C::Base,
    validate: Validate,
) -> Result<Affine<C>, SerializeError> {
    let p = Affine::<C>::new_unchecked(x, y);
    if !p.is_on_curve() {
        return Err(SerializeError::NotOnCurve { encoding });
    }
    if validate == Validate::Yes && !p.is_in_correct_subgroup() {
        return Err(SerializeError::NotInSubgroup { encoding });
    }
    Ok(p)
}

/// The point with abscissa `x` whose `y` has the given "lexicographically largest" bit.
fn from_x<C: SerializableCurve>(
    encoding: &'static str,
    x: C::Base,
    largest: bool,
    validate: Validate,
) -> Result<Affine<C>, SerializeError> {
    let rhs = x.square() * x + C::COEFF_B;
    let mut y = rhs
        .sqrt()
        .filter(|y| y.square() == rhs)
        .ok_or(SerializeError::NoSquareRoot { encoding })?;
    if y.is_lexicographically_largest() != largest {
        y = -y;
    }
    if y.is_lexicographically_largest() != largest {
        // Only possible for y = 0 with the "largest" bit set: not a canonical encoding.
        return Err(SerializeError::SignMismatch { encoding });
    }
    finish(encoding, x, y, validate)
}

// ---------------------------------------------------------------------------------------
// arkworks
// ---------------------------------------------------------------------------------------

/// arkworks 0.5 `serialize_compressed` / `deserialize_compressed` (per-group layout, see
/// the module docs: SWFlags for BN254, Zcash for BLS12-381).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ArkCompressed;

/// arkworks 0.5 `serialize_uncompressed` / `deserialize_uncompressed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ArkUncompressed;

const SW_NEGATIVE: u8 = 0x80;
const SW_INFINITY: u8 = 0x40;

const ZC_COMPRESSED: u8 = 0x80;
const ZC_INFINITY: u8 = 0x40;
const ZC_LARGEST: u8 = 0x20;

impl<C: SerializableCurve> PointEncoding<C> for ArkCompressed {
    const NAME: &'static str = "arkworks compressed";
    const ENCODED_LEN: usize = <C::Base as Coordinate>::SIZE;

    fn encode_unchecked_len(p: &Affine<C>, out: &mut [u8]) {
        match C::ARK_LAYOUT {
            ArkLayout::SwFlags => sw_encode(p, out, true),
            ArkLayout::Zcash => zcash_encode(p, out, true),
        }
    }

    fn decode(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError> {
        check_len(
            <Self as PointEncoding<C>>::NAME,
            <Self as PointEncoding<C>>::ENCODED_LEN,
            bytes.len(),
        )?;
        match C::ARK_LAYOUT {
            ArkLayout::SwFlags => {
                sw_decode(<Self as PointEncoding<C>>::NAME, bytes, true, validate)
            }
            ArkLayout::Zcash => {
                zcash_decode(<Self as PointEncoding<C>>::NAME, bytes, true, validate)
            }
        }
    }
}

impl<C: SerializableCurve> PointEncoding<C> for ArkUncompressed {
    const NAME: &'static str = "arkworks uncompressed";
    const ENCODED_LEN: usize = 2 * <C::Base as Coordinate>::SIZE;

    fn encode_unchecked_len(p: &Affine<C>, out: &mut [u8]) {
        match C::ARK_LAYOUT {
            ArkLayout::SwFlags => sw_encode(p, out, false),
            ArkLayout::Zcash => zcash_encode(p, out, false),
        }
    }

    fn decode(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError> {
        check_len(
            <Self as PointEncoding<C>>::NAME,
            <Self as PointEncoding<C>>::ENCODED_LEN,
            bytes.len(),
        )?;
        match C::ARK_LAYOUT {
            ArkLayout::SwFlags => {
                sw_decode(<Self as PointEncoding<C>>::NAME, bytes, false, validate)
            }
            ArkLayout::Zcash => {
                zcash_decode(<Self as PointEncoding<C>>::NAME, bytes, false, validate)
            }
        }
    }
}

/// arkworks' generic format: little-endian, flags in the top two bits of the last byte.
fn sw_encode<C: SerializableCurve>(p: &Affine<C>, out: &mut [u8], compressed: bool) {
    debug_assert!(free_top_bits::<C::Base>() >= 2, "no room for SWFlags");
    let n = <C::Base as Coordinate>::SIZE;
    out.fill(0);
    let flags = if p.infinity {
        SW_INFINITY
    } else {
        p.x.write_le(&mut out[..n]);
        if !compressed {
            p.y.write_le(&mut out[n..2 * n]);
        }
        if p.y.is_lexicographically_largest() {
            SW_NEGATIVE
        } else {
            0
        }
    };
    *out.last_mut().expect("non-empty encoding") |= flags;
}

fn sw_decode<C: SerializableCurve>(
    encoding: &'static str,
    bytes: &[u8],
    compressed: bool,
    validate: Validate,
) -> Result<Affine<C>, SerializeError> {
    with_scratch(bytes, |buf| {
        sw_decode_buf(encoding, buf, compressed, validate)
    })
}

fn sw_decode_buf<C: SerializableCurve>(
    encoding: &'static str,
    buf: &mut [u8],
    compressed: bool,
    validate: Validate,
) -> Result<Affine<C>, SerializeError> {
    let n = <C::Base as Coordinate>::SIZE;
    let last = buf.last_mut().expect("length checked");
    let flags = *last & (SW_NEGATIVE | SW_INFINITY);
    *last &= !(SW_NEGATIVE | SW_INFINITY);
    let negative = flags & SW_NEGATIVE != 0;
    if flags & SW_INFINITY != 0 {
        if negative {
            return Err(SerializeError::InvalidFlags {
                encoding,
                flags,
                reason: "infinity and y-sign flags both set",
            });
        }
        if !all_zero(buf) {
            return Err(SerializeError::NonZeroInfinity { encoding });
        }
        return Ok(Affine::identity());
    }
    let x = C::Base::read_le(&buf[..n]).map_err(coord_err(encoding))?;
    if compressed {
        return from_x(encoding, x, negative, validate);
    }
    let y = C::Base::read_le(&buf[n..]).map_err(coord_err(encoding))?;
    if y.is_lexicographically_largest() != negative {
        return Err(SerializeError::SignMismatch { encoding });
    }
    finish(encoding, x, y, validate)
}

/// Zcash / IETF BLS12-381 format: big-endian, three flag bits at the top of byte 0.
fn zcash_encode<C: SerializableCurve>(p: &Affine<C>, out: &mut [u8], compressed: bool) {
    debug_assert!(free_top_bits::<C::Base>() >= 3, "no room for Zcash flags");
    let n = <C::Base as Coordinate>::SIZE;
    out.fill(0);
    let mut flags = if compressed { ZC_COMPRESSED } else { 0 };
    if p.infinity {
        flags |= ZC_INFINITY;
    } else {
        p.x.write_be(&mut out[..n]);
        if compressed {
            if p.y.is_lexicographically_largest() {
                flags |= ZC_LARGEST;
            }
        } else {
            p.y.write_be(&mut out[n..2 * n]);
        }
    }
    out[0] |= flags;
}

fn zcash_decode<C: SerializableCurve>(
    encoding: &'static str,
    bytes: &[u8],
    compressed: bool,
    validate: Validate,
) -> Result<Affine<C>, SerializeError> {
    with_scratch(bytes, |buf| {
        zcash_decode_buf(encoding, buf, compressed, validate)
    })
}

fn zcash_decode_buf<C: SerializableCurve>(
    encoding: &'static str,
    buf: &mut [u8],
    compressed: bool,
    validate: Validate,
) -> Result<Affine<C>, SerializeError> {
    let n = <C::Base as Coordinate>::SIZE;
    let flags = buf[0] & (ZC_COMPRESSED | ZC_INFINITY | ZC_LARGEST);
    buf[0] &= !(ZC_COMPRESSED | ZC_INFINITY | ZC_LARGEST);
    let invalid = |reason| SerializeError::InvalidFlags {
        encoding,
        flags,
        reason,
    };
    if (flags & ZC_COMPRESSED != 0) != compressed {
        return Err(invalid(if compressed {
            "compression flag not set in a compressed encoding"
        } else {
            "compression flag set in an uncompressed encoding"
        }));
    }
    let largest = flags & ZC_LARGEST != 0;
    if flags & ZC_INFINITY != 0 {
        if largest {
            return Err(invalid("infinity and sort flags both set"));
        }
        if !all_zero(buf) {
            return Err(SerializeError::NonZeroInfinity { encoding });
        }
        return Ok(Affine::identity());
    }
    if !compressed && largest {
        return Err(invalid("sort flag set in an uncompressed encoding"));
    }
    let x = C::Base::read_be(&buf[..n]).map_err(coord_err(encoding))?;
    if compressed {
        return from_x(encoding, x, largest, validate);
    }
    let y = C::Base::read_be(&buf[n..]).map_err(coord_err(encoding))?;
    finish(encoding, x, y, validate)
}

// ---------------------------------------------------------------------------------------
// snarkjs / ffjavascript
// ---------------------------------------------------------------------------------------

/// snarkjs' in-file layout (`.zkey`, `.ptau`): Montgomery-form little-endian `x ‖ y`,
/// infinity as all zeros (ffjavascript `toRprLEM` / `fromRprLEM`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SnarkjsLem;

/// ffjavascript `toRprUncompressed` / `fromRprUncompressed`: canonical big-endian
/// `x ‖ y`, infinity as all zeros.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SnarkjsUncompressed;

/// ffjavascript `toRprCompressed` / `fromRprCompressed`: canonical big-endian `x` with
/// `0x80` = y is lexicographically largest and `0x40 ‖ 0…` = infinity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SnarkjsCompressed;

const SJ_LARGEST: u8 = 0x80;
const SJ_INFINITY: u8 = 0x40;

impl<C: SerializableCurve> PointEncoding<C> for SnarkjsLem {
    const NAME: &'static str = "snarkjs LEM";
    const ENCODED_LEN: usize = 2 * <C::Base as Coordinate>::SIZE;

    fn encode_unchecked_len(p: &Affine<C>, out: &mut [u8]) {
        let n = <C::Base as Coordinate>::SIZE;
        if p.infinity {
            out.fill(0);
        } else {
            p.x.write_le_mont(&mut out[..n]);
            p.y.write_le_mont(&mut out[n..]);
        }
    }

    fn decode(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError> {
        check_len(
            <Self as PointEncoding<C>>::NAME,
            <Self as PointEncoding<C>>::ENCODED_LEN,
            bytes.len(),
        )?;
        if all_zero(bytes) {
            return Ok(Affine::identity());
        }
        let n = <C::Base as Coordinate>::SIZE;
        let x = C::Base::read_le_mont(&bytes[..n])
            .map_err(coord_err(<Self as PointEncoding<C>>::NAME))?;
        let y = C::Base::read_le_mont(&bytes[n..])
            .map_err(coord_err(<Self as PointEncoding<C>>::NAME))?;
        finish(<Self as PointEncoding<C>>::NAME, x, y, validate)
    }
}

impl<C: SerializableCurve> PointEncoding<C> for SnarkjsUncompressed {
    const NAME: &'static str = "snarkjs uncompressed";
    const ENCODED_LEN: usize = 2 * <C::Base as Coordinate>::SIZE;

    fn encode_unchecked_len(p: &Affine<C>, out: &mut [u8]) {
        let n = <C::Base as Coordinate>::SIZE;
        if p.infinity {
            out.fill(0);
        } else {
            p.x.write_be(&mut out[..n]);
            p.y.write_be(&mut out[n..]);
        }
    }

    fn decode(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError> {
        check_len(
            <Self as PointEncoding<C>>::NAME,
            <Self as PointEncoding<C>>::ENCODED_LEN,
            bytes.len(),
        )?;
        let encoding = <Self as PointEncoding<C>>::NAME;
        let flags = bytes[0] & (SJ_LARGEST | SJ_INFINITY);
        if flags & SJ_LARGEST != 0 {
            return Err(SerializeError::InvalidFlags {
                encoding,
                flags,
                reason: "sign flag set in an uncompressed encoding",
            });
        }
        if flags & SJ_INFINITY != 0 {
            // The pure-JS curve's infinity: 0x40 followed by zeros.
            if bytes[0] != SJ_INFINITY || !all_zero(&bytes[1..]) {
                return Err(SerializeError::NonZeroInfinity { encoding });
            }
            return Ok(Affine::identity());
        }
        if all_zero(bytes) {
            return Ok(Affine::identity());
        }
        let n = <C::Base as Coordinate>::SIZE;
        let x = C::Base::read_be(&bytes[..n]).map_err(coord_err(encoding))?;
        let y = C::Base::read_be(&bytes[n..]).map_err(coord_err(encoding))?;
        finish(encoding, x, y, validate)
    }
}

impl<C: SerializableCurve> PointEncoding<C> for SnarkjsCompressed {
    const NAME: &'static str = "snarkjs compressed";
    const ENCODED_LEN: usize = <C::Base as Coordinate>::SIZE;

    fn encode_unchecked_len(p: &Affine<C>, out: &mut [u8]) {
        debug_assert!(free_top_bits::<C::Base>() >= 2, "no room for snarkjs flags");
        out.fill(0);
        if p.infinity {
            out[0] = SJ_INFINITY;
        } else {
            p.x.write_be(out);
            if p.y.is_lexicographically_largest() {
                out[0] |= SJ_LARGEST;
            }
        }
    }

    fn decode(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError> {
        check_len(
            <Self as PointEncoding<C>>::NAME,
            <Self as PointEncoding<C>>::ENCODED_LEN,
            bytes.len(),
        )?;
        let encoding = <Self as PointEncoding<C>>::NAME;
        with_scratch(bytes, |buf| {
            let flags = buf[0] & (SJ_LARGEST | SJ_INFINITY);
            buf[0] &= !(SJ_LARGEST | SJ_INFINITY);
            let largest = flags & SJ_LARGEST != 0;
            if flags & SJ_INFINITY != 0 {
                if largest {
                    return Err(SerializeError::InvalidFlags {
                        encoding,
                        flags,
                        reason: "infinity and sign flags both set",
                    });
                }
                if !all_zero(buf) {
                    return Err(SerializeError::NonZeroInfinity { encoding });
                }
                return Ok(Affine::identity());
            }
            let x = C::Base::read_be(buf).map_err(coord_err(encoding))?;
            from_x(encoding, x, largest, validate)
        })
    }
}
