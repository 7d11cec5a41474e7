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
//!
//! A **SNARK-mode proof** has the magic `"fzss"` and the same header and body, then
//! Spark's proof:
//!
//! ```text
//! E value   [32] lookups root   u32 lookups variables
//! E×4 entry products    products proof      E×4 memory products    products proof
//! u32 n  E… (leaf values)   E×2 (final values)
//! sumcheck (evaluation)     u32 n  E… (entry values)
//! opening ×3 (entries, lookups, memory; as above)
//! products proof:  u32 products  E×2 each (top)   u32 layers, each: sumcheck, E×2 per product
//! ```
//!
//! The **SNARK key** (`.skey`) holds the verifying key, then the circuit it was made from
//! (the prover rebuilds Spark's tables and commitments from it and checks the roots;
//! the verifier stops after the verifying key and never reads the circuit):
//!
//! ```text
//! "fzsk"  u32 version (1)   u8 field   u8 extension degree   u8 hash   u8 hiding
//! u8 log_rows   u8 log_blowup   u32 queries   u32 proximity reps
//! u64 constraints   u64 variables   u64 public inputs
//! u8 log_n   u8 log_mem   u8 log_rows   u8 log_cols   [32] entries root   [32] memory root
//! u64 length   the circuit's .r1cs bytes
//! ```

use fastzk_field::{bn254, Goldilocks, NttField, PrimeField};
use fastzk_multilinear::sumcheck::SumcheckProof;
use fastzk_multilinear::{HashKind, ProductProof};
use fastzk_pcs::{Commitment, EvalProof, ExtensionOf, MultiProof, OrionParams};

use crate::spark::{SparkCommitment, SparkProof, SparkShape};
use crate::{Proof, SnarkProof, SpartanParams, VerifyingKey};

const MAGIC: &[u8; 4] = b"fzsp";
const SNARK_MAGIC: &[u8; 4] = b"fzss";
const KEY_MAGIC: &[u8; 4] = b"fzsk";
pub const KEY_VERSION: u32 = 1;
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

/// The base field a proof or key file names, without reading the rest.
pub fn sniff_field(bytes: &[u8]) -> Option<u8> {
    (bytes.len() > 8
        && [MAGIC, SNARK_MAGIC, KEY_MAGIC]
            .iter()
            .any(|m| &bytes[..4] == *m))
    .then(|| bytes[8])
}

/// Whether the bytes are a SNARK key (`.skey`).
pub fn is_key(bytes: &[u8]) -> bool {
    bytes.starts_with(KEY_MAGIC)
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
    fn opening<F: NttField, E: ExtensionOf<F>>(&mut self, o: &EvalProof<F, E>) {
        self.u32(o.combos.len());
        self.u32(o.combos.first().map_or(0, Vec::len));
        o.combos.iter().for_each(|c| self.exts::<F, E>(c));
        self.u32(o.row_eval.len());
        self.exts::<F, E>(&o.row_eval);
        self.u32(o.columns.len());
        self.u32(o.columns.first().map_or(0, Vec::len));
        o.columns.iter().flatten().for_each(|x| self.base(x));
        self.u32(o.salts.len());
        o.salts.iter().for_each(|s| self.0.extend_from_slice(s));
        self.u32(o.merkle.siblings.len());
        o.merkle
            .siblings
            .iter()
            .for_each(|s| self.0.extend_from_slice(s));
    }
    fn products<F: NttField, E: ExtensionOf<F>>(&mut self, p: &ProductProof<E>) {
        self.u32(p.top.len());
        p.top.iter().for_each(|t| self.exts::<F, E>(t));
        self.u32(p.layers.len());
        for (sc, ends) in &p.layers {
            self.sumcheck::<F, E>(sc);
            self.u32(ends.len());
            ends.iter().for_each(|t| self.exts::<F, E>(t));
        }
    }
    /// The header: magic, version, field, degree, parameters.
    fn header<F: ProofField, E: ExtensionOf<F>>(
        &mut self,
        magic: &[u8; 4],
        version: u32,
        params: &SpartanParams,
    ) {
        self.0.extend_from_slice(magic);
        self.u32(version as usize);
        self.u8(F::ID);
        self.u8(E::DEGREE as u8);
        self.u8(params.pcs.hash.id());
        self.u8(params.pcs.hiding as u8);
        self.u8(params.pcs.log_rows as u8);
        self.u8(params.pcs.log_blowup as u8);
        self.u32(params.pcs.queries);
        self.u32(params.pcs.proximity_reps);
    }
    fn body<F: ProofField, E: ExtensionOf<F>>(&mut self, proof: &Proof<F, E>) {
        self.u32(proof.witness.num_vars);
        self.0.extend_from_slice(&proof.witness.root);
        self.ext::<F, E>(&proof.outer_mask_sum);
        self.sumcheck::<F, E>(&proof.outer);
        self.exts::<F, E>(&proof.claims);
        self.ext::<F, E>(&proof.inner_mask_sum);
        self.sumcheck::<F, E>(&proof.inner);
        self.ext::<F, E>(&proof.witness_eval);
        self.opening(&proof.opening);
    }
}

