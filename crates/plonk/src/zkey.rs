//! snarkjs Plonk proving keys (`.zkey`, protocol 2).
//!
//! Sections (field elements in Montgomery form, little-endian; points in snarkjs'
//! Montgomery layout), in the order snarkjs writes them — 3 to 14, then 1 and 2:
//!
//! | id | content |
//! |----|---------|
//! | 1  | `u32` protocol (2 = Plonk) |
//! | 2  | `u32 n8q`, q, `u32 n8r`, r, `u32 nVars`, `u32 nPublic`, `u32 domainSize`, `u32 nAdditions`, `u32 nConstraints`, k1, k2, `[Qm]₁ [Ql]₁ [Qr]₁ [Qo]₁ [Qc]₁ [S1]₁ [S2]₁ [S3]₁`, `[τ]₂` |
//! | 3  | additions: `nAdditions × (u32 a, u32 b, factor_a, factor_b)` |
//! | 4–6 | the A, B, C wire maps: `nConstraints × u32` |
//! | 7–11 | Qm, Ql, Qr, Qo, Qc: `n` coefficients, then `4n` evaluations |
//! | 12 | S1, S2, S3, each as above |
//! | 13 | `max(nPublic, 1)` Lagrange polynomials, each as above |
//! | 14 | `[τ^i]₁`, `i < n + 6` |
//!
//! The reader takes bytes in memory or a file: the `4n` evaluations (most of a key)
//! stay where they are and are read a block at a time by the prover.

use std::path::Path;
use std::sync::Arc;

use fastzk_curve::serialize::Coordinate;
use fastzk_field::PrimeField;
use fastzk_formats::binfile::{scan_table, Cursor, SectionTable};
use fastzk_formats::codec::{
    decode_point, decode_points, describe_prime, encode_point, encode_points, point_len, read_mont,
    read_prime, write_prime, PointCheck,
};
use fastzk_formats::error::{Ctx, ErrorKind, FormatError, Result};
use fastzk_formats::snarkjs::ZkeyProtocol;
use num_bigint::BigUint;
use rayon::prelude::*;

use crate::keys::{Addition, Extended, ExtendedStore, InFile, ProvingKey, VerifyingKey};
use crate::source::{ByteSource, FileSource, SourceReader};
use crate::{Fr, PairingCurve};

const MAGIC: &[u8; 4] = b"zkey";

/// Powers of tau per piece when a lean key's section 14 is hashed and checked.
const PTAU_PIECE: u64 = 1 << 16;

/// The bytes of a key's sections that hold points (2, then 14), handed out a piece at a
/// time ([`ProvingKey::open_lean_with`]).
pub struct PointBytes<'a> {
    feed: &'a mut Feed<'a>,
}

/// Hands each piece of bytes to the sink it is given.
type Feed<'a> = dyn FnMut(&mut dyn FnMut(&[u8])) -> Result<()> + 'a;

/// Chooses the check from all the points' bytes at once.
type ChooseHeld<'a> = Box<dyn FnOnce(&[&[u8]]) -> PointCheck + 'a>;

/// Chooses the check from the points' bytes fed a piece at a time.
type ChooseInFile<'a> = Box<dyn FnOnce(&mut PointBytes<'_>) -> Result<PointCheck> + 'a>;

impl PointBytes<'_> {
    /// Calls `sink` on each piece, in file order.
    pub fn for_each(&mut self, sink: &mut dyn FnMut(&[u8])) -> Result<()> {
        (self.feed)(sink)
    }
}

/// How the points are read: whole, with the check chosen from all their bytes at once,
/// or left in the file.
enum Points<'a> {
    Held(ChooseHeld<'a>),
    InFile(ChooseInFile<'a>),
}

/// The protocol of a `.zkey` (section 1), so a caller can dispatch before reading it.
pub fn zkey_protocol(path: impl AsRef<Path>) -> Result<ZkeyProtocol> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let source = FileSource::open(path).map_err(|e| FormatError::new(&file, ErrorKind::Io(e)))?;
    protocol_of(&source, &table(&source, &file)?, &file)
}

