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
//! field.
//!
//! The commitment holds any number of rows of `C` values (several polynomials of the
//! same size stacked, and a few extra rows); an opening proves
//! `Σ_i w_i·⟨row_i, eq(r_col)⟩` for row weights `w` of the caller's choice — a
//! polynomial's value at `(r_row, r_col)` is the case `w = eq(r_row)`, a combination
//! `Σ_b β_b·f_b(r)` of stacked polynomials the case `w = (β_b·eq(r_row))_b`
//! ([`block_weights`]). Spartan's zero-knowledge prover opens `W + ρ'·R` and its mask
//! rows this way.
//!
//! **Hiding** (`OrionParams::hiding`, Ligero's recipe): each row is encoded together
//! with `t = queries` random coefficients after its `C` values (the code has dimension
//! `C + t`), so the `≤ t` symbols a row shows in the opened columns are uniform whatever
//! the row holds; `E::DEGREE` random rows per proximity repetition enter each `v_k`
//! (weighted by `γ_k` like every row), so `v_k` is uniform; leaves are salted
//! (`H(salt ‖ column)`, 16 random bytes each, sent for the opened columns), so the
//! unopened columns' digests say nothing. `u` is *not* masked here: the caller makes
//! it uniform by opening a combination with a random block (see `fastzk-spartan`).

use fastzk_field::{
    bls12_381, bn254, Field, Goldilocks, GoldilocksExt2, GoldilocksExt3, NttField, PrimeField,
};
use fastzk_multilinear::{eq_table, Absorb, HashKind, Transcript};
use fastzk_poly::{Order, Radix2Domain, TwoAdicTransform};
use rand_core::RngCore;
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
    /// `Σ x_k·y_k` (an extension may reduce once at the end).
    fn dot(pairs: impl Iterator<Item = (Self, Self)>) -> Self {
        pairs.map(|(x, y)| x * y).sum()
    }
    /// `Σ x_k·b_k` for base-field `b_k` (an extension may reduce once at the end).
    fn dot_base(pairs: impl Iterator<Item = (Self, F)>) -> Self {
        pairs.map(|(x, b)| x.mul_base(b)).sum()
    }
}

macro_rules! itself {
    ($($f:ty),*) => {$(
        impl ExtensionOf<$f> for $f {
            const DEGREE: usize = 1;
            #[inline]
            fn from_base(b: $f) -> Self { b }
            #[inline]
            fn coeff(&self, _: usize) -> $f { *self }
            #[inline]
            fn from_coeffs(c: &[$f]) -> Self { c[0] }
            #[inline]
            fn mul_base(&self, b: $f) -> Self { *self * b }
        }
    )*};
}
itself!(Goldilocks, bn254::Fr, bls12_381::Fr);

impl ExtensionOf<Goldilocks> for GoldilocksExt2 {
    const DEGREE: usize = 2;
    #[inline]
    fn from_base(b: Goldilocks) -> Self {
        Self::new(b, Goldilocks::ZERO)
    }
    #[inline]
    fn coeff(&self, i: usize) -> Goldilocks {
        if i == 0 {
            self.c0
        } else {
            self.c1
        }
    }
    #[inline]
    fn from_coeffs(c: &[Goldilocks]) -> Self {
        Self::new(c[0], c[1])
    }
    #[inline]
    fn mul_base(&self, b: Goldilocks) -> Self {
        Self::new(self.c0 * b, self.c1 * b)
    }
}

impl ExtensionOf<Goldilocks> for GoldilocksExt3 {
    const DEGREE: usize = 3;
    #[inline]
    fn from_base(b: Goldilocks) -> Self {
        Self::new(b, Goldilocks::ZERO, Goldilocks::ZERO)
    }
    #[inline]
    fn coeff(&self, i: usize) -> Goldilocks {
        self.c[i]
    }
    #[inline]
    fn from_coeffs(c: &[Goldilocks]) -> Self {
        Self::new(c[0], c[1], c[2])
    }
    #[inline]
    fn mul_base(&self, b: Goldilocks) -> Self {
        Self::new(self.c[0] * b, self.c[1] * b, self.c[2] * b)
    }
    #[inline]
    fn dot(pairs: impl Iterator<Item = (Self, Self)>) -> Self {
        fastzk_field::sum_of_ext3_products(pairs)
    }
    #[inline]
    fn dot_base(pairs: impl Iterator<Item = (Self, Goldilocks)>) -> Self {
        fastzk_field::sum_of_ext3_base_products(pairs)
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
    /// Hide the committed values (random tails, masking rows, salted leaves).
    pub hiding: bool,
}

impl Default for OrionParams {
    /// NoCap's 128 rows, rate 1/4 and one proximity test, hiding; 196 queries instead of
    /// 189 because the random tails raise the rate up to `(1 + 1/16)/4` (the soundness
    /// calculator checks every instance).
    fn default() -> Self {
        Self {
            log_rows: 7,
            log_blowup: 2,
            queries: 196,
            proximity_reps: 1,
            hash: HashKind::Blake3,
            hiding: true,
        }
    }
}

/// A leaf's random salt.
pub type Salt = [u8; 16];

impl OrionParams {
    /// Random coefficients encoded after each row's values.
    pub fn tails(&self) -> usize {
        if self.hiding {
            self.queries
        } else {
            0
        }
    }

