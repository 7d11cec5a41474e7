//! snarkjs Groth16 proving keys (`.zkey`, version 1).
//!
//! Sections (points in snarkjs' Montgomery little-endian layout, [`SnarkjsLem`]):
//!
//! | id | content |
//! |----|---------|
//! | 1  | `u32` protocol (1 = Groth16) |
//! | 2  | `u32 n8q`, q, `u32 n8r`, r, `u32 nVars`, `u32 nPublic`, `u32 domainSize`, α₁, β₁, β₂, γ₂, δ₁, δ₂ |
//! | 3  | IC: `nPublic + 1` G1 points |
//! | 4  | `u32 nCoefs`, then `nCoefs × (u32 matrix (0 = A, 1 = B), u32 constraint, u32 signal, n8r-byte value)` |
//! | 5  | A: `nVars` G1 points |
//! | 6  | B: `nVars` G1 points |
//! | 7  | B: `nVars` G2 points |
//! | 8  | C: `nVars − nPublic − 1` G1 points (private signals) |
//! | 9  | H: `domainSize` G1 points |
//! | 10 | MPC contributions: 64-byte circuit hash, `u32` count, contributions |
//!
//! Section 4's values are **not** the coefficients: snarkjs stores the canonical bytes
//! of `coef · R² mod r` (`R = 2^(8·n8r)`), which its prover feeds, as if they were
//! Montgomery bytes, to a Montgomery multiplication with the canonical witness value,
//! getting `coef · w` in Montgomery form. Section 4 also holds the rows snarkjs adds
//! for the public signals, `A[nConstraints + i][i] = 1` for `i ∈ 0..=nPublic`.
//!
//! [`SnarkjsLem`]: fastzk_curve::serialize::SnarkjsLem
//! [`montgomery_radix`]: fastzk_formats::snarkjs::montgomery_radix

use std::path::Path;

use fastzk_field::{Field, PrimeField};
use fastzk_formats::binfile::{read_file, BinFile, BinWriter, Cursor};
use fastzk_formats::codec::{
    check_subgroup, decode_point, decode_points, describe_prime, encode_point, encode_points,
    point_len, read_mont, read_prime, write_prime, PointCheck,
};
use fastzk_formats::error::{Ctx, ErrorKind, FormatError, Result};
use fastzk_formats::snarkjs::{self, montgomery_radix, ZkeyProtocol};
use fastzk_formats::Validate;
use fastzk_r1cs::Csr;
use num_bigint::BigUint;
use rayon::prelude::*;

use crate::{Fr, PairingCurve, ProvingKey, VerifyingKey};

pub(crate) const MAGIC: &[u8; 4] = b"zkey";

/// A `.zkey` file: the proving key plus what snarkjs keeps beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zkey<E: PairingCurve> {
    pub proving_key: ProvingKey<E>,
    /// Section 10 as stored (circuit hash and MPC contributions), kept so a key read
    /// and written again is unchanged. Provers ignore it.
    pub contributions: Vec<u8>,
}

/// Section 10 of a key nobody contributed to: a zero circuit hash, no contributions.
pub fn empty_contributions() -> Vec<u8> {
    vec![0u8; 68]
}

impl<E: PairingCurve> Zkey<E> {
    /// Wraps a proving key with an empty contributions section.
    pub fn new(proving_key: ProvingKey<E>) -> Self {
        Self {
            proving_key,
            contributions: empty_contributions(),
        }
    }

    /// Parses a `.zkey` held in memory; `file` names it in errors. Points are checked
    /// to be on the curve, and with [`Validate::Yes`] to be in the prime-order subgroup.
    pub fn from_bytes(bytes: &[u8], file: &str, validate: Validate) -> Result<Self> {
        Self::from_bytes_with(bytes, file, validate.into())
    }

    /// [`Self::from_bytes`] with an explicit [`PointCheck`] level.
    pub fn from_bytes_with(bytes: &[u8], file: &str, validate: PointCheck) -> Result<Self> {
        Self::from_bytes_checking(bytes, file, validate, validate)
    }