/// The proof file's bytes.
pub fn write_proof<F: ProofField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    proof: &Proof<F, E>,
) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(proof.size_bytes() + 64));
    w.header::<F, E>(MAGIC, VERSION, params);
    w.body(proof);
    w.0
}

/// A SNARK-mode proof file's bytes.
pub fn write_snark_proof<F: ProofField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    proof: &SnarkProof<F, E>,
) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(proof.size_bytes() + 256));
    w.header::<F, E>(SNARK_MAGIC, VERSION, params);
    w.body(&proof.proof);
    let s = &proof.spark;
    w.ext::<F, E>(&s.value);
    w.0.extend_from_slice(&s.lookups.root);
    w.u32(s.lookups.num_vars);
    w.exts::<F, E>(&s.entry_products);
    w.products::<F, E>(&s.entry_product_proof);
    w.exts::<F, E>(&s.memory_products);
    w.products::<F, E>(&s.memory_product_proof);
    w.u32(s.leaf_values.len());
    w.exts::<F, E>(&s.leaf_values);
    w.exts::<F, E>(&s.final_values);
    w.sumcheck::<F, E>(&s.eval);
    w.u32(s.entry_values.len());
    w.exts::<F, E>(&s.entry_values);
    for o in [&s.entries_opening, &s.lookups_opening, &s.memory_opening] {
        w.opening(o);
    }
    w.0
}

