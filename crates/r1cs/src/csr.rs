//! Compressed sparse row matrices.

use fastzk_field::Field;

/// Why a sparse matrix could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CsrError {
    #[error("entry {entry}: row {row} is out of range ({n_rows} rows)")]
    RowOutOfRange {
        entry: usize,
        row: usize,
        n_rows: usize,
    },
    #[error("entry {entry}: column {col} is out of range ({n_cols} columns)")]
    ColumnOutOfRange {
        entry: usize,
        col: usize,
        n_cols: usize,
    },
    #[error("{n_cols} columns do not fit a 32-bit column index")]
    TooManyColumns { n_cols: usize },
    #[error("row pointers must start at 0, never decrease, and end at the entry count")]
    BadRowPointers,
}

/// A sparse `n_rows × n_cols` matrix: row `i`'s entries are
/// `cols[row_ptr[i]..row_ptr[i+1]]` / `vals[…]`, in the order they were given
/// (duplicates in a row are kept and add up, as in circom's linear combinations).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr<F> {
    n_cols: usize,
    row_ptr: Vec<usize>,
    cols: Vec<u32>,
    vals: Vec<F>,
}

impl<F: Field> Csr<F> {
    /// An `n_rows × n_cols` matrix of zeros.
    pub fn zeros(n_rows: usize, n_cols: usize) -> Result<Self, CsrError> {
        Self::from_rows(n_cols, (0..n_rows).map(|_| Vec::new()))
    }

    /// Builds a matrix from its rows, each a list of `(column, value)`.
    pub fn from_rows<R>(n_cols: usize, rows: impl IntoIterator<Item = R>) -> Result<Self, CsrError>
    where
        R: IntoIterator<Item = (u32, F)>,
    {
        if u32::try_from(n_cols).is_err() {
            return Err(CsrError::TooManyColumns { n_cols });
        }
        let mut m = Self {
            n_cols,
            row_ptr: vec![0],
            cols: Vec::new(),
            vals: Vec::new(),
        };
        for row in rows {
            m.push_row(row)?;
        }
        Ok(m)
    }

    /// Appends one row.
    pub fn push_row(&mut self, row: impl IntoIterator<Item = (u32, F)>) -> Result<(), CsrError> {
        for (col, val) in row {
            if col as usize >= self.n_cols {
                return Err(CsrError::ColumnOutOfRange {
                    entry: self.cols.len(),
                    col: col as usize,
                    n_cols: self.n_cols,
                });
            }
            self.cols.push(col);
            self.vals.push(val);
        }
        self.row_ptr.push(self.cols.len());
        Ok(())
    }

    /// Builds a matrix from `(row, column, value)` triplets in any order; rows keep the
    /// triplets' relative order.
    pub fn from_triplets(
        n_rows: usize,
        n_cols: usize,
        triplets: &[(u32, u32, F)],
    ) -> Result<Self, CsrError> {
        if u32::try_from(n_cols).is_err() {
            return Err(CsrError::TooManyColumns { n_cols });
        }
        let mut counts = vec![0usize; n_rows + 1];
        for (entry, &(row, col, _)) in triplets.iter().enumerate() {
            if row as usize >= n_rows {
                return Err(CsrError::RowOutOfRange {
                    entry,
                    row: row as usize,
                    n_rows,
                });
            }
            if col as usize >= n_cols {
                return Err(CsrError::ColumnOutOfRange {
                    entry,
                    col: col as usize,
                    n_cols,
                });
            }
            counts[row as usize + 1] += 1;
        }
        for i in 0..n_rows {
            counts[i + 1] += counts[i];
        }
        let row_ptr = counts.clone();
        let mut next = counts;
        let mut cols = vec![0u32; triplets.len()];
        let mut vals = vec![F::ZERO; triplets.len()];
        for &(row, col, val) in triplets {
            let at = &mut next[row as usize];
            cols[*at] = col;
            vals[*at] = val;
            *at += 1;
        }
        Ok(Self {
            n_cols,
            row_ptr,
            cols,
            vals,
        })
    }

    /// Builds a matrix from its CSR arrays, checking them: `row_ptr` starts at 0, never
    /// decreases and ends at `cols.len() = vals.len()`, every column is in range.
    pub fn from_parts(
        n_cols: usize,
        row_ptr: Vec<usize>,
        cols: Vec<u32>,
        vals: Vec<F>,
    ) -> Result<Self, CsrError> {
        if u32::try_from(n_cols).is_err() {
            return Err(CsrError::TooManyColumns { n_cols });
        }
        let well_formed = row_ptr.first() == Some(&0)
            && row_ptr.last() == Some(&cols.len())
            && cols.len() == vals.len()
            && row_ptr.windows(2).all(|w| w[0] <= w[1]);
        if !well_formed {
            return Err(CsrError::BadRowPointers);
        }
        if let Some(entry) = cols.iter().position(|&c| c as usize >= n_cols) {
            return Err(CsrError::ColumnOutOfRange {
                entry,
                col: cols[entry] as usize,
                n_cols,
            });
        }
        Ok(Self {
            n_cols,
            row_ptr,
            cols,
            vals,
        })
    }

    pub fn n_rows(&self) -> usize {
        self.row_ptr.len() - 1
    }
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }
    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.cols.len()
    }
    pub fn row_ptr(&self) -> &[usize] {
        &self.row_ptr
    }
    pub fn cols(&self) -> &[u32] {
        &self.cols
    }
    pub fn vals(&self) -> &[F] {
        &self.vals
    }

    /// Row `i`'s columns and values.
    pub fn row(&self, i: usize) -> (&[u32], &[F]) {
        let r = self.row_ptr[i]..self.row_ptr[i + 1];
        (&self.cols[r.clone()], &self.vals[r])
    }

    /// Iterates `(row, column, value)` over every stored entry, row by row.
    pub fn triplets(&self) -> impl Iterator<Item = (usize, u32, F)> + '_ {
        (0..self.n_rows()).flat_map(move |i| {
            let (c, v) = self.row(i);
            c.iter().zip(v).map(move |(&c, &v)| (i, c, v))
        })
    }

    /// The same matrix with `extra` empty rows appended.
    pub fn with_empty_rows(mut self, extra: usize) -> Self {
        let end = self.cols.len();
        self.row_ptr.extend(std::iter::repeat_n(end, extra));
        self
    }
}
