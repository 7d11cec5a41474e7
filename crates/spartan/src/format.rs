//! The proof file: a versioned binary format, little-endian, read defensively (every
//! count checked against the bytes left before anything is allocated, every field
//! element canonical, the header's parameters checked against what the proof holds).
//!
//! ```text
//! "fzsp"  u32 version (2)
//! u8 field (1 Goldilocks, 2 BN254 Fr)   u8 extension degree   u8 hash (1 SHA3-256, 2 BLAKE3)
//! u8 hiding commitment (1; 0 for a commitment without hiding)
//! u8 log_rows   u8 log_blowup   u32 queries   u32 proximity reps
//! u32 witness variables   [32] root (witness and mask)
//! E outer mask sum
//! sumcheck (outer):  u32 rounds, each: u32 values  E…
//! E Az'(r_x)  E Bz'(r_x)  E Cz'(r_x)  E p(r_x)
//! E inner mask sum
//! sumcheck (inner):  u32 rounds, each: u32 values  E…
//! E (W + ρ'·R)(r_y')
//! opening:  u32 combinations  u32 length  E…    u32 length  E… (u)
//!           u32 columns  u32 rows  F…            u32 salts  [16]…
//!           u32 siblings  [32]…
//! ```
//!
//! `E` is written as its `degree` base-field coordinates, each `F::BYTES` long.

use fastzk_field::{bn254, Goldilocks, NttField, PrimeField};
use fastzk_multilinear::sumcheck::SumcheckProof;
use fastzk_multilinear::HashKind;
use fastzk_pcs::{Commitment, EvalProof, ExtensionOf, MultiProof, OrionParams};

use crate::{Proof, SpartanParams};

const MAGIC: &[u8; 4] = b"fzsp";
/// More sumcheck rounds than any instance has (2^64 constraints).
const MAX_ROUNDS: usize = 64;
pub const VERSION: u32 = 2;

/// A proof file that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {what}")]
pub struct ProofFormatError {
    pub file: String,
    pub what: String,
}

/// The base fields a proof file can name.
pub trait ProofField: NttField {
    const ID: u8;
    const NAME: &'static str;
}

impl ProofField for Goldilocks {
    const ID: u8 = 1;
    const NAME: &'static str = "Goldilocks";
}

impl ProofField for bn254::Fr {
    const ID: u8 = 2;
    const NAME: &'static str = "BN254 Fr";
}

/// The base field a proof file names, without reading the rest.
pub fn sniff_field(bytes: &[u8]) -> Option<u8> {
    (bytes.len() > 8 && &bytes[..4] == MAGIC).then(|| bytes[8])
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: usize) {
        self.0.extend_from_slice(&(v as u32).to_le_bytes());
    }
    fn base<F: PrimeField>(&mut self, x: &F) {
        x.extend_le_bytes(&mut self.0);
    }
    fn ext<F: NttField, E: ExtensionOf<F>>(&mut self, x: &E) {
        for i in 0..E::DEGREE {
            self.base(&x.coeff(i));
        }
    }
    fn exts<F: NttField, E: ExtensionOf<F>>(&mut self, xs: &[E]) {
        xs.iter().for_each(|x| self.ext::<F, E>(x));
    }
    fn sumcheck<F: NttField, E: ExtensionOf<F>>(&mut self, p: &SumcheckProof<E>) {
        self.u32(p.rounds.len());
        for r in &p.rounds {
            self.u32(r.len());
            self.exts::<F, E>(r);
        }
    }
}

/// The proof file's bytes.
pub fn write_proof<F: ProofField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    proof: &Proof<F, E>,
) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(proof.size_bytes() + 64));
    w.0.extend_from_slice(MAGIC);
    w.u32(VERSION as usize);
    w.u8(F::ID);
    w.u8(E::DEGREE as u8);
    w.u8(params.pcs.hash.id());
    w.u8(params.pcs.hiding as u8);
    w.u8(params.pcs.log_rows as u8);
    w.u8(params.pcs.log_blowup as u8);
    w.u32(params.pcs.queries);
    w.u32(params.pcs.proximity_reps);
    w.u32(proof.witness.num_vars);
    w.0.extend_from_slice(&proof.witness.root);
    w.ext::<F, E>(&proof.outer_mask_sum);
    w.sumcheck::<F, E>(&proof.outer);
    w.exts::<F, E>(&proof.claims);
    w.ext::<F, E>(&proof.inner_mask_sum);
    w.sumcheck::<F, E>(&proof.inner);
    w.ext::<F, E>(&proof.witness_eval);
    let o = &proof.opening;
    w.u32(o.combos.len());
    w.u32(o.combos.first().map_or(0, Vec::len));
    o.combos.iter().for_each(|c| w.exts::<F, E>(c));
    w.u32(o.row_eval.len());
    w.exts::<F, E>(&o.row_eval);
    w.u32(o.columns.len());
    w.u32(o.columns.first().map_or(0, Vec::len));
    o.columns.iter().flatten().for_each(|x| w.base(x));
    w.u32(o.salts.len());
    o.salts.iter().for_each(|s| w.0.extend_from_slice(s));
    w.u32(o.merkle.siblings.len());
    o.merkle
        .siblings
        .iter()
        .for_each(|s| w.0.extend_from_slice(s));
    w.0
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    file: &'a str,
}

