//! The encodings arkworks 0.5 writes: its generic short-Weierstrass format (BN254) and
//! the Zcash / IETF format `ark-bls12-381` uses instead (see the module docs of
//! [`super`] for the byte layouts).

use super::{
    all_zero, coord_err, finish, free_top_bits, from_x, with_scratch, ArkLayout, Coordinate,
    PointEncoding, SerializableCurve, SerializeError, Validate,
};
use crate::affine::Affine;

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

/// The arkworks layouts of one group: compressed or not, in the group's
/// [`ArkLayout`].
fn ark_encode<C: SerializableCurve>(p: &Affine<C>, out: &mut [u8], compressed: bool) {
    match C::ARK_LAYOUT {
        ArkLayout::SwFlags => sw_encode(p, out, compressed),
        ArkLayout::Zcash => zcash_encode(p, out, compressed),
    }
}

fn ark_decode<C: SerializableCurve>(
    encoding: &'static str,
    bytes: &[u8],
    compressed: bool,
    validate: Validate,
) -> Result<Affine<C>, SerializeError> {
    with_scratch(bytes, |buf| match C::ARK_LAYOUT {
        ArkLayout::SwFlags => sw_decode_buf(encoding, buf, compressed, validate),
        ArkLayout::Zcash => zcash_decode_buf(encoding, buf, compressed, validate),
    })
}

impl<C: SerializableCurve> PointEncoding<C> for ArkCompressed {
    const NAME: &'static str = "arkworks compressed";
    const ENCODED_LEN: usize = <C::Base as Coordinate>::SIZE;

    fn encode_exact(p: &Affine<C>, out: &mut [u8]) {
        ark_encode(p, out, true)
    }
    fn decode_exact(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError> {
        ark_decode(<Self as PointEncoding<C>>::NAME, bytes, true, validate)
    }
}

impl<C: SerializableCurve> PointEncoding<C> for ArkUncompressed {
    const NAME: &'static str = "arkworks uncompressed";
    const ENCODED_LEN: usize = 2 * <C::Base as Coordinate>::SIZE;

    fn encode_exact(p: &Affine<C>, out: &mut [u8]) {
        ark_encode(p, out, false)
    }
    fn decode_exact(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError> {
        ark_decode(<Self as PointEncoding<C>>::NAME, bytes, false, validate)
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