    /// Random rows that enter the proximity combinations.
    pub fn mask_rows(&self, degree: usize) -> usize {
        if self.hiding {
            degree * self.proximity_reps
        } else {
            0
        }
    }

    /// `(log R, log C)` for a polynomial in `num_vars` variables: as many rows as allowed
    /// while there are at least as many columns, and (hiding) at least `16·tails`
    /// columns where the size allows, so that the tails cost little rate — but two rows
    /// from two variables on (a caller may reserve a row).
    pub fn shape(&self, num_vars: usize) -> (usize, usize) {
        let min_log_c = (16 * self.tails()).next_power_of_two().trailing_zeros() as usize;
        let log_rows = (self.log_rows as usize)
            .min(num_vars / 2)
            .min(num_vars.saturating_sub(min_log_c))
            .max(usize::from(num_vars >= 2 && self.log_rows > 0));
        (log_rows, num_vars - log_rows)
    }

    /// The codeword length for rows of `cols` values: `cols·2^log_blowup`, doubled while
    /// the tails push the rate more than 1/16 above `2^−log_blowup`.
    pub fn code_len(&self, cols: usize) -> usize {
        let scaled = (cols + self.tails()) << self.log_blowup;
        let mut n = cols << self.log_blowup;
        while scaled * 16 > n * 17 {
            n *= 2;
        }
        n
    }

    /// The code's rate for rows of `cols` values: `(cols + tails) / code_len`.
    pub fn rate(&self, cols: usize) -> f64 {
        (cols + self.tails()) as f64 / self.code_len(cols) as f64
    }
}

/// Encodes each row of the row-major `messages` (rows of `k` values) into `n` symbols:
/// zero-padded to `n`, then one NTT (a Reed–Solomon code of dimension `k`).
pub fn encode_rows<F: NttField>(messages: &[F], k: usize, n: usize) -> Result<Vec<F>, PcsError> {
    let mut padded = vec![F::ZERO; messages.len() / k.max(1) * n];
    padded
        .par_chunks_mut(n)
        .zip(messages.par_chunks(k.max(1)))
        .for_each(|(o, m)| o[..m.len()].copy_from_slice(m));
    let domain = Radix2Domain::<F>::cached(n.trailing_zeros())?;
    domain.forward_batch(&mut padded, Order::Natural, Order::Natural)?;
    Ok(padded)
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
    /// Committed rows (the masking rows apart).
    rows: usize,
    /// Every row's message (the blocks' rows, then the masking rows), each `C + tails`
    /// long, row-major.
    messages: Vec<F>,
    /// The encoded rows, each `width` long, row-major (columns are read strided: no
    /// transposed copy).
    encoded: Vec<F>,
    width: usize,
    salts: Vec<Salt>,
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
    /// Their leaves' salts (hiding only).
    pub salts: Vec<Salt>,
    pub merkle: MultiProof,
}

/// A column's leaf digest, salted when hiding.
fn leaf<F: PrimeField>(kind: HashKind, salt: Option<&Salt>, col: &[F]) -> Digest {
    let mut bytes = Vec::with_capacity(16 + col.len() * F::BYTES);
    if let Some(s) = salt {
        bytes.extend_from_slice(s);
    }
    col.iter().for_each(|x| x.extend_le_bytes(&mut bytes));
    merkle::hash_leaf(kind, &bytes)
}

/// The dimensions both sides derive from the parameters, the polynomial size and the
/// number of committed rows.
#[derive(Clone, Copy)]
struct Dims {
    log_c: usize,
    cols: usize,
    /// Row message length `cols + tails`.
    k: usize,
    /// Codeword length.
    width: usize,
    /// All rows: the committed ones and the masking rows.
    height: usize,
}

fn dims(params: &OrionParams, num_vars: usize, rows: usize, degree: usize) -> Dims {
    let (_, log_c) = params.shape(num_vars);
    let cols = 1usize << log_c;
    Dims {
        log_c,
        cols,
        k: cols + params.tails(),
        width: params.code_len(cols),
        height: rows + params.mask_rows(degree),
    }
}

/// The row weights and column point for `Σ_b β_b·f_b(point)` over polynomials `f_b` of
/// `point.len()` variables committed one after the other.
pub fn block_weights<E: Field>(params: &OrionParams, betas: &[E], point: &[E]) -> (Vec<E>, Vec<E>) {
    let (log_r, _) = params.shape(point.len());
    let eq_row = eq_table(&point[..log_r]);
    let weights = betas
        .iter()
        .flat_map(|b| eq_row.iter().map(move |e| *b * *e))
        .collect();
    (weights, point[log_r..].to_vec())
}

/// What a commitment hands its [`Encoder`]: every row's message and how the columns of
/// their codewords are hashed.
#[derive(Clone, Copy)]
pub struct Rows<'a, F> {
    /// Rows of `k` values, row-major.
    pub messages: &'a [F],
    pub k: usize,
    /// The codeword length (a power of two, at least `k`).
    pub width: usize,
    pub hash: HashKind,
    /// One per column when hiding, none otherwise.
    pub salts: &'a [Salt],
}

