//! cuZK's sparse-matrix MSM (cuZK §3.2, Algorithms 3–4) on CPU threads.
//!
//! For each window: every thread adds its share of the points into the entries of its
//! row of a `t × (2^s − 1)` ELL matrix (one entry per distinct digit), the matrix is
//! converted to CSR, transposed with a counting sort on the column index, and
//! multiplied by the all-ones vector (SpMV), which yields the bucket sums `B_l`. Then
//! each window's `Σ l·B_l` is computed by the parallel bucket reduction of
//! Algorithm 4 and the windows are combined with formula (3).

use fastzk_curve::{Affine, Jacobian, Xyzz};
use rayon::prelude::*;

use crate::fast::combine_windows;
use crate::pippenger::unsigned_windows;
use crate::scalar::window_bits;
use crate::MsmCurve;

/// An ELL row: `(column, point)` entries, at most `row_space` of them.
struct EllRow<C: MsmCurve> {
    cols: Vec<u32>,
    data: Vec<Xyzz<C>>,
}

/// CSR matrix over points.
struct Csr<C: MsmCurve> {
    row_ptr: Vec<usize>,
    cols: Vec<u32>,
    data: Vec<Xyzz<C>>,
}

/// pStoreECPoints: thread `r` sums its points with equal digits into one entry.
fn store_points<C: MsmCurve>(
    points: &[Affine<C>],
    scalars: &[[u64; 4]],
    w: u32,
    s: u32,
    t: usize,
) -> Vec<EllRow<C>> {
    let row_space = points.len().div_ceil(t).max(1);
    let cols = (1usize << s) - 1;
    (0..t)
        .into_par_iter()
        .map(|r| {
            let start = (r * row_space).min(points.len());
            let end = ((r + 1) * row_space).min(points.len());
            let mut slot = vec![u32::MAX; cols];
            let mut row = EllRow {
                cols: Vec::with_capacity(row_space.min(cols)),
                data: Vec::with_capacity(row_space.min(cols)),
            };
            for i in start..end {
                let m = window_bits(&scalars[i], w * s, s) as usize;
                if m == 0 {
                    continue;
                }
                let col = m - 1;
                if slot[col] == u32::MAX {
                    slot[col] = row.cols.len() as u32;
                    row.cols.push(col as u32);
                    row.data.push(Xyzz::from(points[i]));
                } else {
                    let e = &mut row.data[slot[col] as usize];
                    *e = e.add_affine(&points[i]);
                }
            }
            row
        })
        .collect()
}

/// pELL2CSR: concatenates the rows (dropping the ELL padding).
fn ell_to_csr<C: MsmCurve>(rows: Vec<EllRow<C>>) -> Csr<C> {
    let mut row_ptr = Vec::with_capacity(rows.len() + 1);
    row_ptr.push(0);
    for r in &rows {
        row_ptr.push(row_ptr.last().copied().unwrap_or(0) + r.cols.len());
    }
    let nnz = *row_ptr.last().unwrap_or(&0);
    let mut cols = Vec::with_capacity(nnz);
    let mut data = Vec::with_capacity(nnz);
    for r in rows {
        cols.extend_from_slice(&r.cols);
        data.extend_from_slice(&r.data);
    }
    Csr {
        row_ptr,
        cols,
        data,
    }
}

/// pTranspose: counting sort of the entries by column; the transposed matrix has one
/// row per bucket. Returns row pointers and, per position, the source entry.
fn transpose<C: MsmCurve>(csr: &Csr<C>, n_cols: usize) -> (Vec<usize>, Vec<u32>) {
    debug_assert_eq!(csr.row_ptr.last().copied().unwrap_or(0), csr.cols.len());
    let mut ptr = vec![0usize; n_cols + 1];
    for &c in &csr.cols {
        ptr[c as usize + 1] += 1;
    }
    for i in 0..n_cols {
        ptr[i + 1] += ptr[i];
    }
    let mut pos = ptr.clone();
    let mut src = vec![0u32; csr.cols.len()];
    for (k, &c) in csr.cols.iter().enumerate() {
        src[pos[c as usize]] = k as u32;
        pos[c as usize] += 1;
    }
    (ptr, src)
}

/// pSparseMatrixVectorMUL with the all-ones vector: each transposed row's sum, the
/// rows split among threads by equal non-zero counts.
fn spmv_ones<C: MsmCurve>(csr: &Csr<C>, ptr: &[usize], src: &[u32], t: usize) -> Vec<Xyzz<C>> {
    let n_rows = ptr.len() - 1;
    let nnz = ptr[n_rows];
    let mut bounds = vec![0usize];
    for k in 1..t {
        let target = nnz * k / t;
        let row = ptr.partition_point(|&p| p < target).min(n_rows);
        bounds.push(row.max(*bounds.last().unwrap_or(&0)));
    }
    bounds.push(n_rows);
    let parts: Vec<Vec<Xyzz<C>>> = bounds
        .par_windows(2)
        .map(|b| {
            (b[0]..b[1])
                .map(|row| {
                    let mut acc = Xyzz::<C>::identity();
                    for &k in &src[ptr[row]..ptr[row + 1]] {
                        acc = acc.add_xyzz(&csr.data[k as usize]);
                    }
                    acc
                })
                .collect()
        })
        .collect();
    parts.into_iter().flatten().collect()
}

/// Algorithm 4: `Σ_l l·B_l` (bucket `l` at index `l−1`) split into `t` parts.
pub fn parallel_bucket_reduction<C: MsmCurve>(buckets: &[Xyzz<C>], t: usize) -> Xyzz<C> {
    let len = buckets.len();
    if len == 0 {
        return Xyzz::identity();
    }
    let r = len.div_ceil(t.max(1));
    (0..len.div_ceil(r))
        .into_par_iter()
        .map(|xi| {
            let lo = xi * r;
            let hi = (lo + r).min(len);
            // S = Σ (l − lo)·B_l over the part, M = Σ B_l.
            let mut m = Xyzz::<C>::identity();
            let mut s = Xyzz::<C>::identity();
            for b in buckets[lo..hi].iter().rev() {
                m = m.add_xyzz(b);
                s = s.add_xyzz(&m);
            }
            // Indices in the part are lo+1.. so add lo·M.
            let shift = Xyzz::from(Jacobian::from(m).mul_bigint(&[lo as u64]));
            s.add_xyzz(&shift)
        })
        .reduce(Xyzz::identity, |a, b| a.add_xyzz(&b))
}

/// cuZK's MSM with unsigned `s`-bit windows on `t` threads.
pub fn msm<C: MsmCurve>(points: &[Affine<C>], scalars: &[[u64; 4]], bits: u32, s: u32) -> Xyzz<C> {
    let t = rayon::current_num_threads().max(1);
    let m = unsigned_windows(bits, s);
    let n_cols = (1usize << s) - 1;
    let mut bucket_vectors = Vec::with_capacity(m as usize);
    for w in 0..m {
        let ell = store_points(points, scalars, w, s, t);
        let csr = ell_to_csr(ell);
        let (ptr, src) = transpose(&csr, n_cols);
        bucket_vectors.push(spmv_ones(&csr, &ptr, &src, t));
    }
    let per_window = (t / m as usize).max(1);
    let sums: Vec<Xyzz<C>> = bucket_vectors
        .par_iter()
        .map(|b| parallel_bucket_reduction(b, per_window))
        .collect();
    combine_windows(&sums, s)
}
