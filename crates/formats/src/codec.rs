//! The building blocks every reader and writer here (and a prover's own key format)
//! uses: primes in headers, field elements, point arrays in snarkjs' layout, and curve
//! identification by prime.

use fastzk_curve::serialize::{
    Coordinate, PointEncoding, SerializableCurve, SerializeError, SnarkjsLem, Validate,
};
use fastzk_curve::{Affine, CurveError};
use fastzk_field::PrimeField;
use fastzk_msm::{membership, MsmCurve};
use fastzk_pairing::CurveId;
use num_bigint::BigUint;
use rayon::prelude::*;

use crate::binfile::{BinFile, Cursor};
use crate::error::{Ctx, ErrorKind, FormatError, Result};

/// What to call a prime in an error message.
pub fn describe_prime(p: &BigUint) -> String {
    match CurveId::from_prime(p) {
        Some(c) => c.title().to_owned(),
        None => format!("an unknown prime field (p = {p})"),
    }
}

/// Reads `u32 n8` then an `n8`-byte little-endian prime, and checks it is `expected`
/// with `n8 == expected_bytes` (errors name both curves when they differ).
pub fn read_prime(
    cur: &mut Cursor<'_, '_>,
    expected: &BigUint,
    expected_bytes: usize,
) -> Result<()> {
    let n8 = cur.u32()?;
    let prime = BigUint::from_bytes_le(cur.take(n8 as u64)?);
    if prime != *expected {
        return Err(cur.ctx.err(ErrorKind::WrongCurve {
            found: describe_prime(&prime),
            expected: describe_prime(expected),
        }));
    }
    if n8 as usize != expected_bytes {
        return Err(cur.ctx.invalid(format!(
            "field elements take {n8} bytes, expected {expected_bytes}"
        )));
    }
    Ok(())
}

/// A canonical little-endian field element (`F::BYTES` long), `< p`.
pub fn read_fe<F: PrimeField>(bytes: &[u8], ctx: &Ctx<'_>) -> Result<F> {
    F::from_le_bytes(bytes).map_err(|_| {
        ctx.err(ErrorKind::NotCanonical {
            modulus: F::modulus().to_string(),
        })
    })
}

/// Little-endian bytes taken as a Montgomery representation (`< p` checked).
pub fn read_mont<F: PrimeField + Coordinate>(bytes: &[u8], ctx: &Ctx<'_>) -> Result<F> {
    F::read_le_mont(bytes).map_err(|_| {
        ctx.err(ErrorKind::NotCanonical {
            modulus: F::modulus().to_string(),
        })
    })
}

/// Bytes of one point in snarkjs' file layout.
pub fn point_len<C: SerializableCurve>() -> usize {
    <SnarkjsLem as PointEncoding<C>>::ENCODED_LEN
}

/// Decodes one point; errors carry the context.
pub fn decode_point<C: SerializableCurve>(
    bytes: &[u8],
    check: PointCheck,
    ctx: &Ctx<'_>,
) -> Result<Affine<C>> {
    let validate = match check {
        PointCheck::Subgroup => Validate::Yes,
        PointCheck::OnCurve => Validate::No,
        PointCheck::Prevalidated => return decode_point_prevalidated(bytes, ctx),
    };
    SnarkjsLem::decode(bytes, validate).map_err(|e| ctx.err(ErrorKind::Point(e)))
}

/// How much a reader checks of each point it decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PointCheck {
    /// On the curve and in the prime-order subgroup (the default).
    Subgroup,
    /// On the curve only (trusted files; a scalar multiplication per point saved).
    OnCurve,
    /// Coordinates below the modulus only: for bytes the caller knows passed
    /// [`PointCheck::Subgroup`] before (the CLI remembers keys by content hash). Never
    /// use it on bytes of unknown origin.
    Prevalidated,
}

impl From<Validate> for PointCheck {
    fn from(v: Validate) -> Self {
        match v {
            Validate::Yes => PointCheck::Subgroup,
            Validate::No => PointCheck::OnCurve,
        }
    }
}

