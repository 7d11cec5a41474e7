//! Rank-1 constraint systems: `(A·z) ∘ (B·z) = C·z` over a prime field.
//!
//! The three matrices are stored in CSR form ([`Csr`]), one row per constraint, one
//! column per variable (`z[0] = 1`, then the public variables, then the private ones,
//! the circom/snarkjs convention). [`spmv`] multiplies a matrix by a vector with the
//! scheme cuZK §4.2 picks from the row-length statistics, [`R1cs::check`] names the
//! first failing constraint, and [`synth`] builds satisfiable instances of any size.

mod csr;
pub mod spmv;
pub mod synth;

pub use csr::{Csr, CsrError};
pub use spmv::{spmv, spmv_with, SpmvScheme};

use std::sync::OnceLock;

use fastzk_field::PrimeField;
use rayon::prelude::*;

/// Why an R1CS or a witness was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum R1csError {
    #[error("matrix {matrix}: {source}")]
    Matrix {
        matrix: char,
        #[source]
        source: CsrError,
    },
    #[error(
        "the three matrices disagree on shape: A is {a:?}, B is {b:?}, C is {c:?} (rows × columns)"
    )]
    ShapeMismatch {
        a: (usize, usize),
        b: (usize, usize),
        c: (usize, usize),
    },
    #[error(
        "{n_public} public variables do not fit in {n_vars} variables (one is the constant 1)"
    )]
    TooManyPublic { n_public: usize, n_vars: usize },
    #[error("{what} is {got}; it must be in {allowed}")]
    OutOfRange {
        what: &'static str,
        got: u64,
        allowed: String,
    },
    #[error("witness has {got} values, the constraint system has {expected} variables")]
    WitnessLength { expected: usize, got: usize },
    #[error("witness value z[0] must be 1 (the constant variable)")]
    WitnessConstant,
    #[error(
        "constraint {index} is not satisfied: (A·z)[{index}] · (B·z)[{index}] ≠ (C·z)[{index}]"
    )]
    Unsatisfied { index: usize },
}

/// A rank-1 constraint system with `n_vars` variables, of which `z[0]` is the constant
/// one and `z[1..=n_public]` are public (circom: outputs, then public inputs).
#[derive(Clone, Debug)]
pub struct R1cs<F> {
    n_public: usize,
    a: Csr<F>,
    b: Csr<F>,
    c: Csr<F>,
    /// [`R1cs::digest`], computed on first use.
    digest: OnceLock<[u8; 32]>,
}

/// Equal matrices and public count (whether a digest is cached does not matter).
impl<F: PartialEq> PartialEq for R1cs<F> {
    fn eq(&self, other: &Self) -> bool {
        self.n_public == other.n_public
            && self.a == other.a
            && self.b == other.b
            && self.c == other.c
    }
}

impl<F: Eq> Eq for R1cs<F> {}

impl<F: PrimeField> R1cs<F> {
    /// Checks that the matrices agree on shape and that the public variables fit.
    pub fn new(n_public: usize, a: Csr<F>, b: Csr<F>, c: Csr<F>) -> Result<Self, R1csError> {
        let shape = |m: &Csr<F>| (m.n_rows(), m.n_cols());
        if shape(&a) != shape(&b) || shape(&a) != shape(&c) {
            return Err(R1csError::ShapeMismatch {
                a: shape(&a),
                b: shape(&b),
                c: shape(&c),
            });
        }
        if a.n_cols() == 0 || n_public >= a.n_cols() {
            return Err(R1csError::TooManyPublic {
                n_public,
                n_vars: a.n_cols(),
            });
        }
        Ok(Self {
            n_public,
            a,
            b,
            c,
            digest: OnceLock::new(),
        })
    }

    /// A BLAKE3 digest of the whole system, for a transcript to bind the statement: the
    /// sizes, then each matrix's rows in chunks hashed in parallel, the chunk digests
    /// hashed in order. Computed once per object (a prover of many witnesses of one
    /// circuit pays it once, as a circuit's preprocessing).
    pub fn digest(&self) -> [u8; 32] {
        *self.digest.get_or_init(|| self.compute_digest())
    }

    fn compute_digest(&self) -> [u8; 32] {
        const ROWS: usize = 1 << 12;
        let mut h = blake3::Hasher::new();
        for n in [self.n_vars(), self.n_public(), self.n_constraints()] {
            h.update(&(n as u64).to_le_bytes());
        }
        let n_rows = self.n_constraints();
        for m in [&self.a, &self.b, &self.c] {
            let chunks: Vec<[u8; 32]> = (0..n_rows.div_ceil(ROWS))
                .into_par_iter()
                .map(|k| {
                    let rows = k * ROWS..((k + 1) * ROWS).min(n_rows);
                    let nnz: usize = rows.clone().map(|i| m.row(i).0.len()).sum();
                    let mut buf = Vec::with_capacity(8 * rows.len() + nnz * (4 + F::BYTES));
                    for i in rows {
                        let (cs, vs) = m.row(i);
                        buf.extend_from_slice(&(cs.len() as u64).to_le_bytes());
                        for (c, v) in cs.iter().zip(vs) {
                            buf.extend_from_slice(&c.to_le_bytes());
                            v.extend_le_bytes(&mut buf);
                        }
                    }
                    *blake3::hash(&buf).as_bytes()
                })
                .collect();
            for c in &chunks {
                h.update(c);
            }
        }
        *h.finalize().as_bytes()
    }

    /// Number of variables, the constant one included.
    pub fn n_vars(&self) -> usize {
        self.a.n_cols()
    }
    /// Number of public variables (the constant one excluded).
    pub fn n_public(&self) -> usize {
        self.n_public
    }
    pub fn n_constraints(&self) -> usize {
        self.a.n_rows()
    }
    pub fn a(&self) -> &Csr<F> {
        &self.a
    }
    pub fn b(&self) -> &Csr<F> {
        &self.b
    }
    pub fn c(&self) -> &Csr<F> {
        &self.c
    }
    /// Non-zero entries in A, B and C.
    pub fn nnz(&self) -> [usize; 3] {
        [self.a.nnz(), self.b.nnz(), self.c.nnz()]
    }

    /// Checks the witness length and `z[0] = 1`.
    pub fn check_witness_shape(&self, z: &[F]) -> Result<(), R1csError> {
        if z.len() != self.n_vars() {
            return Err(R1csError::WitnessLength {
                expected: self.n_vars(),
                got: z.len(),
            });
        }
        if !z[0].is_one() {
            return Err(R1csError::WitnessConstant);
        }
        Ok(())
    }

    /// `Ok` when `z` satisfies every constraint; otherwise the lowest failing index.
    pub fn check(&self, z: &[F]) -> Result<(), R1csError> {
        self.check_witness_shape(z)?;
        let az = spmv(&self.a, z);
        let bz = spmv(&self.b, z);
        let cz = spmv(&self.c, z);
        first_unsatisfied(&az, &bz, &cz)
            .map_or(Ok(()), |index| Err(R1csError::Unsatisfied { index }))
    }
}

/// The lowest `i` with `a[i]·b[i] ≠ c[i]`, if any.
pub fn first_unsatisfied<F: PrimeField>(a: &[F], b: &[F], c: &[F]) -> Option<usize> {
    use rayon::prelude::*;
    a.par_iter()
        .zip(b.par_iter())
        .zip(c.par_iter())
        .position_first(|((a, b), c)| *a * *b != *c)
}