    /// [`Self::from_bytes`] with [`Validate::Yes`] for the header's and IC's points but
    /// the five query sections checked on the curve only: the caller completes the check
    /// with [`check_query_subgroups`] (the CLI runs it beside the proof, and writes the
    /// proof only once it has passed).
    pub fn from_bytes_deferring_subgroups(bytes: &[u8], file: &str) -> Result<Self> {
        Self::from_bytes_checking(bytes, file, PointCheck::Subgroup, PointCheck::OnCurve)
    }

    fn from_bytes_checking(
        bytes: &[u8],
        file: &str,
        header: PointCheck,
        validate: PointCheck,
    ) -> Result<Self> {
        let view = ZkeyView::<E>::parse(bytes, file, header)?;
        let ctx = Ctx::new(file);
        let g1 = |s: Section| {
            decode_points::<E::G1>(
                view.bytes(s),
                view.count(s) as u64,
                validate,
                &ctx.section(s.name()),
            )
        };
        // The coefficients' index passes are serial: they run beside the points'
        // decoding and checks, which are parallel.
        let (matrices, points) = rayon::join(
            || {
                parse_coefficients::<E>(
                    view.coefficients,
                    view.n_vars as u64,
                    view.domain_size() as u64,
                    &ctx.section("section 4 (coefficients)"),
                )
            },
            || -> Result<_> {
                let a_query = g1(Section::A)?;
                let b_g1_query = g1(Section::B1)?;
                let b_g2_query = decode_points::<E::G2>(
                    view.bytes(Section::B2),
                    view.n_vars as u64,
                    validate,
                    &ctx.section(Section::B2.name()),
                )?;
                Ok((
                    a_query,
                    b_g1_query,
                    b_g2_query,
                    g1(Section::C)?,
                    g1(Section::H)?,
                ))
            },
        );
        let (a_matrix, b_matrix) = matrices?;
        let (a_query, b_g1_query, b_g2_query, c_query, h_query) = points?;
        let proving_key = ProvingKey {
            vk: view.vk,
            beta_g1: view.beta_g1,
            delta_g1: view.delta_g1,
            log_domain: view.log_domain,
            omega_2n: view.omega_2n,
            a_query,
            b_g1_query,
            b_g2_query,
            c_query,
            h_query,
            a_matrix,
            b_matrix,
        };
        proving_key.check_shape().map_err(|e| ctx.invalid(e))?;
        Ok(Self {
            proving_key,
            contributions: view.contributions.to_vec(),
        })
    }

    /// Reads a `.zkey` file.
    pub fn open(path: impl AsRef<Path>, validate: Validate) -> Result<Self> {
        let path = path.as_ref();
        Self::from_bytes(&read_file(path)?, &path.display().to_string(), validate)
    }

    /// Serializes in snarkjs' layout (sections in order 1–10, as `zkey contribute`
    /// writes them). Fails if the key's lengths disagree with each other.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut w = BinWriter::new(MAGIC, 1);
        write_sections(&self.proving_key, &self.contributions, &mut w)?;
        Ok(w.finish())
    }

    /// Writes a `.zkey` file a section at a time (the memory of the largest section,
    /// not of the file).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        save_key(&self.proving_key, &self.contributions, path.as_ref())
    }
}

/// The query sections of a zkey, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    A,
    B1,
    B2,
    C,
    H,
}

impl Section {
    fn id(self) -> u32 {
        match self {
            Section::A => 5,
            Section::B1 => 6,
            Section::B2 => 7,
            Section::C => 8,
            Section::H => 9,
        }
    }

    /// How errors name it.
    pub fn name(self) -> &'static str {
        match self {
            Section::A => "section 5 (A)",
            Section::B1 => "section 6 (B1)",
            Section::B2 => "section 7 (B2)",
            Section::C => "section 8 (C)",
            Section::H => "section 9 (H)",
        }
    }
}

