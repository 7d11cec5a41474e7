//! Sparse matrix × dense vector, with the three CSR schemes of cuZK §4.2.
//!
//! * **CSR-scalar**: one task per block of rows, each row summed by one thread. Best
//!   when rows are short and alike (most R1CS rows hold a handful of terms).
//! * **CSR-vector**: every row is itself split across threads and reduced. Pays only
//!   when rows are long on average.
//! * **CSR-balanced**: the entries (not the rows) are cut into equal parts; a part
//!   computes the rows it covers and the partial sums of rows cut at its edges are
//!   added afterwards. Immune to a few huge rows (a constraint summing thousands of
//!   variables) that would leave one thread working alone under CSR-scalar.
//!
//! [`SpmvScheme::choose`] picks from the row-length statistics; every scheme gives the
//! same result (field addition is exact), which the tests check.

use fastzk_field::Field;
use rayon::prelude::*;

use crate::Csr;

/// How the rows of a CSR matrix are shared between threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpmvScheme {
    Scalar,
    Vector,
    Balanced,
}

/// Rows per task under CSR-scalar, and entries per part under CSR-balanced.
const ROW_BLOCK: usize = 1 << 12;
const ENTRY_BLOCK: usize = 1 << 14;
/// Rows at least this long (on average) are split across threads by CSR-vector.
const VECTOR_MIN_MEAN: usize = 256;

impl SpmvScheme {
    /// cuZK's rule, in CPU terms: CSR-vector when rows are long on average; CSR-balanced
    /// when the longest row would dominate a CSR-scalar block (it holds more than a
    /// quarter of a thread's fair share of entries) or lengths vary widely; CSR-scalar
    /// otherwise.
    pub fn choose<F: Field>(m: &Csr<F>) -> Self {
        let rows = m.n_rows();
        if rows == 0 {
            return SpmvScheme::Scalar;
        }
        let nnz = m.nnz();
        let mean = nnz / rows;
        if mean >= VECTOR_MIN_MEAN {
            return SpmvScheme::Vector;
        }
        let ptr = m.row_ptr();
        let max = (0..rows).map(|i| ptr[i + 1] - ptr[i]).max().unwrap_or(0);
        let share = nnz / rayon::current_num_threads().max(1);
        if max > ROW_BLOCK.max(share / 4) || max > 64 * (mean + 1) {
            SpmvScheme::Balanced
        } else {
            SpmvScheme::Scalar
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            SpmvScheme::Scalar => "csr-scalar",
            SpmvScheme::Vector => "csr-vector",
            SpmvScheme::Balanced => "csr-balanced",
        }
    }
}

/// `m · z` with the scheme [`SpmvScheme::choose`] picks. `z` must have `m.n_cols()`
/// entries (checked by the callers that take it from a file; here it panics).
pub fn spmv<F: Field>(m: &Csr<F>, z: &[F]) -> Vec<F> {
    spmv_with(m, z, SpmvScheme::choose(m))
}

/// `m · z` with a given scheme.
pub fn spmv_with<F: Field>(m: &Csr<F>, z: &[F], scheme: SpmvScheme) -> Vec<F> {
    assert_eq!(
        z.len(),
        m.n_cols(),
        "spmv: vector length must equal the column count"
    );
    let mut out = vec![F::ZERO; m.n_rows()];
    match scheme {
        SpmvScheme::Scalar => scalar(m, z, &mut out),
        SpmvScheme::Vector => vector(m, z, &mut out),
        SpmvScheme::Balanced => balanced(m, z, &mut out),
    }
    out
}

fn dot<F: Field>(cols: &[u32], vals: &[F], z: &[F]) -> F {
    let mut acc = F::ZERO;
    for (&c, &v) in cols.iter().zip(vals) {
        acc += v * z[c as usize];
    }
    acc
}

fn scalar<F: Field>(m: &Csr<F>, z: &[F], out: &mut [F]) {
    out.par_chunks_mut(ROW_BLOCK)
        .enumerate()
        .for_each(|(block, chunk)| {
            let first = block * ROW_BLOCK;
            for (k, o) in chunk.iter_mut().enumerate() {
                let (c, v) = m.row(first + k);
                *o = dot(c, v, z);
            }
        });
}

fn vector<F: Field>(m: &Csr<F>, z: &[F], out: &mut [F]) {
    out.par_iter_mut().enumerate().for_each(|(i, o)| {
        let (c, v) = m.row(i);
        *o = c
            .par_chunks(VECTOR_MIN_MEAN)
            .zip(v.par_chunks(VECTOR_MIN_MEAN))
            .map(|(c, v)| dot(c, v, z))
            .reduce(|| F::ZERO, |a, b| a + b);
    });
}

fn balanced<F: Field>(m: &Csr<F>, z: &[F], out: &mut [F]) {
    let nnz = m.nnz();
    let ptr = m.row_ptr();
    let parts = nnz.div_ceil(ENTRY_BLOCK).max(1);
    // Each part returns the rows it finishes plus the partial sums of the rows cut at its
    // two edges; edges are merged serially (at most two per part).
    let results: Vec<(usize, Vec<F>)> = (0..parts)
        .into_par_iter()
        .map(|p| {
            let lo = p * ENTRY_BLOCK;
            let hi = ((p + 1) * ENTRY_BLOCK).min(nnz);
            // First row whose entries reach past `lo`: the last row starting at or before it.
            let first_row = ptr.partition_point(|&s| s <= lo).saturating_sub(1);
            let mut sums = Vec::new();
            let mut row = first_row;
            let mut k = lo;
            while k < hi {
                let end = ptr[row + 1].min(hi);
                let (c, v) = (&m.cols()[k..end], &m.vals()[k..end]);
                sums.push(dot(c, v, z));
                k = end;
                row += 1;
            }
            (first_row, sums)
        })
        .collect();
    for (first_row, sums) in results {
        for (k, s) in sums.into_iter().enumerate() {
            out[first_row + k] += s;
        }
    }
}