/// The counts in a Plonk key's header (section 2), for planning memory before reading
/// the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySizes {
    pub n_vars: usize,
    pub n_public: usize,
    pub domain_size: usize,
    pub n_additions: usize,
    pub n_constraints: usize,
}

/// [`KeySizes`] of a Plonk `.zkey` (sections 1 and 2 only; the full reader checks the
/// rest).
pub fn key_sizes(path: impl AsRef<Path>) -> Result<KeySizes> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let source = FileSource::open(path).map_err(|e| FormatError::new(&file, ErrorKind::Io(e)))?;
    let table = table(&source, &file)?;
    let c2 = Ctx::new(&file).section("section 2 (Plonk header)");
    if protocol_of(&source, &table, &file)? != ZkeyProtocol::Plonk {
        return Err(c2.invalid("not a Plonk key".to_owned()));
    }
    let header = section_bytes(&source, &table, 2, &file)?;
    let mut cur = Cursor::new(&header, c2);
    for _ in 0..2 {
        let n8 = cur.u32()?;
        cur.take(n8 as u64)?;
    }
    let mut next = || cur.u32().map(|v| v as usize);
    Ok(KeySizes {
        n_vars: next()?,
        n_public: next()?,
        domain_size: next()?,
        n_additions: next()?,
        n_constraints: next()?,
    })
}

fn protocol_of(source: &dyn ByteSource, table: &SectionTable, file: &str) -> Result<ZkeyProtocol> {
    let bytes = section_bytes(source, table, 1, file)?;
    let c1 = Ctx::new(file).section("section 1 (protocol)");
    let mut cur = Cursor::new(&bytes, c1);
    let id = cur.u32()?;
    cur.finish()?;
    ZkeyProtocol::from_id(id).ok_or_else(|| {
        c1.err(ErrorKind::Unsupported(format!(
            "protocol {id} is not one snarkjs writes"
        )))
    })
}

fn table(source: &dyn ByteSource, file: &str) -> Result<SectionTable> {
    let mut r = SourceReader { source, pos: 0 };
    let t = scan_table(&mut r, source.len(), MAGIC, file)?;
    t.check_version(file, &[1])?;
    Ok(t)
}

fn section_bytes(
    source: &dyn ByteSource,
    table: &SectionTable,
    id: u32,
    file: &str,
) -> Result<Vec<u8>> {
    let s = table.require(file, id)?;
    let mut buf = vec![0u8; s.size as usize];
    source
        .read_at(s.offset, &mut buf)
        .map_err(|e| FormatError::new(file, ErrorKind::Io(e)))?;
    Ok(buf)
}

impl<E: PairingCurve> ProvingKey<E> {
    /// Parses a key held in memory; `file` names it in errors.
    pub fn from_bytes(bytes: Vec<u8>, file: &str, check: PointCheck) -> Result<Self> {
        Self::from_source(Arc::new(bytes), file, |_| check)
    }

    /// Opens a key file: everything but the polynomials (coefficients and `4n`
    /// evaluations, read and checked `< r` when the prover uses them) is read and checked
    /// now.
    pub fn open(path: impl AsRef<Path>, check: PointCheck) -> Result<Self> {
        Self::open_with(path, |_| check)
    }