/// A zkey with its header, verification key and IC decoded and checked, and its large
/// sections (coefficients, queries) left as bytes of the file — for a prover that reads
/// them a chunk at a time ([`crate::bounded`]), and for [`Zkey::from_bytes_with`],
/// which decodes them whole. Every section's length has been checked against its count.
pub struct ZkeyView<'a, E: PairingCurve> {
    pub file: String,
    pub vk: VerifyingKey<E>,
    pub beta_g1: crate::G1<E>,
    pub delta_g1: crate::G1<E>,
    pub log_domain: u32,
    pub omega_2n: Fr<E>,
    pub n_vars: usize,
    pub n_public: usize,
    /// Section 4, as stored.
    pub coefficients: &'a [u8],
    queries: [&'a [u8]; 5],
    contributions: &'a [u8],
}

impl<'a, E: PairingCurve> ZkeyView<'a, E> {
    /// Parses everything but the coefficients and the queries; points of the header
    /// and IC are checked to `validate`'s level.
    pub fn parse(bytes: &'a [u8], file: &str, validate: PointCheck) -> Result<Self> {
        let bin = BinFile::parse(bytes, MAGIC, file)?;
        bin.table.check_version(file, &[1])?;
        let ctx = Ctx::new(file);

        // Section 1: protocol.
        let c1 = ctx.section("section 1 (protocol)");
        let mut cur = Cursor::new(bin.require(1)?, c1);
        let protocol = cur.u32()?;
        cur.finish()?;
        if ZkeyProtocol::from_id(protocol) != Some(ZkeyProtocol::Groth16) {
            let name = ZkeyProtocol::from_id(protocol).map_or("an unknown protocol", |p| p.name());
            return Err(c1.err(ErrorKind::Unsupported(format!(
                "protocol {protocol} ({name}); this reader takes Groth16 (1) keys"
            ))));
        }

        // Section 2: Groth16 header.
        let c2 = ctx.section("section 2 (Groth16 header)");
        let mut cur = Cursor::new(bin.require(2)?, c2);
        let curve = E::ID;
        let q_bytes = point_len::<E::G1>() / 2;
        {
            // The base-field prime first: name the curve when it is the wrong one.
            let n8q = cur.u32()?;
            let q = BigUint::from_bytes_le(cur.take(n8q as u64)?);
            if q != curve.base_modulus() {
                return Err(c2.err(ErrorKind::WrongCurve {
                    found: describe_prime(&q),
                    expected: curve.title().to_owned(),
                }));
            }
            if n8q as usize != q_bytes {
                return Err(c2.invalid(format!("n8q is {n8q}, expected {q_bytes}")));
            }
        }
        read_prime(&mut cur, &Fr::<E>::modulus(), Fr::<E>::BYTES)?;
        let n_vars = cur.u32()? as u64;
        let n_public = cur.u32()? as u64;
        let domain_size = cur.u32()? as u64;
        if !domain_size.is_power_of_two() {
            return Err(c2.invalid(format!("domain size {domain_size} is not a power of two")));
        }
        let log_domain = domain_size.trailing_zeros();
        if log_domain > Fr::<E>::TWO_ADICITY {
            return Err(c2.invalid(format!(
                "domain size 2^{log_domain} exceeds the field's 2^{}",
                Fr::<E>::TWO_ADICITY
            )));
        }
        if n_public + 1 > n_vars {
            return Err(c2.invalid(format!(
                "{n_public} public signals do not fit in {n_vars} variables"
            )));
        }
        let s1 = point_len::<E::G1>() as u64;
        let s2 = point_len::<E::G2>() as u64;
        let mut g1 = |what: &str| -> Result<_> {
            let b = cur.take(s1)?;
            decode_point::<E::G1>(b, validate, &c2)
                .map_err(|e| e.in_section(format!("section 2 ({what})")))
        };
        let alpha_g1 = g1("alpha1")?;
        let beta_g1 = g1("beta1")?;
        let mut g2 = |what: &str| -> Result<_> {
            let b = cur.take(s2)?;
            decode_point::<E::G2>(b, validate, &c2)
                .map_err(|e| e.in_section(format!("section 2 ({what})")))
        };
        let beta_g2 = g2("beta2")?;
        let gamma_g2 = g2("gamma2")?;
        let b = cur.take(s1)?;
        let delta_g1 = decode_point::<E::G1>(b, validate, &c2)
            .map_err(|e| e.in_section("section 2 (delta1)"))?;
        let b = cur.take(s2)?;
        let delta_g2 = decode_point::<E::G2>(b, validate, &c2)
            .map_err(|e| e.in_section("section 2 (delta2)"))?;
        cur.finish()?;

        // Every point section's size against its count, before anything is allocated
        // for the counts (the coefficient matrices get `domainSize` rows).
        let n_private = n_vars - n_public - 1;
        for (id, name, count, size) in [
            (3, "section 3 (IC)", n_public + 1, s1),
            (5, "section 5 (A)", n_vars, s1),
            (6, "section 6 (B1)", n_vars, s1),
            (7, "section 7 (B2)", n_vars, s2),
            (8, "section 8 (C)", n_private, s1),
            (9, "section 9 (H)", domain_size, s1),
        ] {
            let got = bin.require(id)?.len() as u64;
            if got != count * size {
                return Err(ctx.section(name).invalid(format!(
                    "section is {got} bytes, expected {count} points of {size} bytes = {}",
                    count * size
                )));
            }
        }
        let ic = decode_points::<E::G1>(
            bin.require(3)?,
            n_public + 1,
            validate,
            &ctx.section("section 3 (IC)"),
        )?;
        let coefficients = bin.require(4)?;
        let contributions = bin.require(10)?;
        check_contributions(contributions, &ctx.section("section 10 (contributions)"))?;

        // snarkjs builds every key on its own roots of unity.
        let omega_2n = snarkjs::root_of_unity(log_domain + 1).ok_or_else(|| {
            c2.invalid(format!(
                "domain size 2^{log_domain} leaves no room for the H query"
            ))
        })?;
        let section = |s: Section| bin.require(s.id());
        Ok(Self {
            file: file.to_owned(),
            vk: VerifyingKey {
                alpha_g1,
                beta_g2,
                gamma_g2,
                delta_g2,
                ic,
            },
            beta_g1,
            delta_g1,
            log_domain,
            omega_2n,
            n_vars: usize::try_from(n_vars).map_err(|_| c2.invalid("too many variables"))?,
            n_public: n_public as usize,
            coefficients,
            queries: [
                section(Section::A)?,
                section(Section::B1)?,
                section(Section::B2)?,
                section(Section::C)?,
                section(Section::H)?,
            ],
            contributions,
        })
    }

