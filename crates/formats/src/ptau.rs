//! snarkjs powers-of-tau files (`.ptau`, version 1).
//!
//! Sections (points in snarkjs' Montgomery little-endian layout):
//!
//! | id | content | points |
//! |----|---------|--------|
//! | 1  | `u32 n8`, q, `u32 power`, `u32 ceremonyPower` | |
//! | 2  | `[τ^i]₁` | `2^(power+1) − 1` |
//! | 3  | `[τ^i]₂` | `2^power` |
//! | 4  | `[α·τ^i]₁` | `2^power` |
//! | 5  | `[β·τ^i]₁` | `2^power` |
//! | 6  | `[β]₂` | 1 |
//! | 7  | contributions | |
//! | 12 | `[L_j(τ)]₁` for sizes `2^0, 2^1, …, 2^(power+1)` | `2^(power+2) − 1` |
//! | 13 | `[L_j(τ)]₂` for sizes `2^0 … 2^power` | `2^(power+1) − 1` |
//! | 14 | `[α·L_j(τ)]₁`, same sizes as 13 | `2^(power+1) − 1` |
//! | 15 | `[β·L_j(τ)]₁`, same sizes as 13 | `2^(power+1) − 1` |
//!
//! Sections 12–15 exist only in files `snarkjs powersoftau prepare phase2` wrote. The
//! basis for size `2^k` starts at point `2^k − 1` (the sizes before it add up to that).
//! snarkjs computes the size-`2^(power+1)` basis of section 12 from the `2^(power+1) − 1`
//! powers it has plus a zero point in place of the missing `τ^(2^(power+1) − 1)`.
//!
//! [`Ptau`] reads the section table and then only the points asked for, so a large
//! file is never loaded whole.

use std::borrow::Cow;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Mutex;

use fastzk_curve::serialize::{SerializableCurve, Validate};
use fastzk_curve::Affine;
use fastzk_field::PrimeField;
use fastzk_pairing::{PairingCurve, G1, G2};
use num_bigint::BigUint;

use crate::binfile::{scan_table, Cursor, SectionTable};
use crate::codec::{decode_points, describe_prime, point_len};
use crate::error::{Ctx, ErrorKind, FormatError, Result};

const MAGIC: &[u8; 4] = b"ptau";
/// Largest power accepted (sizes past it overflow the shifts; no field here goes past
/// 2-adicity 32 anyway).
const MAX_POWER: u32 = 40;

enum Source {
    File(Mutex<std::fs::File>),
    Memory(Vec<u8>),
}

/// An open powers-of-tau file.
pub struct Ptau<E: PairingCurve> {
    file: String,
    source: Source,
    table: SectionTable,
    power: u32,
    ceremony_power: u32,
    validate: Validate,
    _curve: std::marker::PhantomData<E>,
}

impl<E: PairingCurve> std::fmt::Debug for Ptau<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ptau")
            .field("file", &self.file)
            .field("power", &self.power)
            .field("ceremony_power", &self.ceremony_power)
            .field("prepared", &self.is_prepared())
            .finish()
    }
}

fn section_name(id: u32) -> &'static str {
    match id {
        1 => "section 1 (header)",
        2 => "section 2 (tauG1)",
        3 => "section 3 (tauG2)",
        4 => "section 4 (alphaTauG1)",
        5 => "section 5 (betaTauG1)",
        6 => "section 6 (betaG2)",
        7 => "section 7 (contributions)",
        12 => "section 12 (Lagrange tauG1)",
        13 => "section 13 (Lagrange tauG2)",
        14 => "section 14 (Lagrange alphaTauG1)",
        15 => "section 15 (Lagrange betaTauG1)",
        _ => "section",
    }
}