/// LEM bytes to a point with only the coordinate range checked (all zeros = identity).
fn decode_point_prevalidated<C: SerializableCurve>(
    bytes: &[u8],
    ctx: &Ctx<'_>,
) -> Result<Affine<C>> {
    let n = bytes.len() / 2;
    if bytes.len() != point_len::<C>() {
        return Err(ctx.invalid(format!(
            "point of {} bytes, expected {}",
            bytes.len(),
            point_len::<C>()
        )));
    }
    if bytes.iter().all(|&b| b == 0) {
        return Ok(Affine::identity());
    }
    let coord = |b: &[u8]| {
        <C::Base as Coordinate>::read_le_mont(b)
            .map_err(|e| ctx.invalid(format!("coordinate: {e}")))
    };
    Ok(Affine::new_unchecked(
        coord(&bytes[..n])?,
        coord(&bytes[n..])?,
    ))
}

/// Decodes back-to-back points, in parallel; the length must be `count` points exactly.
/// The error names the index of a bad point (the lowest one failing the subgroup test).
///
/// With [`PointCheck::Subgroup`] the points are decoded on the curve first and then
/// tested together ([`fastzk_msm::membership`]: random combinations whose soundness is
/// argued there, about ten bucket additions per BN254 G2 point instead of a scalar
/// multiplication each).
pub fn decode_points<C: SerializableCurve + MsmCurve>(
    bytes: &[u8],
    count: u64,
    check: impl Into<PointCheck>,
    ctx: &Ctx<'_>,
) -> Result<Vec<Affine<C>>> {
    let check = check.into();
    let len = point_len::<C>() as u64;
    let expected = count.saturating_mul(len);
    if bytes.len() as u64 != expected {
        return Err(ctx.invalid(format!(
            "section is {} bytes, expected {count} points of {len} bytes = {expected}",
            bytes.len()
        )));
    }
    let each = match check {
        PointCheck::Subgroup => PointCheck::OnCurve,
        other => other,
    };
    // Decoded straight into their final place: collecting `Result`s in parallel would
    // build the array twice (per-task pieces, then the whole), and fresh pages cost as
    // much as the decoding.
    let (len, n) = (len as usize, count as usize);
    let mut points: Vec<Affine<C>> = Vec::with_capacity(n);
    let decoded = points.spare_capacity_mut()[..n]
        .par_iter_mut()
        .zip(bytes.par_chunks_exact(len))
        .enumerate()
        .try_for_each(|(i, (slot, chunk))| {
            slot.write(decode_point(chunk, each, ctx).map_err(|e| e.at(i as u64))?);
            Ok::<(), FormatError>(())
        });
    if let Err(e) = decoded {
        // Name the lowest bad point, whichever one the parallel pass met first.
        for (i, chunk) in bytes.chunks_exact(len).enumerate() {
            decode_point::<C>(chunk, each, ctx).map_err(|e| e.at(i as u64))?;
        }
        return Err(e);
    }
    // SAFETY: the pass above wrote every slot (it found no error).
    unsafe { points.set_len(n) };
    if check == PointCheck::Subgroup {
        check_subgroup(&points, ctx)?;
    }
    Ok(points)
}

/// The subgroup half of [`PointCheck::Subgroup`] for points decoded with
/// [`PointCheck::OnCurve`] (a reader that checks them later, beside other work): the
/// same test and the same error, naming the lowest failing index.
pub fn check_subgroup<C: SerializableCurve + MsmCurve>(
    points: &[Affine<C>],
    ctx: &Ctx<'_>,
) -> Result<()> {
    membership::check_subgroup(points).map_err(|(i, e)| {
        let encoding = <SnarkjsLem as PointEncoding<C>>::NAME;
        let e = match e {
            CurveError::NotOnCurve => SerializeError::NotOnCurve { encoding },
            _ => SerializeError::NotInSubgroup { encoding },
        };
        ctx.err(ErrorKind::Point(e)).at(i as u64)
    })
}