    /// `2^log_domain`, the number of constraint rows (and of H query points).
    pub fn domain_size(&self) -> usize {
        1 << self.log_domain
    }

    /// A query section's bytes.
    pub fn bytes(&self, s: Section) -> &'a [u8] {
        self.queries[s.id() as usize - 5]
    }

    /// Bytes [`Zkey::from_bytes_with`] and [`crate::prove_with`] hold at their peak
    /// beside the key's own bytes: the decoded queries, the A and B matrices, the
    /// witness and the quotient's vectors (an estimate within a few percent).
    pub fn eager_bytes(&self) -> u64 {
        let g1 = size_of::<fastzk_curve::Affine<E::G1>>() as u64;
        let g2 = size_of::<fastzk_curve::Affine<E::G2>>() as u64;
        let fr = size_of::<Fr<E>>() as u64;
        let queries: u64 = [Section::A, Section::B1, Section::C, Section::H]
            .iter()
            .map(|s| self.count(*s) as u64 * g1)
            .sum::<u64>()
            + self.n_vars as u64 * g2;
        let entries = (self.coefficients.len() as u64).saturating_sub(4) / (12 + fr);
        // Values and columns, plus the parser's pass over the values.
        let matrices = entries * (2 * fr + 4) + 2 * (self.domain_size() as u64 + 1) * 8;
        queries + matrices + self.bounded_floor_bytes()
    }

    /// Bytes the bounded prover ([`crate::bounded`]) holds whatever its chunks: the
    /// witness and the three evaluation vectors of the quotient.
    pub fn bounded_floor_bytes(&self) -> u64 {
        let fr = size_of::<Fr<E>>() as u64;
        (self.n_vars as u64 + 3 * self.domain_size() as u64) * fr
    }

    /// A query section's number of points.
    pub fn count(&self, s: Section) -> usize {
        match s {
            Section::A | Section::B1 | Section::B2 => self.n_vars,
            Section::C => self.n_vars - self.n_public - 1,
            Section::H => self.domain_size(),
        }
    }
}