impl<'a> Reader<'a> {
    fn err<T>(&self, what: impl Into<String>) -> Result<T, ProofFormatError> {
        Err(ProofFormatError {
            file: self.file.to_owned(),
            what: format!("at byte {}: {}", self.pos, what.into()),
        })
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ProofFormatError> {
        if self.bytes.len() - self.pos < n {
            return self.err(format!(
                "{what}: needs {n} bytes, {} left",
                self.bytes.len() - self.pos
            ));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self, what: &str) -> Result<u8, ProofFormatError> {
        Ok(self.take(1, what)?[0])
    }
    fn u32(&mut self, what: &str) -> Result<usize, ProofFormatError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes(b.try_into().expect("four bytes")) as usize)
    }
    /// A count of items of `size` bytes each, checked against what is left.
    fn count(&mut self, size: usize, what: &str) -> Result<usize, ProofFormatError> {
        let n = self.u32(what)?;
        let left = self.bytes.len() - self.pos;
        if n.checked_mul(size).is_none_or(|b| b > left) {
            return self.err(format!(
                "{what}: {n} items of {size} bytes, {left} bytes left"
            ));
        }
        Ok(n)
    }
    fn base<F: PrimeField>(&mut self, what: &str) -> Result<F, ProofFormatError> {
        let b = self.take(F::BYTES, what)?;
        match F::from_le_bytes(b) {
            Ok(x) => Ok(x),
            Err(_) => self.err(format!("{what}: not a canonical field element")),
        }
    }
    fn ext<F: NttField, E: ExtensionOf<F>>(&mut self, what: &str) -> Result<E, ProofFormatError> {
        let c = (0..E::DEGREE)
            .map(|_| self.base::<F>(what))
            .collect::<Result<Vec<F>, _>>()?;
        Ok(E::from_coeffs(&c))
    }
    fn exts<F: NttField, E: ExtensionOf<F>>(
        &mut self,
        n: usize,
        what: &str,
    ) -> Result<Vec<E>, ProofFormatError> {
        (0..n).map(|_| self.ext::<F, E>(what)).collect()
    }
    /// `rows × len` extension elements, the two counts read first; at most `max_rows`
    /// rows (empty rows take no bytes, so the file cannot bound their number).
    fn matrix<F: NttField, E: ExtensionOf<F>>(
        &mut self,
        max_rows: usize,
        what: &str,
    ) -> Result<Vec<Vec<E>>, ProofFormatError> {
        let rows = self.u32(what)?;
        if rows > max_rows {
            return self.err(format!("{what}: {rows} rows, at most {max_rows}"));
        }
        let len = self.u32(what)?;
        let size = E::DEGREE * F::BYTES;
        if rows
            .checked_mul(len)
            .and_then(|n| n.checked_mul(size))
            .is_none_or(|b| b > self.bytes.len() - self.pos)
        {
            return self.err(format!(
                "{what}: {rows} × {len} elements do not fit in the file"
            ));
        }
        (0..rows).map(|_| self.exts::<F, E>(len, what)).collect()
    }
    /// A sumcheck's rounds, each with its own length.
    fn sumcheck<F: NttField, E: ExtensionOf<F>>(
        &mut self,
        what: &str,
    ) -> Result<SumcheckProof<E>, ProofFormatError> {
        let rounds = self.u32(what)?;
        if rounds > MAX_ROUNDS {
            return self.err(format!("{what}: {rounds} rounds, at most {MAX_ROUNDS}"));
        }
        let rounds = (0..rounds)
            .map(|_| {
                let n = self.count(E::DEGREE * F::BYTES, what)?;
                self.exts::<F, E>(n, what)
            })
            .collect::<Result<_, _>>()?;
        Ok(SumcheckProof { rounds })
    }
}