/// Appends points in snarkjs' layout, encoding in parallel.
pub fn encode_points<C: SerializableCurve>(buf: &mut Vec<u8>, points: &[Affine<C>]) {
    let len = point_len::<C>();
    let start = buf.len();
    buf.resize(start + len * points.len(), 0);
    buf[start..]
        .par_chunks_exact_mut(len)
        .zip(points.par_iter())
        .for_each(|(out, p)| {
            SnarkjsLem::encode_into(p, out).expect("chunk has the encoded length");
        });
}

/// Appends one point in snarkjs' layout.
pub fn encode_point<C: SerializableCurve>(buf: &mut Vec<u8>, p: &Affine<C>) {
    buf.extend_from_slice(&SnarkjsLem::encode(p));
}

/// `u32 n8` and the little-endian prime, as the headers write them.
pub fn write_prime(buf: &mut Vec<u8>, p: &BigUint, n8: usize) {
    buf.extend_from_slice(&(n8 as u32).to_le_bytes());
    let mut b = p.to_bytes_le();
    b.resize(n8, 0);
    buf.extend_from_slice(&b);
}

/// Which curve a `.r1cs`, `.wtns`, `.zkey` or `.ptau` file uses, from the prime in its
/// header (the magic says which header to look at).
pub fn sniff_curve(bytes: &[u8], file: &str) -> Result<CurveId> {
    let magic: [u8; 4] = match bytes.get(..4) {
        Some(m) => m.try_into().expect("4 bytes"),
        None => {
            return Err(FormatError::new(
                file,
                ErrorKind::Truncated {
                    needed: 4,
                    available: bytes.len() as u64,
                },
            ))
        }
    };
    let section = match &magic {
        b"r1cs" | b"wtns" | b"ptau" => 1,
        b"zkey" => 2,
        _ => {
            return Err(FormatError::new(
                file,
                ErrorKind::Magic {
                    found: String::from_utf8_lossy(&magic).into_owned(),
                    expected: "r1cs, wtns, zkey or ptau".into(),
                },
            ))
        }
    };
    let bin = BinFile::parse(bytes, &magic, file)?;
    curve_in_header(bin.require(section)?, file, section)
}

/// The curve of the prime a header section starts with (`u32 n8`, then the prime).
fn curve_in_header(head: &[u8], file: &str, section: u32) -> Result<CurveId> {
    let sec_name = format!("section {section} (header)");
    let ctx = Ctx::new(file).section(&sec_name);
    let mut cur = Cursor::new(head, ctx);
    let n8 = cur.u32()?;
    let prime = BigUint::from_bytes_le(cur.take(n8 as u64)?);
    CurveId::from_prime(&prime)
        .ok_or_else(|| ctx.invalid(format!("unknown prime field (p = {prime})")))
}

/// [`sniff_curve`] on a file; reads only the section table and the header section, so
/// it is cheap on large `.zkey` and `.ptau` files.
pub fn sniff_curve_file(path: impl AsRef<std::path::Path>) -> Result<CurveId> {
    use std::io::{Read, Seek, SeekFrom};
    let path = path.as_ref();
    let file = path.display().to_string();
    let io = |e: std::io::Error| FormatError::new(&file, ErrorKind::Io(e));
    let mut f = std::fs::File::open(path).map_err(io)?;
    let len = f.metadata().map_err(io)?.len();
    let mut magic = [0u8; 4];
    if len < 4 {
        return sniff_curve(&[], &file);
    }
    f.read_exact(&mut magic).map_err(io)?;
    let table = crate::binfile::scan_table(&mut f, len, &magic, &file);
    let table = match table {
        Ok(t) => t,
        // Unknown magic: let sniff_curve word the error.
        Err(_) if !matches!(&magic, b"r1cs" | b"wtns" | b"zkey" | b"ptau") => {
            return sniff_curve(&magic, &file)
        }
        Err(e) => return Err(e),
    };
    let id = if &magic == b"zkey" { 2 } else { 1 };
    let s = *table.require(&file, id)?;
    // A header holds two small integers, two primes and a few points: cap the read.
    let n = s.size.min(4096);
    let mut head = vec![0u8; n as usize];
    f.seek(SeekFrom::Start(s.offset)).map_err(io)?;
    f.read_exact(&mut head).map_err(io)?;
    curve_in_header(&head, &file, id)
}
