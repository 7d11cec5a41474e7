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

use fastzk_field::{Field, FieldError};

use crate::affine::Affine;
use crate::config::CurveConfig;

mod ark;
mod coordinate;
mod snarkjs;

pub use ark::{ArkCompressed, ArkUncompressed};
pub use coordinate::Coordinate;
pub use snarkjs::{SnarkjsCompressed, SnarkjsLem, SnarkjsUncompressed};

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

// ---------------------------------------------------------------------------------------
// The encoding trait
// ---------------------------------------------------------------------------------------

/// A byte encoding of the points of group `C`.
pub trait PointEncoding<C: SerializableCurve> {
    /// Short name, used in error messages.
    const NAME: &'static str;
    /// Bytes per point.
    const ENCODED_LEN: usize;

    /// Writes `p` into `out`, which is exactly [`Self::ENCODED_LEN`] bytes: what each
    /// encoding implements.
    fn encode_exact(p: &Affine<C>, out: &mut [u8]);

    /// Decodes `bytes`, which are exactly [`Self::ENCODED_LEN`] long: what each encoding
    /// implements.
    fn decode_exact(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError>;

    /// Writes `p` into `out`, which must be exactly [`Self::ENCODED_LEN`] bytes.
    fn encode_into(p: &Affine<C>, out: &mut [u8]) -> Result<(), SerializeError> {
        check_len(Self::NAME, Self::ENCODED_LEN, out.len())?;
        Self::encode_exact(p, out);
        Ok(())
    }

    /// Encodes `p` into a new vector.
    fn encode(p: &Affine<C>) -> Vec<u8> {
        let mut out = vec![0u8; Self::ENCODED_LEN];
        Self::encode_exact(p, &mut out);
        out
    }

    /// Decodes exactly [`Self::ENCODED_LEN`] bytes (anything else is a length error).
    fn decode(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError> {
        check_len(Self::NAME, Self::ENCODED_LEN, bytes.len())?;
        Self::decode_exact(bytes, validate)
    }

    /// Encodes points back to back.
    fn encode_many(points: &[Affine<C>]) -> Vec<u8> {
        let mut out = vec![0u8; Self::ENCODED_LEN * points.len()];
        for (p, chunk) in points.iter().zip(out.chunks_exact_mut(Self::ENCODED_LEN)) {
            Self::encode_exact(p, chunk);
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

/// `x ‖ y` in one coordinate layout; the identity as all zeros.
fn write_xy<C: SerializableCurve>(p: &Affine<C>, out: &mut [u8], write: fn(&C::Base, &mut [u8])) {
    let n = <C::Base as Coordinate>::SIZE;
    if p.infinity {
        out.fill(0);
    } else {
        write(&p.x, &mut out[..n]);
        write(&p.y, &mut out[n..]);
    }
}

/// The coordinates of `x ‖ y` in one layout (the caller handles the identity).
fn read_xy<C: SerializableCurve>(
    encoding: &'static str,
    bytes: &[u8],
    read: fn(&[u8]) -> Result<C::Base, FieldError>,
) -> Result<(C::Base, C::Base), SerializeError> {
    let n = <C::Base as Coordinate>::SIZE;
    let x = read(&bytes[..n]).map_err(coord_err(encoding))?;
    let y = read(&bytes[n..]).map_err(coord_err(encoding))?;
    Ok((x, y))
}