/// A SNARK key file's bytes: the verifying key and the circuit's `.r1cs` bytes.
pub fn write_key<F: ProofField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    vk: &VerifyingKey,
    r1cs_file: &[u8],
) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(r1cs_file.len() + 256));
    w.header::<F, E>(KEY_MAGIC, KEY_VERSION, params);
    for x in [vk.n_constraints, vk.n_vars, vk.n_public] {
        w.0.extend_from_slice(&(x as u64).to_le_bytes());
    }
    let s = &vk.spark.shape;
    for x in [s.log_n, s.log_mem, s.log_rows, s.log_cols] {
        w.u8(x as u8);
    }
    w.0.extend_from_slice(&vk.spark.entries.root);
    w.0.extend_from_slice(&vk.spark.memory.root);
    w.0.extend_from_slice(&(r1cs_file.len() as u64).to_le_bytes());
    w.0.extend_from_slice(r1cs_file);
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

    fn root(&mut self, what: &str) -> Result<[u8; 32], ProofFormatError> {
        Ok(self.take(32, what)?.try_into().expect("32 bytes"))
    }

    fn u64(&mut self, what: &str) -> Result<u64, ProofFormatError> {
        let b = self.take(8, what)?;
        Ok(u64::from_le_bytes(b.try_into().expect("eight bytes")))
    }

    /// Magic, version, field, degree and parameters.
    fn header<F: ProofField, E: ExtensionOf<F>>(
        &mut self,
        magic: &[u8; 4],
        version: u32,
    ) -> Result<SpartanParams, ProofFormatError> {
        let kind = |m: &[u8]| match m {
            m if m == MAGIC => Some("a NIZK proof"),
            m if m == SNARK_MAGIC => {
                Some("a SNARK-mode proof (verified with the key from `setup`)")
            }
            m if m == KEY_MAGIC => Some("a SNARK key"),
            _ => None,
        };
        let found = self.take(4, "magic")?;
        if found != magic {
            let expected = kind(magic).unwrap_or("?");
            return match kind(found) {
                Some(k) => self.err(format!("{k}, where {expected} was expected")),
                None => self.err(format!(
                    "not a fastzk Spartan file ({expected} was expected)"
                )),
            };
        }
        let v = self.u32("version")?;
        if v != version as usize {
            return self.err(format!("version {v}; this fastzk reads version {version}"));
        }
        let field = self.u8("field")?;
        if field != F::ID {
            return self.err(format!(
                "field id {field}, expected {} ({})",
                F::ID,
                F::NAME
            ));
        }
        let degree = self.u8("extension degree")?;
        if degree as usize != E::DEGREE {
            return self.err(format!(
                "challenges of degree {degree}, expected {}",
                E::DEGREE
            ));
        }
        let hash_id = self.u8("hash")?;
        let Some(hash) = HashKind::from_id(hash_id) else {
            return self.err(format!("unknown hash id {hash_id}"));
        };
        let hiding = match self.u8("hiding flag")? {
            0 => false,
            1 => true,
            other => return self.err(format!("hiding flag {other}, expected 0 or 1")),
        };
        let log_rows = self.u8("log rows")? as u32;
        let log_blowup = self.u8("log blowup")? as u32;
        if !(1..=8).contains(&log_blowup) || log_rows > 16 {
            return self.err(format!(
                "log rows {log_rows} or log blowup {log_blowup} out of range"
            ));
        }
        let queries = self.u32("queries")?;
        let proximity_reps = self.u32("proximity repetitions")?;
        if queries == 0 || queries > 1 << 16 || proximity_reps == 0 || proximity_reps > 64 {
            return self.err(format!(
                "{queries} queries or {proximity_reps} repetitions out of range"
            ));
        }
        Ok(SpartanParams {
            pcs: OrionParams {
                log_rows,
                log_blowup,
                queries,
                proximity_reps,
                hash,
                hiding,
            },
        })
    }

    /// A commitment's size: `2^num_vars` values, at most `2^40`.
    fn num_vars(&mut self, what: &str) -> Result<usize, ProofFormatError> {
        let n = self.u32(what)?;
        if n > 40 {
            return self.err(format!("{what}: 2^{n} values"));
        }
        Ok(n)
    }

    fn opening<F: NttField, E: ExtensionOf<F>>(
        &mut self,
        params: &SpartanParams,
        what: &str,
    ) -> Result<EvalProof<F, E>, ProofFormatError> {
        let queries = params.pcs.queries;
        let combos = self.matrix::<F, E>(params.pcs.proximity_reps, what)?;
        let n = self.count(E::DEGREE * F::BYTES, what)?;
        let row_eval = self.exts::<F, E>(n, what)?;
        let n_cols = self.u32(what)?;
        if n_cols > queries {
            return self.err(format!(
                "{what}: {n_cols} opened columns for {queries} queries"
            ));
        }
        let rows = self.u32(what)?;
        if n_cols
            .checked_mul(rows)
            .and_then(|k| k.checked_mul(F::BYTES))
            .is_none_or(|b| b > self.bytes.len() - self.pos)
        {
            return self.err(format!(
                "{what}: {n_cols} columns of {rows} do not fit in the file"
            ));
        }
        let columns = (0..n_cols)
            .map(|_| (0..rows).map(|_| self.base::<F>(what)).collect())
            .collect::<Result<Vec<Vec<F>>, _>>()?;
        let n_salts = self.count(16, what)?;
        if n_salts > n_cols {
            return self.err(format!("{what}: {n_salts} salts for {n_cols} columns"));
        }
        let salts = (0..n_salts)
            .map(|_| self.take(16, what).map(|s| s.try_into().expect("16 bytes")))
            .collect::<Result<Vec<[u8; 16]>, _>>()?;
        let n_sib = self.count(32, what)?;
        let siblings = (0..n_sib)
            .map(|_| self.root(what))
            .collect::<Result<Vec<[u8; 32]>, _>>()?;
        Ok(EvalProof {
            combos,
            row_eval,
            columns,
            salts,
            merkle: MultiProof { siblings },
        })
    }

    /// Pairs of extension elements, the count read first (at most `max`).
    fn pairs<F: NttField, E: ExtensionOf<F>>(
        &mut self,
        max: usize,
        what: &str,
    ) -> Result<Vec<[E; 2]>, ProofFormatError> {
        let n = self.count(2 * E::DEGREE * F::BYTES, what)?;
        if n > max {
            return self.err(format!("{what}: {n} pairs, at most {max}"));
        }
        (0..n)
            .map(|_| Ok([self.ext::<F, E>(what)?, self.ext::<F, E>(what)?]))
            .collect()
    }

    fn products<F: NttField, E: ExtensionOf<F>>(
        &mut self,
        what: &str,
    ) -> Result<ProductProof<E>, ProofFormatError> {
        let top = self.pairs::<F, E>(4, what)?;
        let n = self.u32(what)?;
        if n > MAX_ROUNDS {
            return self.err(format!("{what}: {n} layers, at most {MAX_ROUNDS}"));
        }
        let layers = (0..n)
            .map(|_| Ok((self.sumcheck::<F, E>(what)?, self.pairs::<F, E>(4, what)?)))
            .collect::<Result<_, ProofFormatError>>()?;
        Ok(ProductProof { top, layers })
    }

    fn body<F: ProofField, E: ExtensionOf<F>>(
        &mut self,
        params: &SpartanParams,
    ) -> Result<Proof<F, E>, ProofFormatError> {
        let num_vars = self.num_vars("witness variables")?;
        let root = self.root("witness root")?;
        let outer_mask_sum = self.ext::<F, E>("outer mask sum")?;
        let outer = self.sumcheck::<F, E>("outer sumcheck")?;
        let c = self.exts::<F, E>(4, "claims at r_x")?;
        let inner_mask_sum = self.ext::<F, E>("inner mask sum")?;
        let inner = self.sumcheck::<F, E>("inner sumcheck")?;
        let witness_eval = self.ext::<F, E>("W(r_y)")?;
        let opening = self.opening::<F, E>(params, "witness opening")?;
        Ok(Proof {
            witness: Commitment { root, num_vars },
            outer_mask_sum,
            outer,
            claims: [c[0], c[1], c[2], c[3]],
            inner_mask_sum,
            inner,
            witness_eval,
            opening,
        })
    }

    fn four<F: NttField, E: ExtensionOf<F>>(
        &mut self,
        what: &str,
    ) -> Result<[E; 4], ProofFormatError> {
        let v = self.exts::<F, E>(4, what)?;
        Ok([v[0], v[1], v[2], v[3]])
    }

    fn spark<F: ProofField, E: ExtensionOf<F>>(
        &mut self,
        params: &SpartanParams,
    ) -> Result<SparkProof<F, E>, ProofFormatError> {
        let value = self.ext::<F, E>("Spark value")?;
        let root = self.root("Spark lookups root")?;
        let num_vars = self.num_vars("Spark lookups variables")?;
        let entry_products = self.four::<F, E>("Spark entry products")?;
        let entry_product_proof = self.products::<F, E>("Spark entry products proof")?;
        let memory_products = self.four::<F, E>("Spark memory products")?;
        let memory_product_proof = self.products::<F, E>("Spark memory products proof")?;
        let n = self.count(E::DEGREE * F::BYTES, "Spark leaf values")?;
        let leaf_values = self.exts::<F, E>(n, "Spark leaf values")?;
        let f = self.exts::<F, E>(2, "Spark final values")?;
        let eval = self.sumcheck::<F, E>("Spark evaluation sumcheck")?;
        let n = self.count(E::DEGREE * F::BYTES, "Spark entry values")?;
        let entry_values = self.exts::<F, E>(n, "Spark entry values")?;
        Ok(SparkProof {
            value,
            lookups: Commitment { root, num_vars },
            entry_products,
            entry_product_proof,
            memory_products,
            memory_product_proof,
            leaf_values,
            final_values: [f[0], f[1]],
            eval,
            entry_values,
            entries_opening: self.opening::<F, E>(params, "Spark entries opening")?,
            lookups_opening: self.opening::<F, E>(params, "Spark lookups opening")?,
            memory_opening: self.opening::<F, E>(params, "Spark memory opening")?,
        })
    }

    fn end(&self) -> Result<(), ProofFormatError> {
        if self.pos != self.bytes.len() {
            return self.err(format!(
                "{} bytes after the proof",
                self.bytes.len() - self.pos
            ));
        }
        Ok(())
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
    let params = r.header::<F, E>(MAGIC, VERSION)?;
    let proof = r.body::<F, E>(&params)?;
    r.end()?;
    Ok((params, proof))
}