/// What snarkjs needs of a key it is given: consistent lengths, its roots of unity.
fn check_writable<E: PairingCurve>(pk: &ProvingKey<E>) -> Result<()> {
    let invalid = |e: String| FormatError::new("<zkey being written>", ErrorKind::Invalid(e));
    pk.check_shape().map_err(invalid)?;
    if snarkjs::root_of_unity(pk.log_domain + 1) != Some(pk.omega_2n) {
        return Err(invalid(
            "the key is not on snarkjs' roots of unity, so snarkjs could not use it".into(),
        ));
    }
    Ok(())
}

/// The sections in order, into `w`.
fn write_sections<E: PairingCurve>(
    pk: &ProvingKey<E>,
    contributions: &[u8],
    w: &mut BinWriter,
) -> Result<()> {
    check_writable(pk)?;
    let r2 = coefficient_factor::<E>();
    write_head(
        w,
        &pk.vk,
        [&pk.beta_g1, &pk.delta_g1],
        [pk.n_vars(), pk.n_public(), pk.domain_size()],
    );
    w.section(4, |b| {
        let (a, m) = (&pk.a_matrix, &pk.b_matrix);
        b.extend_from_slice(&((a.nnz() + m.nnz()) as u32).to_le_bytes());
        // Row by row, A's entries before B's: snarkjs' own order.
        for row in 0..a.n_rows() {
            for (which, mat) in [(0u32, a), (1u32, m)] {
                let (cols, vals) = mat.row(row);
                for (c, v) in cols.iter().zip(vals) {
                    b.extend_from_slice(&which.to_le_bytes());
                    b.extend_from_slice(&(row as u32).to_le_bytes());
                    b.extend_from_slice(&c.to_le_bytes());
                    b.extend_from_slice(&(*v * r2).to_le_bytes());
                }
            }
        }
    });
    w.section(5, |b| encode_points(b, &pk.a_query));
    w.section(6, |b| encode_points(b, &pk.b_g1_query));
    w.section(7, |b| encode_points(b, &pk.b_g2_query));
    w.section(8, |b| encode_points(b, &pk.c_query));
    w.section(9, |b| encode_points(b, &pk.h_query));
    w.raw_section(10, contributions);
    Ok(())
}

/// Section 4 stores `coef · R²` (see the module docs).
pub(crate) fn coefficient_factor<E: PairingCurve>() -> Fr<E> {
    let r = montgomery_radix::<Fr<E>>();
    r * r
}