/// Reads a proof file for base field `F` and challenge field `E`; returns the
/// parameters its header names with the proof.
pub fn read_proof<F: ProofField, E: ExtensionOf<F>>(
    bytes: &[u8],
    file: &str,
) -> Result<(SpartanParams, Proof<F, E>), ProofFormatError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        file,
    };
    if r.take(4, "magic")? != MAGIC {
        return r.err("not a fastzk Spartan proof (magic is not \"fzsp\")");
    }
    let version = r.u32("version")?;
    if version != VERSION as usize {
        return r.err(format!(
            "version {version}; this fastzk reads version {VERSION}"
        ));
    }
    let field = r.u8("field")?;
    if field != F::ID {
        return r.err(format!(
            "field id {field}, expected {} ({})",
            F::ID,
            F::NAME
        ));
    }
    let degree = r.u8("extension degree")?;
    if degree as usize != E::DEGREE {
        return r.err(format!(
            "challenges of degree {degree}, expected {}",
            E::DEGREE
        ));
    }
    let hash_id = r.u8("hash")?;
    let Some(hash) = HashKind::from_id(hash_id) else {
        return r.err(format!("unknown hash id {hash_id}"));
    };
    let hiding = match r.u8("hiding flag")? {
        0 => false,
        1 => true,
        other => return r.err(format!("hiding flag {other}, expected 0 or 1")),
    };
    let log_rows = r.u8("log rows")? as u32;
    let log_blowup = r.u8("log blowup")? as u32;
    if !(1..=8).contains(&log_blowup) || log_rows > 16 {
        return r.err(format!(
            "log rows {log_rows} or log blowup {log_blowup} out of range"
        ));
    }
    let queries = r.u32("queries")?;
    let proximity_reps = r.u32("proximity repetitions")?;
    if queries == 0 || queries > 1 << 16 || proximity_reps == 0 || proximity_reps > 64 {
        return r.err(format!(
            "{queries} queries or {proximity_reps} repetitions out of range"
        ));
    }
    let params = SpartanParams {
        pcs: OrionParams {
            log_rows,
            log_blowup,
            queries,
            proximity_reps,
            hash,
            hiding,
        },
    };
    let num_vars = r.u32("witness variables")?;
    if num_vars > 40 {
        return r.err(format!("a witness of 2^{num_vars} values"));
    }
    let root: [u8; 32] = r.take(32, "witness root")?.try_into().expect("32 bytes");
    let outer_mask_sum = r.ext::<F, E>("outer mask sum")?;
    let outer = r.sumcheck::<F, E>("outer sumcheck")?;
    let c = r.exts::<F, E>(4, "claims at r_x")?;
    let claims = [c[0], c[1], c[2], c[3]];
    let inner_mask_sum = r.ext::<F, E>("inner mask sum")?;
    let inner = r.sumcheck::<F, E>("inner sumcheck")?;
    let witness_eval = r.ext::<F, E>("W(r_y)")?;
    let combos = r.matrix::<F, E>(proximity_reps, "proximity combinations")?;
    let n = r.count(E::DEGREE * F::BYTES, "row evaluation")?;
    let row_eval = r.exts::<F, E>(n, "row evaluation")?;
    let n_cols = r.u32("opened columns")?;
    if n_cols > queries {
        return r.err(format!("{n_cols} opened columns for {queries} queries"));
    }
    let rows = r.u32("column height")?;
    if n_cols
        .checked_mul(rows)
        .and_then(|k| k.checked_mul(F::BYTES))
        .is_none_or(|b| b > bytes.len() - r.pos)
    {
        return r.err(format!("{n_cols} columns of {rows} do not fit in the file"));
    }
    let columns = (0..n_cols)
        .map(|_| (0..rows).map(|_| r.base::<F>("opened column")).collect())
        .collect::<Result<Vec<Vec<F>>, _>>()?;
    let n_salts = r.count(16, "salts")?;
    if n_salts > n_cols {
        return r.err(format!("{n_salts} salts for {n_cols} columns"));
    }
    let salts = (0..n_salts)
        .map(|_| r.take(16, "salt").map(|s| s.try_into().expect("16 bytes")))
        .collect::<Result<Vec<[u8; 16]>, _>>()?;
    let n_sib = r.count(32, "Merkle siblings")?;
    let siblings = (0..n_sib)
        .map(|_| {
            r.take(32, "Merkle sibling")
                .map(|s| s.try_into().expect("32 bytes"))
        })
        .collect::<Result<Vec<[u8; 32]>, _>>()?;
    if r.pos != bytes.len() {
        return r.err(format!("{} bytes after the proof", bytes.len() - r.pos));
    }
    Ok((
        params,
        Proof {
            witness: Commitment { root, num_vars },
            outer_mask_sum,
            outer,
            claims,
            inner_mask_sum,
            inner,
            witness_eval,
            opening: EvalProof {
                combos,
                row_eval,
                columns,
                salts,
                merkle: MultiProof { siblings },
            },
        },
    ))
}