    /// [`Self::open`], choosing the point check from the bytes of the sections that
    /// hold points (2 and 14), e.g. to skip the subgroup check for bytes checked before.
    pub fn open_with(
        path: impl AsRef<Path>,
        check: impl FnOnce(&[&[u8]]) -> PointCheck,
    ) -> Result<Self> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let source =
            FileSource::open(path).map_err(|e| FormatError::new(&file, ErrorKind::Io(e)))?;
        Self::from_source(Arc::new(source), &file, check)
    }

    /// Parses a key from any source.
    pub fn from_source(
        source: Arc<dyn ByteSource>,
        file: &str,
        check: impl FnOnce(&[&[u8]]) -> PointCheck,
    ) -> Result<Self> {
        Self::parse(source, file, Points::Held(Box::new(check)))
    }

    /// Opens a key for proving in bounded memory: the coefficients (`8n` field elements)
    /// and the powers of tau (`n + 6` points) stay in the file with the `4n` evaluations
    /// ([`ProvingKey::in_file`]) and the prover reads them a block at a time. `check` is
    /// given the bytes of the sections holding points (2, then 14) a piece at a time,
    /// through the function it is passed, and chooses the check; the points are checked
    /// now, a piece at a time, and trusted when read again for the proof (which is
    /// verified before it is returned).
    pub fn open_lean_with(
        path: impl AsRef<Path>,
        check: impl FnOnce(&mut PointBytes<'_>) -> Result<PointCheck>,
    ) -> Result<Self> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let source =
            FileSource::open(path).map_err(|e| FormatError::new(&file, ErrorKind::Io(e)))?;
        Self::parse(Arc::new(source), &file, Points::InFile(Box::new(check)))
    }

    fn parse(source: Arc<dyn ByteSource>, file: &str, points: Points<'_>) -> Result<Self> {
        let ctx = Ctx::new(file);
        let table = table(source.as_ref(), file)?;
        let protocol = protocol_of(source.as_ref(), &table, file)?;
        if protocol != ZkeyProtocol::Plonk {
            return Err(ctx
                .section("section 1 (protocol)")
                .err(ErrorKind::Unsupported(format!(
                    "protocol {} ({}); this reader takes Plonk (2) keys",
                    protocol.id(),
                    protocol.name()
                ))));
        }
        let n8 = Fr::<E>::BYTES as u64;
        let s1 = point_len::<E::G1>() as u64;
        let s2 = point_len::<E::G2>() as u64;

        // Section 2: the header.
        let header = section_bytes(source.as_ref(), &table, 2, file)?;
        let c2 = ctx.section("section 2 (Plonk header)");
        let mut cur = Cursor::new(&header, c2);
        {
            let n8q = cur.u32()?;
            let q = BigUint::from_bytes_le(cur.take(n8q as u64)?);
            if q != E::ID.base_modulus() {
                return Err(c2.err(ErrorKind::WrongCurve {
                    found: describe_prime(&q),
                    expected: E::ID.title().to_owned(),
                }));
            }
            if n8q as u64 != s1 / 2 {
                return Err(c2.invalid(format!("n8q is {n8q}, expected {}", s1 / 2)));
            }
        }
        read_prime(&mut cur, &Fr::<E>::modulus(), Fr::<E>::BYTES)?;
        let n_vars = cur.u32()? as u64;
        let n_public = cur.u32()? as u64;
        let domain_size = cur.u32()? as u64;
        let n_additions = cur.u32()? as u64;
        let n_constraints = cur.u32()? as u64;
        if !domain_size.is_power_of_two() {
            return Err(c2.invalid(format!("domain size {domain_size} is not a power of two")));
        }
        let power = domain_size.trailing_zeros();
        // The quotient needs the 4n domain.
        if power + 2 > Fr::<E>::TWO_ADICITY {
            return Err(c2.invalid(format!(
                "domain size 2^{power} leaves no room for the 4n domain (the field has 2^{})",
                Fr::<E>::TWO_ADICITY
            )));
        }
        let k1: Fr<E> = read_mont(cur.take(n8)?, &c2.section("section 2 (k1)"))?;
        let k2: Fr<E> = read_mont(cur.take(n8)?, &c2.section("section 2 (k2)"))?;
        let points_at = header.len() - cur.remaining();
        cur.take(8 * s1 + s2)?;
        cur.finish()?;

        // Every section's size against the header's counts before anything is allocated.
        let n = domain_size;
        let n_lagrange = n_public.max(1);
        let sizes = [
            (3, "section 3 (additions)", n_additions * (8 + 2 * n8)),
            (4, "section 4 (A map)", n_constraints * 4),
            (5, "section 5 (B map)", n_constraints * 4),
            (6, "section 6 (C map)", n_constraints * 4),
            (7, "section 7 (Qm)", 5 * n * n8),
            (8, "section 8 (Ql)", 5 * n * n8),
            (9, "section 9 (Qr)", 5 * n * n8),
            (10, "section 10 (Qo)", 5 * n * n8),
            (11, "section 11 (Qc)", 5 * n * n8),
            (12, "section 12 (sigma)", 3 * 5 * n * n8),
            // Saturating: a lying nPublic must not wrap around to a plausible size.
            (
                13,
                "section 13 (Lagrange)",
                n_lagrange.saturating_mul(5 * n * n8),
            ),
            (14, "section 14 (powers of tau)", (n + 6) * s1),
        ];
        for (id, name, want) in sizes {
            let got = table.require(file, id)?.size;
            if got != want {
                return Err(ctx
                    .section(name)
                    .invalid(format!("section is {got} bytes, expected {want}")));
            }
        }

        let ptau_at = table.require(file, 14)?.offset;
        let c14 = ctx.section("section 14 (powers of tau)");
        let lean = matches!(points, Points::InFile(_));
        let (check, ptau) = match points {
            Points::Held(choose) => {
                let ptau_bytes = section_bytes(source.as_ref(), &table, 14, file)?;
                let check = choose(&[&header, &ptau_bytes]);
                let ptau = decode_points::<E::G1>(&ptau_bytes, n + 6, check, &c14)?;
                (check, ptau)
            }
            Points::InFile(choose) => {
                let pieces = |f: &mut dyn FnMut(u64, &[u8]) -> Result<()>| -> Result<()> {
                    let len = s1 as usize;
                    let mut start = 0;
                    while start < n + 6 {
                        let count = PTAU_PIECE.min(n + 6 - start);
                        let mut buf = vec![0u8; count as usize * len];
                        source
                            .read_at(ptau_at + start * s1, &mut buf)
                            .map_err(|e| FormatError::new(file, ErrorKind::Io(e)))?;
                        f(start, &buf)?;
                        start += count;
                    }
                    Ok(())
                };
                let mut feed = |sink: &mut dyn FnMut(&[u8])| -> Result<()> {
                    sink(&header);
                    pieces(&mut |_, b| {
                        sink(b);
                        Ok(())
                    })
                };
                let check = choose(&mut PointBytes { feed: &mut feed })?;
                if check != PointCheck::Prevalidated {
                    pieces(&mut |start, b| {
                        decode_points::<E::G1>(b, (b.len() / s1 as usize) as u64, check, &c14)
                            .map(drop)
                            .map_err(|mut e| {
                                e.index = e.index.map(|i| i + start);
                                e
                            })
                    })?;
                }
                (check, Vec::new())
            }
        };
        let point = |bytes: &[u8], what: &str| {
            decode_point::<E::G1>(bytes, check, &c2)
                .map_err(|e| e.in_section(format!("section 2 ({what})")))
        };
        let mut at = points_at;
        let mut commitments = Vec::with_capacity(8);
        for what in ["Qm", "Ql", "Qr", "Qo", "Qc", "S1", "S2", "S3"] {
            commitments.push(point(&header[at..at + s1 as usize], what)?);
            at += s1 as usize;
        }
        let x_2 = decode_point::<E::G2>(&header[at..at + s2 as usize], check, &c2)
            .map_err(|e| e.in_section("section 2 (X_2)"))?;

        // Additions.
        let c3 = ctx.section("section 3 (additions)");
        let bytes = section_bytes(source.as_ref(), &table, 3, file)?;
        let additions = bytes
            .par_chunks_exact((8 + 2 * n8) as usize)
            .enumerate()
            .map(|(i, e)| {
                let w =
                    |k: usize| u32::from_le_bytes(e[4 * k..4 * k + 4].try_into().expect("4 bytes"));
                let f = |k: usize| {
                    read_mont::<Fr<E>>(&e[8 + k * n8 as usize..8 + (k + 1) * n8 as usize], &c3)
                };
                Ok(Addition {
                    a: w(0),
                    b: w(1),
                    factor_a: f(0).map_err(|e| e.at(i as u64))?,
                    factor_b: f(1).map_err(|e| e.at(i as u64))?,
                })
            })
            .collect::<Result<Vec<_>>>()?;

        // Wire maps.
        let mut maps: [Vec<u32>; 3] = Default::default();
        for (k, m) in maps.iter_mut().enumerate() {
            let bytes = section_bytes(source.as_ref(), &table, 4 + k as u32, file)?;
            *m = bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect();
        }

        // The coefficients and the 4n evaluations stay in the source (each value is checked
        // `< r` when it is read).
        let poly_at = |id: u32, index: u64| {
            table
                .require(file, id)
                .map(|s| s.offset + index * 5 * n * n8)
        };
        let (mut q_at, mut q_ext) = ([0u64; 5], [0u64; 5]);
        for i in 0..5 {
            q_at[i] = poly_at(7 + i as u32, 0)?;
            q_ext[i] = q_at[i] + n * n8;
        }
        let (mut sigma_at, mut sigma_ext) = ([0u64; 3], [0u64; 3]);
        for i in 0..3 {
            sigma_at[i] = poly_at(12, i as u64)?;
            sigma_ext[i] = sigma_at[i] + n * n8;
        }
        let in_file = Some(InFile {
            source: source.clone(),
            file: file.to_owned(),
            q: q_at,
            sigma: sigma_at,
            ptau: lean.then_some(ptau_at),
        });
        // Section 13 (the Lagrange polynomials) is not read: its size is checked above,
        // and its contents depend on the domain only (the writer recomputes them).

        let c = |i: usize| commitments[i];
        let pk = ProvingKey {
            vk: VerifyingKey {
                n_public: n_public as usize,
                power,
                k1,
                k2,
                q: [c(0), c(1), c(2), c(3), c(4)],
                s: [c(5), c(6), c(7)],
                x_2,
            },
            n_vars: n_vars as usize,
            n_constraints: n_constraints as usize,
            additions,
            maps,
            q: Default::default(),
            sigma: Default::default(),
            extended: ExtendedStore::Source {
                source,
                file: file.to_owned(),
                q: q_ext,
                sigma: sigma_ext,
            },
            ptau,
            in_file,
        };
        pk.check_shape().map_err(|e| ctx.invalid(e))?;
        Ok(pk)
    }

    /// Serializes in snarkjs' layout and section order (so a key made by snarkjs and
    /// read here is written back byte for byte).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_to(&mut out, "<zkey being written>")?;
        Ok(out)
    }

    /// Writes a `.zkey` file, streaming one polynomial at a time (a key of `2^20`
    /// gates is over a gigabyte; it is never held twice).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let io = |e: std::io::Error| FormatError::new(&file, ErrorKind::Io(e));
        let mut w =
            std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).map_err(io)?);
        self.write_to(&mut w, &file)?;
        std::io::Write::flush(&mut w).map_err(io)
    }

    /// [`Self::to_bytes`] into any writer; `file` names it in errors.
    pub fn write_to<W: std::io::Write>(&self, w: &mut W, file: &str) -> Result<()> {
        if self.ptau_in_file() {
            return Err(FormatError::new(
                file,
                ErrorKind::Unsupported(
                    "a key opened for bounded memory is proved with, not written".into(),
                ),
            ));
        }
        self.check_shape()
            .map_err(|e| FormatError::new(file, ErrorKind::Invalid(e)))?;
        let io = |e: std::io::Error| FormatError::new(file, ErrorKind::Io(e));
        let n = self.domain_size() as u64;
        let n8 = Fr::<E>::BYTES;
        let (s1, s2) = (point_len::<E::G1>() as u64, point_len::<E::G2>() as u64);
        let n8q = s1 / 2;
        let elements = |v: &[Fr<E>]| -> Vec<u8> {
            let mut b = vec![0u8; v.len() * n8];
            b.par_chunks_exact_mut(n8)
                .zip(v.par_iter())
                .for_each(|(o, x)| x.write_le_mont(o));
            b
        };
        let head = |w: &mut W, id: u32, size: u64| -> Result<()> {
            w.write_all(&id.to_le_bytes()).map_err(io)?;
            w.write_all(&size.to_le_bytes()).map_err(io)
        };
        let poly = |w: &mut W, which: Extended| -> Result<()> {
            w.write_all(&elements(&self.coefficients(which)?))
                .map_err(io)?;
            let ext = self.extended.read_all(which, 4 * n as usize)?;
            w.write_all(&elements(&ext)).map_err(io)
        };
        let n8 = n8 as u64;
        w.write_all(MAGIC).map_err(io)?;
        w.write_all(&1u32.to_le_bytes()).map_err(io)?;
        w.write_all(&14u32.to_le_bytes()).map_err(io)?;

        head(w, 3, self.additions.len() as u64 * (8 + 2 * n8))?;
        for ad in &self.additions {
            w.write_all(&ad.a.to_le_bytes()).map_err(io)?;
            w.write_all(&ad.b.to_le_bytes()).map_err(io)?;
            w.write_all(&elements(&[ad.factor_a, ad.factor_b]))
                .map_err(io)?;
        }
        for (k, m) in self.maps.iter().enumerate() {
            head(w, 4 + k as u32, m.len() as u64 * 4)?;
            let bytes: Vec<u8> = m.iter().flat_map(|x| x.to_le_bytes()).collect();
            w.write_all(&bytes).map_err(io)?;
        }
        for i in 0..5 {
            head(w, 7 + i as u32, 5 * n * n8)?;
            poly(w, Extended::Q(i))?;
        }
        head(w, 12, 15 * n * n8)?;
        for i in 0..3 {
            poly(w, Extended::Sigma(i))?;
        }
        let n_lagrange = self.n_public().max(1);
        head(w, 13, n_lagrange as u64 * 5 * n * n8)?;
        for i in 0..n_lagrange {
            let (coef, ext) = crate::setup::lagrange_polynomial::<E>(self.vk.power, i)
                .map_err(|e| FormatError::new(file, ErrorKind::Invalid(e.to_string())))?;
            w.write_all(&elements(&coef)).map_err(io)?;
            w.write_all(&elements(&ext)).map_err(io)?;
        }
        head(w, 14, (n + 6) * s1)?;
        let mut pts = Vec::with_capacity(((n + 6) * s1) as usize);
        encode_points(&mut pts, &self.ptau);
        w.write_all(&pts).map_err(io)?;
        drop(pts);
        head(w, 1, 4)?;
        w.write_all(&ZkeyProtocol::Plonk.id().to_le_bytes())
            .map_err(io)?;

        let mut b = Vec::new();
        write_prime(&mut b, &E::ID.base_modulus(), n8q as usize);
        write_prime(&mut b, &Fr::<E>::modulus(), n8 as usize);
        let counts = [
            self.n_vars,
            self.n_public(),
            n as usize,
            self.additions.len(),
            self.n_constraints,
        ];
        counts
            .iter()
            .for_each(|&v| b.extend_from_slice(&(v as u32).to_le_bytes()));
        b.extend_from_slice(&elements(&[self.vk.k1, self.vk.k2]));
        self.vk
            .q
            .iter()
            .chain(&self.vk.s)
            .for_each(|p| encode_point(&mut b, p));
        encode_point(&mut b, &self.vk.x_2);
        debug_assert_eq!(b.len() as u64, 4 + n8q + 4 + n8 + 20 + 2 * n8 + 8 * s1 + s2);
        head(w, 2, b.len() as u64)?;
        w.write_all(&b).map_err(io)
    }
}