/// How a commitment's rows become codewords and a Merkle tree: each row's Reed–Solomon
/// codeword of `width` values — the radix-2 NTT (natural order in and out) of the row
/// padded with zeros — row-major, and the tree whose leaf `j` hashes column `j`
/// ([`column_leaves`]). [`commit`] does both on the CPU ([`encode_and_hash`]); a prover
/// on a device passes its own ([`commit_with`]), so the codewords are hashed where they
/// were made.
pub type Encoder<'a, F> =
    &'a (dyn Fn(&Rows<'_, F>) -> Result<(Vec<F>, MerkleTree), PcsError> + Sync);

/// The CPU's [`Encoder`]: [`encode_rows`], then the tree over [`column_leaves`].
pub fn encode_and_hash<F: NttField>(rows: &Rows<'_, F>) -> Result<(Vec<F>, MerkleTree), PcsError> {
    let encoded = encode_rows(rows.messages, rows.k, rows.width)?;
    let leaves = column_leaves(rows.hash, &encoded, rows.width, rows.salts);
    Ok((encoded, MerkleTree::new(rows.hash, leaves)?))
}

/// The leaf digests of the columns of the row-major matrix with rows of `width` values:
/// leaf `j` hashes `salts[j]` (when there are salts) and column `j`'s elements as
/// little-endian bytes, top to bottom (a trailing partial row is not part of the matrix).
pub fn column_leaves<F: PrimeField>(
    kind: HashKind,
    matrix: &[F],
    width: usize,
    salts: &[Salt],
) -> Vec<Digest> {
    // A block of consecutive columns is copied out row by row (each row's part is
    // contiguous) and then hashed column by column: gathering one column at a time
    // touched a page per row, which cost seconds for tall matrices (Spark's).
    const BLOCK: usize = 64;
    let height = matrix.len() / width.max(1);
    (0..width.div_ceil(BLOCK))
        .into_par_iter()
        .flat_map_iter(|b| {
            let cols = b * BLOCK..((b + 1) * BLOCK).min(width);
            let w = cols.len();
            let mut block = vec![F::ZERO; w * height];
            for (i, row) in matrix.chunks_exact(width).enumerate() {
                for (k, x) in row[cols.clone()].iter().enumerate() {
                    block[k * height + i] = *x;
                }
            }
            let leaves: Vec<Digest> = if height == 0 {
                cols.map(|j| leaf::<F>(kind, salts.get(j), &[])).collect()
            } else {
                block
                    .chunks(height)
                    .zip(cols)
                    .map(|(col, j)| leaf(kind, salts.get(j), col))
                    .collect()
            };
            leaves
        })
        .collect()
}