impl<E: PairingCurve> Ptau<E> {
    /// Opens a `.ptau` file: reads the section table and the header, and checks every
    /// point section's size against the power. Points are read (and checked: on the
    /// curve, and in the subgroup with [`Validate::Yes`]) when asked for.
    pub fn open(path: impl AsRef<Path>, validate: Validate) -> Result<Self> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let io = |e: std::io::Error| FormatError::new(&file, ErrorKind::Io(e));
        let mut f = std::fs::File::open(path).map_err(io)?;
        let len = f.metadata().map_err(io)?.len();
        let table = scan_table(&mut f, len, MAGIC, &file)?;
        Self::build(file, Source::File(Mutex::new(f)), table, validate)
    }

    /// The same over bytes in memory; `file` names them in errors.
    pub fn from_bytes(bytes: Vec<u8>, file: &str, validate: Validate) -> Result<Self> {
        let table = scan_table(
            &mut std::io::Cursor::new(&bytes),
            bytes.len() as u64,
            MAGIC,
            file,
        )?;
        Self::build(file.to_owned(), Source::Memory(bytes), table, validate)
    }

    fn build(
        file: String,
        source: Source,
        table: SectionTable,
        validate: Validate,
    ) -> Result<Self> {
        table.check_version(&file, &[1])?;
        let mut p = Self {
            file,
            source,
            table,
            power: 0,
            ceremony_power: 0,
            validate,
            _curve: std::marker::PhantomData,
        };
        let header = p.read_raw(1, 0, None)?.into_owned();
        let ctx = Ctx::new(&p.file).section(section_name(1));
        let mut cur = Cursor::new(&header, ctx);
        let n8 = cur.u32()?;
        let q = BigUint::from_bytes_le(cur.take(n8 as u64)?);
        let curve = E::ID;
        if q != curve.base_modulus() {
            return Err(ctx.err(ErrorKind::WrongCurve {
                found: describe_prime(&q),
                expected: curve.title().to_owned(),
            }));
        }
        if n8 as usize != point_len::<E::G1>() / 2 {
            return Err(ctx.invalid(format!("n8 is {n8}, expected {}", point_len::<E::G1>() / 2)));
        }
        p.power = cur.u32()?;
        p.ceremony_power = cur.u32()?;
        cur.finish()?;
        if p.power > MAX_POWER || p.power > <E::Fr as PrimeField>::TWO_ADICITY {
            return Err(ctx.invalid(format!("power {} is too large", p.power)));
        }
        let (s1, s2) = (point_len::<E::G1>() as u64, point_len::<E::G2>() as u64);
        let pw = 1u64 << p.power;
        let expected = [
            (2, (2 * pw - 1) * s1, true),
            (3, pw * s2, true),
            (4, pw * s1, true),
            (5, pw * s1, true),
            (6, s2, true),
            (12, (4 * pw - 1) * s1, false),
            (13, (2 * pw - 1) * s2, false),
            (14, (2 * pw - 1) * s1, false),
            (15, (2 * pw - 1) * s1, false),
        ];
        for (id, size, required) in expected {
            match p.table.find(id) {
                None if required => {
                    return Err(FormatError::new(&p.file, ErrorKind::MissingSection(id)))
                }
                None => {}
                Some(s) if s.size != size => {
                    return Err(Ctx::new(&p.file).section(section_name(id)).invalid(format!(
                        "section is {} bytes, expected {size} for power {}",
                        s.size, p.power
                    )))
                }
                Some(_) => {}
            }
        }
        let prepared = [12, 13, 14, 15].map(|id| p.table.find(id).is_some());
        if prepared.iter().any(|&x| x) && !prepared.iter().all(|&x| x) {
            return Err(Ctx::new(&p.file)
                .invalid("some but not all of the Lagrange sections 12–15 are present"));
        }
        Ok(p)
    }

    /// `power`: the file holds `2^power` powers of τ in G2.
    /// The file's name, as errors give it.
    pub fn file(&self) -> &str {
        &self.file
    }

    pub fn power(&self) -> u32 {
        self.power
    }

    pub fn ceremony_power(&self) -> u32 {
        self.ceremony_power
    }

    /// Whether the Lagrange sections (12–15) are present.
    pub fn is_prepared(&self) -> bool {
        self.table.find(12).is_some()
    }

    /// `len` bytes (all of them with `None`) of section `id` from byte `offset`.
    fn read_raw(&self, id: u32, offset: u64, len: Option<u64>) -> Result<Cow<'_, [u8]>> {
        let s = *self.table.require(&self.file, id)?;
        let len = len.unwrap_or(s.size.saturating_sub(offset));
        if offset.checked_add(len).is_none_or(|end| end > s.size) {
            return Err(Ctx::new(&self.file)
                .section(section_name(id))
                .err(ErrorKind::Truncated {
                    needed: offset.saturating_add(len),
                    available: s.size,
                }));
        }
        let start = s.offset + offset;
        match &self.source {
            Source::Memory(b) => Ok(Cow::Borrowed(&b[start as usize..(start + len) as usize])),
            Source::File(f) => {
                let io = |e: std::io::Error| FormatError::new(&self.file, ErrorKind::Io(e));
                let mut f = f.lock().unwrap_or_else(|e| e.into_inner());
                f.seek(SeekFrom::Start(start)).map_err(io)?;
                let mut buf = vec![0u8; len as usize];
                f.read_exact(&mut buf).map_err(io)?;
                Ok(Cow::Owned(buf))
            }
        }
    }

    /// `count` points of section `id` starting at point `first`.
    fn points<C: SerializableCurve + fastzk_msm::MsmCurve>(
        &self,
        id: u32,
        first: u64,
        count: u64,
    ) -> Result<Vec<Affine<C>>> {
        let len = point_len::<C>() as u64;
        let bytes = self.read_raw(id, first * len, Some(count * len))?;
        let ctx = Ctx::new(&self.file).section(section_name(id));
        decode_points::<C>(&bytes, count, self.validate, &ctx).map_err(|e| match e.index {
            Some(i) => {
                let mut e = e;
                e.index = Some(first + i);
                e
            }
            None => e,
        })
    }

    /// The first `count` powers `[τ^i]₁` (at most `2^(power+1) − 1`).
    pub fn tau_g1(&self, count: u64) -> Result<Vec<G1<E>>> {
        self.points::<E::G1>(2, 0, count)
    }

    /// The first `count` powers `[τ^i]₂` (at most `2^power`).
    pub fn tau_g2(&self, count: u64) -> Result<Vec<G2<E>>> {
        self.points::<E::G2>(3, 0, count)
    }

    /// `[α]₁`, the first point of `alphaTauG1`.
    pub fn alpha_g1(&self) -> Result<G1<E>> {
        Ok(self.points::<E::G1>(4, 0, 1)?[0])
    }

    /// `[β]₁`, the first point of `betaTauG1`.
    pub fn beta_g1(&self) -> Result<G1<E>> {
        Ok(self.points::<E::G1>(5, 0, 1)?[0])
    }

    /// `[β]₂`.
    pub fn beta_g2(&self) -> Result<G2<E>> {
        Ok(self.points::<E::G2>(6, 0, 1)?[0])
    }

    fn lagrange<C: SerializableCurve + fastzk_msm::MsmCurve>(
        &self,
        id: u32,
        log_n: u32,
        max_log: u32,
    ) -> Result<Vec<Affine<C>>> {
        if !self.is_prepared() {
            return Err(Ctx::new(&self.file)
                .err(ErrorKind::MissingSection(id))
                .in_section(
                    "not prepared for phase 2 (run `snarkjs powersoftau prepare phase2`)",
                ));
        }
        if log_n > max_log {
            return Err(Ctx::new(&self.file).section(section_name(id)).invalid(format!(
                "a Lagrange basis of size 2^{log_n} needs a ptau of power {} or more; this one has power {}",
                log_n + self.power - max_log,
                self.power
            )));
        }
        let n = 1u64 << log_n;
        self.points::<C>(id, n - 1, n)
    }

    /// `[L_j(τ)]₁` for the domain of size `2^log_n`, `log_n ≤ power + 1`.
    pub fn lagrange_g1(&self, log_n: u32) -> Result<Vec<G1<E>>> {
        self.lagrange::<E::G1>(12, log_n, self.power + 1)
    }

    /// `[L_j(τ)]₂`, `log_n ≤ power`.
    pub fn lagrange_g2(&self, log_n: u32) -> Result<Vec<G2<E>>> {
        self.lagrange::<E::G2>(13, log_n, self.power)
    }

    /// `[α·L_j(τ)]₁`, `log_n ≤ power`.
    pub fn alpha_lagrange_g1(&self, log_n: u32) -> Result<Vec<G1<E>>> {
        self.lagrange::<E::G1>(14, log_n, self.power)
    }

    /// `[β·L_j(τ)]₁`, `log_n ≤ power`.
    pub fn beta_lagrange_g1(&self, log_n: u32) -> Result<Vec<G1<E>>> {
        self.lagrange::<E::G1>(15, log_n, self.power)
    }
}
