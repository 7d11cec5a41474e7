//! The Orion commitment with Reed–Solomon codes (Shockwave's substitution, as NoCap runs
//! it) for a multilinear polynomial given by its `2^n` hypercube values.
//!
//! The values form an `R × C` matrix `M` (row `i` holds indices `i·C … i·C + C − 1`, so
//! the first `log R` variables pick the row). Each row is Reed–Solomon encoded at rate
//! `2^−log_blowup` with the NTT, and the `C·2^log_blowup` columns of the encoded matrix
//! are the leaves of a Merkle tree, whose root is the commitment.
//!
//! To prove `f(r) = y` with `r = (r_row, r_col)`: `f(r) = eq(r_row)ᵀ·M·eq(r_col)`. The
//! prover sends `u = eq(r_row)ᵀ·M` and, for the proximity test, `v_k = γ_kᵀ·M` for
//! `proximity_reps` random `γ_k`; the verifier encodes `u` and each `v_k` itself and, at
//! `queries` random columns of the committed codeword matrix (opened with one batched
//! Merkle proof), checks them against the same combinations of the opened column, then
//! checks `y = ⟨u, eq(r_col)⟩`. Challenges and `u`, `v_k` live in an extension `E` of the
//! committed field (Goldilocks' is too small alone); committed data stays in the base
//! field. Zero knowledge is not part of this layer.

use fastzk_field::{bls12_381, bn254, Field, Goldilocks, GoldilocksExt2, GoldilocksExt3, NttField};
use fastzk_multilinear::{eq_table, Absorb, HashKind, Transcript};
use fastzk_poly::{Order, ReedSolomon};
use rayon::prelude::*;

use crate::merkle::{self, Digest, MerkleTree, MultiProof};
use crate::PcsError;

/// The field challenges and opened combinations live in, over the committed field `F`.
pub trait ExtensionOf<F: NttField>: Field + Absorb {
    const DEGREE: usize;
    fn from_base(b: F) -> Self;
    /// Coordinate `i < DEGREE` in the basis `1, u, …`.
    fn coeff(&self, i: usize) -> F;
    fn from_coeffs(c: &[F]) -> Self;
    /// `self·b` for a base-field `b`.
    fn mul_base(&self, b: F) -> Self {
        *self * Self::from_base(b)
    }
}

macro_rules! itself {
    ($($f:ty),*) => {$(
        impl ExtensionOf<$f> for $f {
            const DEGREE: usize = 1;
            fn from_base(b: $f) -> Self { b }
            fn coeff(&self, _: usize) -> $f { *self }
            fn from_coeffs(c: &[$f]) -> Self { c[0] }
            fn mul_base(&self, b: $f) -> Self { *self * b }
        }
    )*};
}
itself!(Goldilocks, bn254::Fr, bls12_381::Fr);

impl ExtensionOf<Goldilocks> for GoldilocksExt2 {
    const DEGREE: usize = 2;
    fn from_base(b: Goldilocks) -> Self {
        Self::new(b, Goldilocks::ZERO)
    }
    fn coeff(&self, i: usize) -> Goldilocks {
        if i == 0 {
            self.c0
        } else {
            self.c1
        }
    }
    fn from_coeffs(c: &[Goldilocks]) -> Self {
        Self::new(c[0], c[1])
    }
    fn mul_base(&self, b: Goldilocks) -> Self {
        Self::new(self.c0 * b, self.c1 * b)
    }
}

impl ExtensionOf<Goldilocks> for GoldilocksExt3 {
    const DEGREE: usize = 3;
    fn from_base(b: Goldilocks) -> Self {
        Self::new(b, Goldilocks::ZERO, Goldilocks::ZERO)
    }
    fn coeff(&self, i: usize) -> Goldilocks {
        self.c[i]
    }
    fn from_coeffs(c: &[Goldilocks]) -> Self {
        Self::new(c[0], c[1], c[2])
    }
    fn mul_base(&self, b: Goldilocks) -> Self {
        Self::new(self.c[0] * b, self.c[1] * b, self.c[2] * b)
    }
}