/// Sections 1–3: the protocol, the header with `[n_vars, n_public, domain_size]` and
/// the key's single points (`[β₁, δ₁]` beside the verifying key's), and IC.
pub(crate) fn write_head<E: PairingCurve>(
    w: &mut BinWriter,
    vk: &VerifyingKey<E>,
    [beta_g1, delta_g1]: [&crate::G1<E>; 2],
    counts: [usize; 3],
) {
    let q_bytes = point_len::<E::G1>() / 2;
    w.section(1, |b| {
        b.extend_from_slice(&ZkeyProtocol::Groth16.id().to_le_bytes())
    });
    w.section(2, |b| {
        write_prime(b, &E::ID.base_modulus(), q_bytes);
        write_prime(b, &Fr::<E>::modulus(), Fr::<E>::BYTES);
        for v in counts {
            b.extend_from_slice(&(v as u32).to_le_bytes());
        }
        encode_point(b, &vk.alpha_g1);
        encode_point(b, beta_g1);
        encode_point(b, &vk.beta_g2);
        encode_point(b, &vk.gamma_g2);
        encode_point(b, delta_g1);
        encode_point(b, &vk.delta_g2);
    });
    w.section(3, |b| encode_points(b, &vk.ic));
}

/// [`Zkey::save`] without owning the key.
fn save_key<E: PairingCurve>(pk: &ProvingKey<E>, contributions: &[u8], path: &Path) -> Result<()> {
    let named = |mut e: FormatError| {
        e.file = path.display().to_string();
        e
    };
    // Checked before the file is created: a key that cannot be written leaves none.
    check_writable(pk).map_err(named)?;
    let mut w = BinWriter::create(path, MAGIC, 1)?;
    write_sections(pk, contributions, &mut w).map_err(named)?;
    w.finish_file()
}

/// Reads the proving key of a `.zkey` file.
pub fn read_zkey<E: PairingCurve>(
    path: impl AsRef<Path>,
    validate: Validate,
) -> Result<ProvingKey<E>> {
    Zkey::open(path, validate).map(|z| z.proving_key)
}

/// The subgroup test of a key's five query sections, for a key read with
/// [`Zkey::from_bytes_deferring_subgroups`]; `file` names it in the error, which is
/// the one [`Zkey::from_bytes`] would have given (section and lowest failing index).
pub fn check_query_subgroups<E: PairingCurve>(pk: &ProvingKey<E>, file: &str) -> Result<()> {
    let ctx = Ctx::new(file);
    let g1 = |s: Section, points: &[crate::G1<E>]| check_subgroup(points, &ctx.section(s.name()));
    g1(Section::A, &pk.a_query)?;
    g1(Section::B1, &pk.b_g1_query)?;
    check_subgroup(&pk.b_g2_query, &ctx.section(Section::B2.name()))?;
    g1(Section::C, &pk.c_query)?;
    g1(Section::H, &pk.h_query)
}

/// Writes a proving key as a `.zkey` file with an empty contributions section.
pub fn write_zkey<E: PairingCurve>(path: impl AsRef<Path>, pk: &ProvingKey<E>) -> Result<()> {
    save_key(pk, &empty_contributions(), path.as_ref())
}

/// Section 10 must at least hold the hash and a count; the contributions themselves
/// are kept as bytes (provers never read them).
fn check_contributions(bytes: &[u8], ctx: &Ctx<'_>) -> Result<()> {
    let mut cur = Cursor::new(bytes, *ctx);
    cur.take(64)?;
    cur.u32()?;
    Ok(())
}

/// The A and B matrices of a key.
type Matrices<E> = (Csr<Fr<E>>, Csr<Fr<E>>);

/// Section 4's entries (`u32` matrix, constraint, signal, then the value), after
/// checking the count against the section's length.
pub(crate) fn coefficient_entries<'a, E: PairingCurve>(
    bytes: &'a [u8],
    ctx: &Ctx<'_>,
) -> Result<&'a [u8]> {
    let entry = 12 + Fr::<E>::BYTES;
    let mut cur = Cursor::new(bytes, *ctx);
    let n = cur.u32()? as u64;
    let expected = 4 + n * entry as u64;
    if bytes.len() as u64 != expected {
        return Err(ctx.invalid(format!(
            "section is {} bytes, but {n} coefficients of {entry} bytes need {expected}",
            bytes.len()
        )));
    }
    Ok(&bytes[4..])
}