/// Commits to `rows` (each slice holding whole rows of `C` values, `C` the column count
/// of a polynomial in `num_vars` variables — [`OrionParams::shape`]); `rng` supplies the
/// hiding randomness (unused otherwise).
pub fn commit<F: NttField, E: ExtensionOf<F>, R: RngCore + ?Sized>(
    params: &OrionParams,
    num_vars: usize,
    rows: &[&[F]],
    rng: &mut R,
) -> Result<Committed<F>, PcsError> {
    commit_with::<F, E, R>(params, num_vars, rows, rng, &encode_and_hash)
}

/// [`commit`] with the rows encoded and their columns hashed by `encode`.
pub fn commit_with<F: NttField, E: ExtensionOf<F>, R: RngCore + ?Sized>(
    params: &OrionParams,
    num_vars: usize,
    rows: &[&[F]],
    rng: &mut R,
    encode: Encoder<'_, F>,
) -> Result<Committed<F>, PcsError> {
    let d0 = dims(params, num_vars, 0, E::DEGREE);
    if num_vars >= usize::BITS as usize || rows.iter().any(|r| r.len() % d0.cols != 0) {
        return Err(PcsError::Shape(format!(
            "rows of 2^{} values expected, got slices of {:?} values",
            d0.log_c,
            rows.iter().map(|r| r.len()).collect::<Vec<_>>()
        )));
    }
    let n_rows: usize = rows.iter().map(|r| r.len() / d0.cols).sum();
    if n_rows == 0 {
        return Err(PcsError::Shape("nothing to commit to".into()));
    }
    let d = dims(params, num_vars, n_rows, E::DEGREE);
    let mut messages = vec![F::ZERO; d.height * d.k];
    let all_rows = rows.iter().flat_map(|b| b.chunks(d.cols));
    for (m, row) in messages.chunks_mut(d.k).zip(all_rows) {
        m[..d.cols].copy_from_slice(row);
        m[d.cols..].iter_mut().for_each(|x| *x = F::random(rng));
    }
    messages[n_rows * d.k..]
        .iter_mut()
        .for_each(|x| *x = F::random(rng));
    let salts: Vec<Salt> = if params.hiding {
        (0..d.width)
            .map(|_| {
                let mut s = [0u8; 16];
                rng.fill_bytes(&mut s);
                s
            })
            .collect()
    } else {
        Vec::new()
    };
    let (encoded, tree) = encode(&Rows {
        messages: &messages,
        k: d.k,
        width: d.width,
        hash: params.hash,
        salts: &salts,
    })?;
    if encoded.len() != d.height * d.width {
        return Err(PcsError::Encode(format!(
            "{} values from the encoder, {} expected",
            encoded.len(),
            d.height * d.width
        )));
    }
    if tree.leaves() != d.width || tree.kind() != params.hash {
        return Err(PcsError::Encode(format!(
            "a {:?} tree of {} leaves from the encoder, a {:?} tree of {} expected",
            tree.kind(),
            tree.leaves(),
            params.hash,
            d.width
        )));
    }
    Ok(Committed {
        commitment: Commitment {
            root: tree.root(),
            num_vars,
        },
        rows: n_rows,
        messages,
        encoded,
        width: d.width,
        salts,
        tree,
    })
}

/// Column `j` of the row-major matrix with rows of `width` values.
fn column<F: Copy>(encoded: &[F], width: usize, j: usize) -> Vec<F> {
    encoded.iter().skip(j).step_by(width).copied().collect()
}

/// `wᵀ·M` for the row-major matrix `m` with rows of `k` values (`w` may be shorter than
/// the row count: the remaining rows get weight zero).
pub fn combine_rows<F: NttField, E: ExtensionOf<F>>(
    m: &[F],
    k: usize,
    w: &[E],
) -> Result<Vec<E>, PcsError> {
    Ok((0..k)
        .into_par_iter()
        .with_min_len(256)
        .map(|j| E::dot_base(w.iter().enumerate().map(|(i, wi)| (*wi, m[i * k + j]))))
        .collect())
}

/// How an opening combines the committed rows: `combine(messages, k, w)` is `wᵀ·M` for
/// the row-major messages `M` with rows of `k` values, `w` at most as long as the row
/// count ([`combine_rows`]'s contract). [`open`] combines on the CPU; a prover on a
/// device passes its own ([`open_with`]).
pub type Combiner<'a, F, E> = &'a (dyn Fn(&[F], usize, &[E]) -> Result<Vec<E>, PcsError> + Sync);

/// `⟨w, col⟩` for one opened column.
fn combine_column<F: NttField, E: ExtensionOf<F>>(col: &[F], w: &[E]) -> E {
    E::dot_base(w.iter().copied().zip(col.iter().copied()))
}