/// The code and query parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrionParams {
    /// At most `2^log_rows` rows (NoCap: 128).
    pub log_rows: u32,
    /// Rate `2^−log_blowup` (NoCap: 1/4).
    pub log_blowup: u32,
    /// Columns opened (NoCap: 189 at rate 1/4).
    pub queries: usize,
    /// Random combinations in the proximity test.
    pub proximity_reps: usize,
    pub hash: HashKind,
}

impl Default for OrionParams {
    fn default() -> Self {
        Self {
            log_rows: 7,
            log_blowup: 2,
            queries: 189,
            proximity_reps: 1,
            hash: HashKind::Blake3,
        }
    }
}

impl OrionParams {
    /// `(log R, log C)` for a polynomial in `num_vars` variables: as many rows as allowed
    /// while there are at least as many columns.
    pub fn shape(&self, num_vars: usize) -> (usize, usize) {
        let log_rows = (self.log_rows as usize).min(num_vars / 2);
        (log_rows, num_vars - log_rows)
    }

    fn code(&self) -> ReedSolomon {
        ReedSolomon {
            log_blowup: self.log_blowup,
            output: Order::Natural,
        }
    }
}

/// What the verifier holds: the Merkle root and the number of variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Commitment {
    pub root: Digest,
    pub num_vars: usize,
}

/// The prover's side of a commitment.
pub struct Committed<F> {
    pub commitment: Commitment,
    /// `R × C`, row-major.
    matrix: Vec<F>,
    /// The encoded matrix by columns: column `j` is `columns[j·R .. (j+1)·R]`.
    columns: Vec<F>,
    tree: MerkleTree,
}

/// An evaluation proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalProof<F, E> {
    /// `v_k = γ_kᵀ·M`, one per proximity repetition.
    pub combos: Vec<Vec<E>>,
    /// `u = eq(r_row)ᵀ·M`.
    pub row_eval: Vec<E>,
    /// The opened columns, in increasing column order (repeated queries once).
    pub columns: Vec<Vec<F>>,
    pub merkle: MultiProof,
}

fn leaf_bytes<F: NttField>(col: &[F]) -> Vec<u8> {
    let mut out = Vec::with_capacity(col.len() * F::BYTES);
    col.iter().for_each(|x| x.extend_le_bytes(&mut out));
    out
}

/// Commits to the hypercube values `evals` (a power-of-two count).
pub fn commit<F: NttField>(params: &OrionParams, evals: &[F]) -> Result<Committed<F>, PcsError> {
    if !evals.len().is_power_of_two() {
        return Err(PcsError::Shape(format!(
            "{} values is not a power of two",
            evals.len()
        )));
    }
    let num_vars = evals.len().trailing_zeros() as usize;
    let (log_r, log_c) = params.shape(num_vars);
    let (rows, cols) = (1usize << log_r, 1usize << log_c);
    let encoded = params.code().encode_batch(evals, cols)?;
    let width = cols << params.log_blowup;
    // Transpose so that each leaf's column is contiguous.
    let mut columns = vec![F::ZERO; rows * width];
    columns
        .par_chunks_mut(rows)
        .enumerate()
        .for_each(|(j, col)| {
            for (i, c) in col.iter_mut().enumerate() {
                *c = encoded[i * width + j];
            }
        });
    let leaves = columns
        .par_chunks(rows)
        .map(|c| merkle::hash_leaf(params.hash, &leaf_bytes(c)))
        .collect();
    let tree = MerkleTree::new(params.hash, leaves)?;
    Ok(Committed {
        commitment: Commitment {
            root: tree.root(),
            num_vars,
        },
        matrix: evals.to_vec(),
        columns,
        tree,
    })
}