/// An entry's matrix, constraint and signal words, unchecked.
pub(crate) fn entry_words(e: &[u8]) -> (u32, u32, u32) {
    let word = |k: usize| u32::from_le_bytes(e[4 * k..4 * k + 4].try_into().expect("4 bytes"));
    (word(0), word(1), word(2))
}

/// Entry `at`'s matrix (0 = A, 1 = B), constraint and signal, each checked against the
/// key's shape; errors name the entry.
pub(crate) fn coefficient_indices(
    e: &[u8],
    at: u64,
    n_vars: u64,
    domain_size: u64,
    ctx: &Ctx<'_>,
) -> Result<(usize, usize, usize)> {
    let (matrix, row, col) = entry_words(e);
    let bad = |msg: String| ctx.invalid_at(at, msg);
    if matrix > 1 {
        return Err(bad(format!("matrix {matrix} is neither A (0) nor B (1)")));
    }
    if row as u64 >= domain_size {
        return Err(bad(format!(
            "constraint {row} is out of range (domain size {domain_size})"
        )));
    }
    if col as u64 >= n_vars {
        return Err(bad(format!(
            "signal {col} is out of range ({n_vars} variables)"
        )));
    }
    Ok((matrix as usize, row as usize, col as usize))
}

/// Section 4 into the A and B matrices with true coefficient values, `domain_size`
/// rows and `n_vars` columns.
fn parse_coefficients<E: PairingCurve>(
    bytes: &[u8],
    n_vars: u64,
    domain_size: u64,
    ctx: &Ctx<'_>,
) -> Result<Matrices<E>> {
    let entry = 12 + Fr::<E>::BYTES;
    let body = coefficient_entries::<E>(bytes, ctx)?;
    // The bytes of `coef·R² mod r` read as Montgomery limbs are the element `coef·R`;
    // one product by `R⁻¹` gives `coef`.
    let r_inv = montgomery_radix::<Fr<E>>()
        .inverse()
        .expect("R is invertible");
    // Pass 1: check every index and count each matrix's rows.
    let mut counts = [
        vec![0usize; domain_size as usize + 1],
        vec![0usize; domain_size as usize + 1],
    ];
    for (i, e) in body.chunks_exact(entry).enumerate() {
        let (matrix, row, _) = coefficient_indices(e, i as u64, n_vars, domain_size, ctx)?;
        counts[matrix][row + 1] += 1;
    }
    // Pass 2: values, in parallel (range-checked: `≥ r` is an error).
    let values: Vec<Fr<E>> = body
        .par_chunks_exact(entry)
        .enumerate()
        .map(|(i, e)| {
            let v: Fr<E> = read_mont(&e[12..], ctx).map_err(|e| e.at(i as u64))?;
            Ok(v * r_inv)
        })
        .collect::<Result<_>>()?;
    // Pass 3: scatter into CSR order, keeping the file's order within a row.
    let mut mats = Vec::with_capacity(2);
    for (m, mut ptr) in counts.into_iter().enumerate() {
        for r in 0..domain_size as usize {
            ptr[r + 1] += ptr[r];
        }
        let nnz = ptr[domain_size as usize];
        let mut next = ptr.clone();
        let mut cols = vec![0u32; nnz];
        let mut vals = vec![Fr::<E>::ZERO; nnz];
        for (e, v) in body.chunks_exact(entry).zip(&values) {
            let (matrix, row, col) = entry_words(e);
            if matrix as usize == m {
                let at = &mut next[row as usize];
                cols[*at] = col;
                vals[*at] = *v;
                *at += 1;
            }
        }
        mats.push(
            Csr::from_parts(n_vars as usize, ptr, cols, vals)
                .map_err(|e| ctx.invalid(e.to_string()))?,
        );
    }
    let b = mats.pop().expect("two matrices");
    let a = mats.pop().expect("two matrices");
    Ok((a, b))
}
