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

use fastzk_field::PrimeField;

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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct R1cs<F> {
    n_public: usize,
    a: Csr<F>,
    b: Csr<F>,
    c: Csr<F>,
}

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
        Ok(Self { n_public, a, b, c })
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