/// The codeword (length `width`) of an extension-field message, coordinate by
/// coordinate.
fn encode_ext<F: NttField, E: ExtensionOf<F>>(msg: &[E], width: usize) -> Result<Vec<E>, PcsError> {
    let coords: Vec<F> = (0..E::DEGREE)
        .flat_map(|d| msg.iter().map(move |x| x.coeff(d)))
        .collect();
    let parts = encode_rows(&coords, msg.len(), width)?;
    Ok((0..width)
        .map(|q| {
            let c: Vec<F> = (0..E::DEGREE).map(|d| parts[d * width + q]).collect();
            E::from_coeffs(&c)
        })
        .collect())
}

/// The challenges both sides derive: `γ_k` after the point, query columns after the
/// prover's vectors.
fn gammas<F: NttField, E: ExtensionOf<F>>(
    params: &OrionParams,
    row_weights: &[E],
    col_point: &[E],
    value: E,
    rows: usize,
    t: &mut Transcript,
) -> Vec<Vec<E>> {
    t.append_elements(b"orion row weights", row_weights);
    t.append_elements(b"orion column point", col_point);
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

/// Proves the value `Σ_i w_i·⟨row_i, eq(col_point)⟩` of the committed rows, with the
/// caller's `row_weights` `w` (one per committed row); returns it with the proof.
pub fn open<F: NttField, E: ExtensionOf<F>>(
    params: &OrionParams,
    data: &Committed<F>,
    row_weights: &[E],
    col_point: &[E],
    transcript: &mut Transcript,
) -> Result<(E, EvalProof<F, E>), PcsError> {
    open_with(
        params,
        data,
        row_weights,
        col_point,
        transcript,
        &combine_rows,
    )
}

/// [`open`] with the rows combined by `combine`.
pub fn open_with<F: NttField, E: ExtensionOf<F>>(
    params: &OrionParams,
    data: &Committed<F>,
    row_weights: &[E],
    col_point: &[E],
    transcript: &mut Transcript,
    combine: Combiner<'_, F, E>,
) -> Result<(E, EvalProof<F, E>), PcsError> {
    let d = dims(params, data.commitment.num_vars, data.rows, E::DEGREE);
    if col_point.len() != d.log_c || row_weights.len() != data.rows {
        return Err(PcsError::Shape(format!(
            "{} row weights and a column point of {} coordinates, for {} rows of 2^{} values",
            row_weights.len(),
            col_point.len(),
            data.rows,
            d.log_c
        )));
    }
    let eq_col = eq_table(col_point);
    let combined = |w: &[E]| -> Result<Vec<E>, PcsError> {
        let v = combine(&data.messages, d.k, w)?;
        if v.len() != d.k {
            return Err(PcsError::Shape(format!(
                "{} values from the combiner, {} expected",
                v.len(),
                d.k
            )));
        }
        Ok(v)
    };
    let u = combined(row_weights)?;
    let value: E = u.iter().zip(&eq_col).map(|(a, b)| *a * *b).sum();
    let gs = gammas::<F, E>(params, row_weights, col_point, value, d.height, transcript);
    let combos = gs
        .iter()
        .map(|g| combined(g))
        .collect::<Result<Vec<Vec<E>>, PcsError>>()?;
    let q = queries(params, &combos, &u, d.width, transcript);
    let columns = q
        .iter()
        .map(|&j| column(&data.encoded, data.width, j))
        .collect();
    let salts = q
        .iter()
        .filter_map(|&j| data.salts.get(j).copied())
        .collect();
    let merkle = data.tree.open(&q)?;
    Ok((
        value,
        EvalProof {
            combos,
            row_eval: u,
            columns,
            salts,
            merkle,
        },
    ))
}

/// Checks that the committed rows satisfy `Σ_i w_i·⟨row_i, eq(col_point)⟩ = value`
/// (`row_weights` has one weight per committed row).
pub fn verify<F: NttField, E: ExtensionOf<F>>(
    params: &OrionParams,
    commitment: &Commitment,
    row_weights: &[E],
    col_point: &[E],
    value: E,
    proof: &EvalProof<F, E>,
    transcript: &mut Transcript,
) -> Result<(), PcsError> {
    let bad = |why: String| Err(PcsError::Rejected(why));
    if commitment.num_vars >= usize::BITS as usize {
        return bad(format!("a polynomial of {} variables", commitment.num_vars));
    }
    let d = dims(params, commitment.num_vars, row_weights.len(), E::DEGREE);
    if col_point.len() != d.log_c || row_weights.is_empty() {
        return bad(format!(
            "a column point of {} coordinates for rows of 2^{} values, {} row weights",
            col_point.len(),
            d.log_c,
            row_weights.len()
        ));
    }
    if proof.combos.len() != params.proximity_reps
        || proof.combos.iter().any(|v| v.len() != d.k)
        || proof.row_eval.len() != d.k
    {
        return bad("vectors of the wrong length".into());
    }
    let eq_col = eq_table(col_point);
    let gs = gammas::<F, E>(params, row_weights, col_point, value, d.height, transcript);
    let q = queries(params, &proof.combos, &proof.row_eval, d.width, transcript);
    let salts_expected = if params.hiding { q.len() } else { 0 };
    if proof.columns.len() != q.len()
        || proof.columns.iter().any(|c| c.len() != d.height)
        || proof.salts.len() != salts_expected
    {
        return bad("wrong number or size of opened columns or salts".into());
    }
    let leaves: Vec<(usize, Digest)> = q
        .iter()
        .zip(&proof.columns)
        .enumerate()
        .map(|(i, (&j, c))| (j, leaf(params.hash, proof.salts.get(i), c)))
        .collect();
    let depth = d.width.trailing_zeros() as usize;
    merkle::verify(params.hash, &commitment.root, depth, &leaves, &proof.merkle)?;
    let enc_u = encode_ext::<F, E>(&proof.row_eval, d.width)?;
    let enc_v: Vec<Vec<E>> = proof
        .combos
        .iter()
        .map(|v| encode_ext::<F, E>(v, d.width))
        .collect::<Result<_, _>>()?;
    for (&j, col) in q.iter().zip(&proof.columns) {
        for (k, (g, enc)) in gs.iter().zip(&enc_v).enumerate() {
            if combine_column(col, g) != enc[j] {
                return bad(format!("proximity combination {k} disagrees at column {j}"));
            }
        }
        if combine_column(col, row_weights) != enc_u[j] {
            return bad(format!("row evaluation disagrees at column {j}"));
        }
    }
    let y: E = proof.row_eval[..d.cols]
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
        for params in [
            OrionParams::default(),
            OrionParams {
                hiding: false,
                ..OrionParams::default()
            },
        ] {
            let mut r = rng(11);
            let evals: Vec<Goldilocks> = (0..1 << 12).map(|_| Goldilocks::random(&mut r)).collect();
            let mut data = commit::<_, GoldilocksExt2, _>(&params, 12, &[&evals], &mut r).unwrap();
            let d = dims(&params, 12, 1 << params.shape(12).0, 2);
            for j in (0..d.width).filter(|j| j % 5 < 2) {
                data.encoded[j] += Goldilocks::ONE;
            }
            let leaves = (0..d.width)
                .map(|j| {
                    leaf(
                        params.hash,
                        data.salts.get(j),
                        &column(&data.encoded, d.width, j),
                    )
                })
                .collect();
            data.tree = MerkleTree::new(params.hash, leaves).unwrap();
            data.commitment.root = data.tree.root();
            let point: Vec<GoldilocksExt2> =
                (0..12).map(|_| GoldilocksExt2::random(&mut r)).collect();
            let (w, col) = block_weights(&params, &[GoldilocksExt2::ONE], &point);
            let mut tp = Transcript::new(params.hash, b"t");
            let (value, proof) = open(&params, &data, &w, &col, &mut tp).unwrap();
            let mut tv = Transcript::new(params.hash, b"t");
            let err =
                verify(&params, &data.commitment, &w, &col, value, &proof, &mut tv).unwrap_err();
            assert!(matches!(err, PcsError::Rejected(_)), "{err}");
        }
    }

    /// The tails keep the rate within 1/16 of `2^−log_blowup` at every size.
    #[test]
    fn code_length_bounds_the_rate() {
        let params = OrionParams::default();
        for n in 0..26 {
            let (_, log_c) = params.shape(n);
            let rate = params.rate(1 << log_c);
            assert!(rate <= 0.25 * 17.0 / 16.0 + 1e-12, "n={n} rate={rate}");
            assert!(params.code_len(1 << log_c) >= (1 << log_c) + params.tails());
        }
        let plain = OrionParams {
            hiding: false,
            ..params
        };
        assert_eq!(plain.code_len(1 << 10), 1 << 12);
        assert_eq!(plain.rate(1 << 10), 0.25);
    }
}