/// `wᵀ·M` for the `R × C` matrix `m`.
fn combine_rows<F: NttField, E: ExtensionOf<F>>(m: &[F], cols: usize, w: &[E]) -> Vec<E> {
    (0..cols)
        .into_par_iter()
        .with_min_len(256)
        .map(|j| {
            w.iter()
                .enumerate()
                .map(|(i, wi)| wi.mul_base(m[i * cols + j]))
                .sum()
        })
        .collect()
}

/// `⟨w, col⟩` for one opened column.
fn combine_column<F: NttField, E: ExtensionOf<F>>(col: &[F], w: &[E]) -> E {
    w.iter().zip(col).map(|(wi, c)| wi.mul_base(*c)).sum()
}

/// The codeword of an extension-field message, coordinate by coordinate.
fn encode_ext<F: NttField, E: ExtensionOf<F>>(
    params: &OrionParams,
    msg: &[E],
) -> Result<Vec<E>, PcsError> {
    let parts: Vec<Vec<F>> = (0..E::DEGREE)
        .map(|d| {
            let coords: Vec<F> = msg.iter().map(|x| x.coeff(d)).collect();
            params.code().encode(&coords)
        })
        .collect::<Result<_, _>>()?;
    Ok((0..parts[0].len())
        .map(|q| E::from_coeffs(&parts.iter().map(|p| p[q]).collect::<Vec<_>>()))
        .collect())
}

/// The challenges both sides derive: `γ_k` after the point, query columns after the
/// prover's vectors.
fn gammas<F: NttField, E: ExtensionOf<F>>(
    params: &OrionParams,
    point: &[E],
    value: E,
    rows: usize,
    t: &mut Transcript,
) -> Vec<Vec<E>> {
    t.append_elements(b"orion point", point);
    t.append_elements(b"orion value", &[value]);
    (0..params.proximity_reps)
        .map(|_| t.challenges(b"orion proximity", rows))
        .collect()
}

fn queries(
    params: &OrionParams,
    combos: &[Vec<impl Absorb>],
    u: &[impl Absorb],
    width: usize,
    t: &mut Transcript,
) -> Vec<usize> {
    for v in combos {
        t.append_elements(b"orion combination", v);
    }
    t.append_elements(b"orion row evaluation", u);
    let mut q = t.indices(b"orion queries", params.queries, width);
    q.sort_unstable();
    q.dedup();
    q
}

/// Proves the value of the committed polynomial at `point`; returns it with the proof.
pub fn open<F: NttField, E: ExtensionOf<F>>(
    params: &OrionParams,
    data: &Committed<F>,
    point: &[E],
    transcript: &mut Transcript,
) -> Result<(E, EvalProof<F, E>), PcsError> {
    let n = data.commitment.num_vars;
    if point.len() != n {
        return Err(PcsError::Shape(format!(
            "point has {} coordinates, the polynomial {n} variables",
            point.len()
        )));
    }
    let (log_r, log_c) = params.shape(n);
    let (rows, cols) = (1usize << log_r, 1usize << log_c);
    let eq_row = eq_table(&point[..log_r]);
    let eq_col = eq_table(&point[log_r..]);
    let u = combine_rows(&data.matrix, cols, &eq_row);
    let value: E = u.iter().zip(&eq_col).map(|(a, b)| *a * *b).sum();
    let gs = gammas::<F, E>(params, point, value, rows, transcript);
    let combos: Vec<Vec<E>> = gs
        .iter()
        .map(|g| combine_rows(&data.matrix, cols, g))
        .collect();
    let width = cols << params.log_blowup;
    let q = queries(params, &combos, &u, width, transcript);
    let columns = q
        .iter()
        .map(|&j| data.columns[j * rows..(j + 1) * rows].to_vec())
        .collect();
    let merkle = data.tree.open(&q)?;
    Ok((
        value,
        EvalProof {
            combos,
            row_eval: u,
            columns,
            merkle,
        },
    ))
}

