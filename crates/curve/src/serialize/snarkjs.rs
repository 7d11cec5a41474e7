//! The encodings snarkjs and ffjavascript use: the Montgomery little-endian layout of
//! `.zkey`/`.ptau` sections, and the big-endian forms of ptau challenges and responses.

use super::{
    all_zero, coord_err, finish, free_top_bits, from_x, read_xy, with_scratch, write_xy,
    Coordinate, PointEncoding, SerializableCurve, SerializeError, Validate,
};
use crate::affine::Affine;

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

    fn encode_exact(p: &Affine<C>, out: &mut [u8]) {
        write_xy(p, out, C::Base::write_le_mont);
    }

    fn decode_exact(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError> {
        if all_zero(bytes) {
            return Ok(Affine::identity());
        }
        let encoding = <Self as PointEncoding<C>>::NAME;
        let (x, y) = read_xy::<C>(encoding, bytes, C::Base::read_le_mont)?;
        finish(encoding, x, y, validate)
    }
}

impl<C: SerializableCurve> PointEncoding<C> for SnarkjsUncompressed {
    const NAME: &'static str = "snarkjs uncompressed";
    const ENCODED_LEN: usize = 2 * <C::Base as Coordinate>::SIZE;

    fn encode_exact(p: &Affine<C>, out: &mut [u8]) {
        write_xy(p, out, C::Base::write_be);
    }

    fn decode_exact(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError> {
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
        let (x, y) = read_xy::<C>(encoding, bytes, C::Base::read_be)?;
        finish(encoding, x, y, validate)
    }
}

impl<C: SerializableCurve> PointEncoding<C> for SnarkjsCompressed {
    const NAME: &'static str = "snarkjs compressed";
    const ENCODED_LEN: usize = <C::Base as Coordinate>::SIZE;

    fn encode_exact(p: &Affine<C>, out: &mut [u8]) {
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

    fn decode_exact(bytes: &[u8], validate: Validate) -> Result<Affine<C>, SerializeError> {
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