/// Reads a SNARK-mode proof file.
pub fn read_snark_proof<F: ProofField, E: ExtensionOf<F>>(
    bytes: &[u8],
    file: &str,
) -> Result<(SpartanParams, SnarkProof<F, E>), ProofFormatError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        file,
    };
    let params = r.header::<F, E>(SNARK_MAGIC, VERSION)?;
    let proof = r.body::<F, E>(&params)?;
    let spark = r.spark::<F, E>(&params)?;
    r.end()?;
    Ok((params, SnarkProof { proof, spark }))
}

/// Reads a SNARK key: the parameters it was made with, the verifying key, and the
/// circuit's `.r1cs` bytes (not parsed here: a verifier has no use for them).
pub fn read_key<'a, F: ProofField, E: ExtensionOf<F>>(
    bytes: &'a [u8],
    file: &str,
) -> Result<(SpartanParams, VerifyingKey, &'a [u8]), ProofFormatError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        file,
    };
    let params = r.header::<F, E>(KEY_MAGIC, KEY_VERSION)?;
    let mut size = |what| -> Result<usize, ProofFormatError> {
        let n = r.u64(what)?;
        if n > 1 << 40 {
            return r.err(format!("{what}: {n}, at most 2^40"));
        }
        Ok(n as usize)
    };
    let (n_constraints, n_vars, n_public) = (
        size("constraints")?,
        size("variables")?,
        size("public inputs")?,
    );
    let mut log = |what| -> Result<usize, ProofFormatError> {
        let n = r.u8(what)? as usize;
        if n > 40 {
            return r.err(format!("{what}: 2^{n}"));
        }
        Ok(n)
    };
    let shape = SparkShape {
        log_n: log("log entries")?,
        log_mem: log("log memory")?,
        log_rows: log("log rows")?,
        log_cols: log("log columns")?,
    };
    if !shape.is_consistent() {
        return r.err(format!("sizes that do not agree: {shape:?}"));
    }
    let entries = r.root("entries root")?;
    let memory = r.root("memory root")?;
    let len = r.u64("circuit length")?;
    if len != (bytes.len() - r.pos) as u64 {
        return r.err(format!(
            "a circuit of {len} bytes announced, {} bytes left",
            bytes.len() - r.pos
        ));
    }
    let vk = VerifyingKey {
        n_constraints,
        n_vars,
        n_public,
        spark: SparkCommitment {
            shape,
            entries: Commitment {
                root: entries,
                num_vars: shape.log_n,
            },
            memory: Commitment {
                root: memory,
                num_vars: shape.log_mem,
            },
        },
    };
    Ok((params, vk, &bytes[r.pos..]))
}