/// Checks that the committed polynomial takes `value` at `point`.
pub fn verify<F: NttField, E: ExtensionOf<F>>(
    params: &OrionParams,
    commitment: &Commitment,
    point: &[E],
    value: E,
    proof: &EvalProof<F, E>,
    transcript: &mut Transcript,
) -> Result<(), PcsError> {
    let n = commitment.num_vars;
    let bad = |why: String| Err(PcsError::Rejected(why));
    if point.len() != n {
        return bad(format!(
            "point of {} coordinates for {n} variables",
            point.len()
        ));
    }
    let (log_r, log_c) = params.shape(n);
    let (rows, cols) = (1usize << log_r, 1usize << log_c);
    if proof.combos.len() != params.proximity_reps
        || proof.combos.iter().any(|v| v.len() != cols)
        || proof.row_eval.len() != cols
    {
        return bad("vectors of the wrong length".into());
    }
    let eq_row = eq_table(&point[..log_r]);
    let eq_col = eq_table(&point[log_r..]);
    let gs = gammas::<F, E>(params, point, value, rows, transcript);
    let width = cols << params.log_blowup;
    let q = queries(params, &proof.combos, &proof.row_eval, width, transcript);
    if proof.columns.len() != q.len() || proof.columns.iter().any(|c| c.len() != rows) {
        return bad("wrong number or size of opened columns".into());
    }
    let leaves: Vec<(usize, Digest)> = q
        .iter()
        .zip(&proof.columns)
        .map(|(&j, c)| (j, merkle::hash_leaf(params.hash, &leaf_bytes(c))))
        .collect();
    let depth = width.trailing_zeros() as usize;
    merkle::verify(params.hash, &commitment.root, depth, &leaves, &proof.merkle)?;
    let enc_u = encode_ext::<F, E>(params, &proof.row_eval)?;
    let enc_v: Vec<Vec<E>> = proof
        .combos
        .iter()
        .map(|v| encode_ext::<F, E>(params, v))
        .collect::<Result<_, _>>()?;
    for (&j, col) in q.iter().zip(&proof.columns) {
        for (k, (g, enc)) in gs.iter().zip(&enc_v).enumerate() {
            if combine_column(col, g) != enc[j] {
                return bad(format!("proximity combination {k} disagrees at column {j}"));
            }
        }
        if combine_column(col, &eq_row) != enc_u[j] {
            return bad(format!("row evaluation disagrees at column {j}"));
        }
    }
    let y: E = proof
        .row_eval
        .iter()
        .zip(&eq_col)
        .map(|(a, b)| *a * *b)
        .sum();
    if y != value {
        return bad("the claimed value is not ⟨u, eq(r_col)⟩".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastzk_testing::gen::rng;

    /// A prover whose committed rows are far from codewords (40 % of the codeword
    /// columns altered after encoding, then committed) is caught by the column checks,
    /// although it sends the honest `u` and `v_k` of the original matrix.
    #[test]
    fn rows_far_from_the_code_are_caught() {
        let params = OrionParams::default();
        let mut r = rng(11);
        let evals: Vec<Goldilocks> = (0..1 << 12).map(|_| Goldilocks::random(&mut r)).collect();
        let mut data = commit(&params, &evals).unwrap();
        let rows = 1 << params.shape(12).0;
        let width = data.columns.len() / rows;
        for j in (0..width).filter(|j| j % 5 < 2) {
            data.columns[j * rows] += Goldilocks::ONE;
        }
        let leaves = data
            .columns
            .par_chunks(rows)
            .map(|c| merkle::hash_leaf(params.hash, &leaf_bytes(c)))
            .collect();
        data.tree = MerkleTree::new(params.hash, leaves).unwrap();
        data.commitment.root = data.tree.root();
        let point: Vec<GoldilocksExt2> = (0..12).map(|_| GoldilocksExt2::random(&mut r)).collect();
        let mut tp = Transcript::new(params.hash, b"t");
        let (value, proof) = open(&params, &data, &point, &mut tp).unwrap();
        let mut tv = Transcript::new(params.hash, b"t");
        let err = verify(&params, &data.commitment, &point, value, &proof, &mut tv).unwrap_err();
        assert!(matches!(err, PcsError::Rejected(_)), "{err}");
    }
}
