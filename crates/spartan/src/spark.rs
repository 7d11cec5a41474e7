//! Spark (Spartan §7): a commitment to the R1CS matrices, made once by `setup`, and the
//! proof of `M(r_x, r_y) = Σ_m w_m·M_m(r_x, r_y)` against it, so that the verifier of
//! the SNARK mode never reads the matrices.
//!
//! **Setup.** The nonzero positions of `A`, `B` and `C` are merged (one entry per
//! position, with its three values) and padded to `N = 2^log_n` entries; an entry `k` has
//! a constraint `row_k`, a column `col_k` (in the prover's column layout) and values
//! `a_k`, `b_k`, `c_k`. Reading `eq(r_x, ·)` at `row_k` for `k = 0, 1, …` is a memory
//! trace: `ts_row_k` counts the earlier reads of the same address and `final_row_i` the
//! reads of address `i` (and so for columns). Committed, without hiding (the matrices are
//! public): the seven `N`-entry tables `row, col, a, b, c, ts_row, ts_col` under one
//! root, and the two memory tables `final_row`, `final_col` of `2^log_mem` entries
//! (`log_mem = max(log_rows, log_cols)`; rows and columns share one memory size so that
//! their products run together) under another.
//!
//! **Evaluation proof.** The prover commits to `e_row_k = eq(r_x, row_k)` and
//! `e_col_k = eq(r_y, col_k)` (their `DEGREE` base-field coordinates) and proves
//! `v = Σ_k (w_A·a_k + w_B·b_k + w_C·c_k)·e_row_k·e_col_k` by a sumcheck of degree 3.
//! That `e_row` holds the right values is offline memory checking: with random `γ`, `τ`
//! drawn after the commitment, and `h(a, v, t) = γ²·a + γ·v + t − τ`,
//! `Π Init · Π WS = Π RS · Π Final`, where `Init_i = h(i, eq(r_x, i), 0)`,
//! `Final_i = h(i, eq(r_x, i), final_i)`, `RS_k = h(row_k, e_row_k, ts_row_k)`,
//! `WS_k = RS_k + 1`. The eight products are proved by layered sumchecks (`RS`, `WS` for
//! rows and columns together, `Init`, `Final` together), which end in claims about the
//! leaves at random points `q` (entries) and `q_m` (memory). The verifier computes
//! `Init` and the memory's `eq(r_x, ·)` at `q_m` itself; the entries' tables at `q` are
//! folded into the evaluation sumcheck (`+ μ·eq(q, k)·Σ_b β_b·f_b(k)`), so that both
//! entry commitments are opened once, at the sumcheck's point, and the memory one at
//! `q_m`.
//!
//! Challenges are in `E` (Goldilocks' cubic extension): one multiset-hash instance is
//! enough where NoCap, over 64 bits, runs four.

use fastzk_field::{Field, NttField};
use fastzk_multilinear::sumcheck::{self, SumcheckProof};
use fastzk_multilinear::{eq_eval, product, ProductProof, Transcript};
use fastzk_pcs::{
    block_weights, Combiner, Commitment, Committed, Encoder, EvalProof, ExtensionOf, OrionParams,
};
use fastzk_r1cs::R1cs;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use std::sync::Arc;

use fastzk_runtime::sumcheck::prove_fused;
use fastzk_runtime::{kernel, prove_grand_products, Arg, Context, FieldVec, KernelField, Sum};

use crate::{LayerExtension, LayerField, Layout, SpartanError, Stopwatch};

/// Tables of the entries' commitment, in order.
const ENTRY_TABLES: usize = 7;
const ROW: usize = 0;
const COL: usize = 1;
const VALS: usize = 2;
const TS_ROW: usize = 5;
const TS_COL: usize = 6;

/// Spark's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SparkShape {
    /// `2^log_n` entries.
    pub log_n: usize,
    /// `2^log_mem` memory cells, for rows and for columns.
    pub log_mem: usize,
    pub log_rows: usize,
    pub log_cols: usize,
}

impl SparkShape {
    /// The sizes agree with each other (a key read from a file may not).
    pub fn is_consistent(&self) -> bool {
        self.log_mem == self.log_rows.max(self.log_cols) && (1..=40).contains(&self.log_n)
    }
}

/// What the verifier of the SNARK mode holds: the shape and the two roots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SparkCommitment {
    pub shape: SparkShape,
    pub entries: Commitment,
    pub memory: Commitment,
}

/// The prover's side: the tables and their commitments.
pub struct SparkKey<F> {
    pub commitment: SparkCommitment,
    rows: Vec<u32>,
    cols: Vec<u32>,
    /// `row, col, a, b, c, ts_row, ts_col` (shared with the layer's vectors, not copied).
    tables: Vec<Arc<Vec<F>>>,
    /// `final_row`, `final_col`.
    finals: [Arc<Vec<F>>; 2],
    entries: Committed<F>,
    memory: Committed<F>,
}

/// The evaluation proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SparkProof<F, E> {
    /// `Σ_m w_m·M_m(r_x, r_y)`.
    pub value: E,
    /// `e_row`, `e_col` (their base-field coordinates).
    pub lookups: Commitment,
    /// `Π RS_row, Π WS_row, Π RS_col, Π WS_col`.
    pub entry_products: [E; 4],
    pub entry_product_proof: ProductProof<E>,
    /// `Π Init_row, Π Final_row, Π Init_col, Π Final_col`.
    pub memory_products: [E; 4],
    pub memory_product_proof: ProductProof<E>,
    /// At `q`: `row, col, ts_row, ts_col`, then `e_row`'s and `e_col`'s coordinates.
    pub leaf_values: Vec<E>,
    /// At `q_m`: `final_row, final_col`.
    pub final_values: [E; 2],
    pub eval: SumcheckProof<E>,
    /// At the sumcheck's point: the seven entry tables, then the lookups' coordinates.
    pub entry_values: Vec<E>,
    pub entries_opening: EvalProof<F, E>,
    pub lookups_opening: EvalProof<F, E>,
    pub memory_opening: EvalProof<F, E>,
}

impl<F: NttField, E: ExtensionOf<F>> SparkProof<F, E> {
    /// Bytes the proof's elements and digests take.
    pub fn size_bytes(&self) -> usize {
        let e = F::BYTES * E::DEGREE;
        let products = |p: &ProductProof<E>| {
            2 * p.top.len()
                + p.layers
                    .iter()
                    .map(|(sc, ends)| crate::sumcheck_elements(sc) + 2 * ends.len())
                    .sum::<usize>()
        };
        32 + e
            * (1 + 8
                + products(&self.entry_product_proof)
                + products(&self.memory_product_proof)
                + self.leaf_values.len()
                + 2
                + crate::sumcheck_elements(&self.eval)
                + self.entry_values.len())
            + [
                &self.entries_opening,
                &self.lookups_opening,
                &self.memory_opening,
            ]
            .into_iter()
            .map(crate::opening_bytes)
            .sum::<usize>()
    }
}

/// Spark's commitments never hide (the matrices, `r_x` and `r_y` are public).
pub(crate) fn public_params(pcs: &OrionParams) -> OrionParams {
    OrionParams {
        hiding: false,
        ..*pcs
    }
}

/// The merged entries `(row, column, [a, b, c])` in row order, columns in the prover's
/// layout.
fn entries<F: NttField>(r1cs: &R1cs<F>, layout: &Layout) -> Vec<(u32, u32, [F; 3])> {
    let mats = [r1cs.a(), r1cs.b(), r1cs.c()];
    (0..r1cs.n_constraints())
        .into_par_iter()
        .flat_map_iter(|i| {
            let mut row: Vec<(u32, [F; 3])> = Vec::new();
            for (m, mat) in mats.iter().enumerate() {
                let (cs, vs) = mat.row(i);
                for (c, v) in cs.iter().zip(vs) {
                    let mut vals = [F::ZERO; 3];
                    vals[m] = *v;
                    row.push((layout.column(*c as usize) as u32, vals));
                }
            }
            row.sort_unstable_by_key(|e| e.0);
            let mut merged: Vec<(u32, u32, [F; 3])> = Vec::with_capacity(row.len());
            for (c, vals) in row {
                match merged.last_mut() {
                    Some(last) if last.1 == c => {
                        (0..3).for_each(|m| last.2[m] += vals[m]);
                    }
                    _ => merged.push((i as u32, c, vals)),
                }
            }
            merged
        })
        .collect()
}

/// Read timestamps of the trace `addrs` over `2^log_mem` cells, and the final counts.
fn timestamps<F: Field>(addrs: &[u32], log_mem: usize) -> (Vec<F>, Vec<F>) {
    let mut count = vec![0u64; 1 << log_mem];
    let read = addrs
        .iter()
        .map(|&a| {
            let c = &mut count[a as usize];
            let t = *c;
            *c += 1;
            F::from_u64(t)
        })
        .collect();
    (read, count.into_iter().map(F::from_u64).collect())
}

/// Preprocesses the matrices (deterministic: anyone can redo it and compare roots).
pub(crate) fn setup<F: NttField, E: ExtensionOf<F>>(
    pcs: &OrionParams,
    r1cs: &R1cs<F>,
    layout: &Layout,
) -> Result<SparkKey<F>, SpartanError> {
    let pcs = public_params(pcs);
    let list = entries(r1cs, layout);
    let log_n = list.len().max(2).next_power_of_two().trailing_zeros() as usize;
    let n = 1usize << log_n;
    let log_mem = layout.log_rows.max(layout.log_cols);
    let mut rows: Vec<u32> = list.iter().map(|e| e.0).collect();
    let mut cols: Vec<u32> = list.iter().map(|e| e.1).collect();
    // Padding entries read cell 0 with value zero.
    rows.resize(n, 0);
    cols.resize(n, 0);
    let values = |m: usize| -> Vec<F> {
        let mut v: Vec<F> = list.par_iter().map(|e| e.2[m]).collect();
        v.resize(n, F::ZERO);
        v
    };
    let (ts_row, final_row) = timestamps::<F>(&rows, log_mem);
    let (ts_col, final_col) = timestamps::<F>(&cols, log_mem);
    let tables = vec![
        rows.iter().map(|&r| F::from_u64(r.into())).collect(),
        cols.iter().map(|&c| F::from_u64(c.into())).collect(),
        values(0),
        values(1),
        values(2),
        ts_row,
        ts_col,
    ];
    // No hiding: the generator is never drawn from.
    let mut no_rng = ChaCha20Rng::from_seed([0; 32]);
    let slices: Vec<&[F]> = tables.iter().map(Vec::as_slice).collect();
    let entries = fastzk_pcs::commit::<F, E, _>(&pcs, log_n, &slices, &mut no_rng)?;
    let tables = tables.into_iter().map(Arc::new).collect();
    let memory =
        fastzk_pcs::commit::<F, E, _>(&pcs, log_mem, &[&final_row, &final_col], &mut no_rng)?;
    Ok(SparkKey {
        commitment: SparkCommitment {
            shape: SparkShape {
                log_n,
                log_mem,
                log_rows: layout.log_rows,
                log_cols: layout.log_cols,
            },
            entries: entries.commitment,
            memory: memory.commitment,
        },
        rows,
        cols,
        tables,
        finals: [Arc::new(final_row), Arc::new(final_col)],
        entries,
        memory,
    })
}

/// Leaf `i = 4x + k` of the entries' products: `RS_row`, `WS_row = RS_row + 1`,
/// `RS_col`, `WS_col` at entry `x` (the fingerprint `γ²·a + γ·v + t − τ` of the read).
#[kernel]
#[allow(clippy::too_many_arguments)]
fn entry_leaves<F: KernelField>(
    i: usize,
    row: &[F::Base],
    col: &[F::Base],
    ts_row: &[F::Base],
    ts_col: &[F::Base],
    e_row: &[F],
    e_col: &[F],
    g1: F,
    g2: F,
    tau: F,
) -> F {
    let x = i / 4;
    let k = i % 4;
    let read = if k < 2 {
        g2.mul_by_base(row[x]) + g1 * e_row[x] + F::lift(ts_row[x])
    } else {
        g2.mul_by_base(col[x]) + g1 * e_col[x] + F::lift(ts_col[x])
    };
    let write = if k % 2 == 1 { F::ONE } else { F::ZERO };
    read - tau + write
}

/// Leaf `i = 4x + k` of the memory's products: `Init_row`, `Final_row`, `Init_col`,
/// `Final_col` at cell `x` (`eq` tables padded with zeros to the memory's size).
#[kernel]
#[allow(clippy::too_many_arguments)]
fn memory_leaves<F: KernelField>(
    i: usize,
    ids: &[F::Base],
    eq_x: &[F],
    eq_y: &[F],
    final_row: &[F::Base],
    final_col: &[F::Base],
    g1: F,
    g2: F,
    tau: F,
) -> F {
    let x = i / 4;
    let k = i % 4;
    let e = if k < 2 { eq_x[x] } else { eq_y[x] };
    let count = if k < 2 { final_row[x] } else { final_col[x] };
    let counted = if k % 2 == 1 { F::lift(count) } else { F::ZERO };
    g2.mul_by_base(ids[x]) + g1 * e - tau + counted
}

/// `w_A·a + w_B·b + w_C·c` at entry `k`.
#[kernel]
fn weighted_values<F: KernelField>(
    k: usize,
    a: &[F::Base],
    b: &[F::Base],
    c: &[F::Base],
    w_a: F,
    w_b: F,
    w_c: F,
) -> F {
    w_a.mul_by_base(a[k]) + w_b.mul_by_base(b[k]) + w_c.mul_by_base(c[k])
}

#[kernel]
fn triple<F: KernelField>(k: usize, a: &[F], b: &[F], c: &[F]) -> F {
    a[k] * b[k] * c[k]
}

#[kernel]
fn scaled_base<F: KernelField>(k: usize, beta: F, v: &[F::Base]) -> F {
    beta.mul_by_base(v[k])
}

#[kernel]
fn plus_times_base<F: KernelField>(k: usize, acc: &[F], beta: F, v: &[F::Base]) -> F {
    acc[k] + beta.mul_by_base(v[k])
}

#[kernel]
fn scaled<F: KernelField>(k: usize, s: F, v: &[F]) -> F {
    s * v[k]
}

/// A round's message `s(0), s(2), s(3)` of the evaluation sumcheck's `a·b·c + d·e` from
/// pair `j` (`prove_fused`'s message kernel).
#[kernel]
#[allow(clippy::too_many_arguments)]
fn eval_message<F: KernelField>(
    j: usize,
    al: &[F],
    ah: &[F],
    bl: &[F],
    bh: &[F],
    cl: &[F],
    ch: &[F],
    dl: &[F],
    dh: &[F],
    el: &[F],
    eh: &[F],
) -> [F; 3] {
    let da = ah[j] - al[j];
    let db = bh[j] - bl[j];
    let dc = ch[j] - cl[j];
    let dd = dh[j] - dl[j];
    let de = eh[j] - el[j];
    let a2 = ah[j] + da;
    let b2 = bh[j] + db;
    let c2 = ch[j] + dc;
    let d2 = dh[j] + dd;
    let e2 = eh[j] + de;
    [
        al[j] * bl[j] * cl[j] + dl[j] * el[j],
        a2 * b2 * c2 + d2 * e2,
        (a2 + da) * (b2 + db) * (c2 + dc) + (d2 + dd) * (e2 + de),
    ]
}

/// Binds pairs `j` and `j + q` of the five tables to `r` (the next round's halves at
/// `j`) and gives the next message's terms from them.
#[kernel]
#[allow(clippy::too_many_arguments)]
fn eval_round<F: KernelField>(
    j: usize,
    al: &[F],
    ah: &[F],
    bl: &[F],
    bh: &[F],
    cl: &[F],
    ch: &[F],
    dl: &[F],
    dh: &[F],
    el: &[F],
    eh: &[F],
    q: usize,
    r: F,
) -> [F; 13] {
    let a0 = al[j] + r * (ah[j] - al[j]);
    let a1 = al[j + q] + r * (ah[j + q] - al[j + q]);
    let b0 = bl[j] + r * (bh[j] - bl[j]);
    let b1 = bl[j + q] + r * (bh[j + q] - bl[j + q]);
    let c0 = cl[j] + r * (ch[j] - cl[j]);
    let c1 = cl[j + q] + r * (ch[j + q] - cl[j + q]);
    let d0 = dl[j] + r * (dh[j] - dl[j]);
    let d1 = dl[j + q] + r * (dh[j + q] - dl[j + q]);
    let e0 = el[j] + r * (eh[j] - el[j]);
    let e1 = el[j + q] + r * (eh[j + q] - el[j + q]);
    let da = a1 - a0;
    let db = b1 - b0;
    let dc = c1 - c0;
    let dd = d1 - d0;
    let de = e1 - e0;
    let a2 = a1 + da;
    let b2 = b1 + db;
    let c2 = c1 + dc;
    let d2 = d1 + dd;
    let e2 = e1 + de;
    [
        a0,
        a1,
        b0,
        b1,
        c0,
        c1,
        d0,
        d1,
        e0,
        e1,
        a0 * b0 * c0 + d0 * e0,
        a2 * b2 * c2 + d2 * e2,
        (a2 + da) * (b2 + db) * (c2 + dc) + (d2 + dd) * (e2 + de),
    ]
}

/// Binds the last pair of each of the five tables.
#[kernel]
#[allow(clippy::too_many_arguments)]
fn eval_last<F: KernelField>(
    j: usize,
    al: &[F],
    ah: &[F],
    bl: &[F],
    bh: &[F],
    cl: &[F],
    ch: &[F],
    dl: &[F],
    dh: &[F],
    el: &[F],
    eh: &[F],
    r: F,
) -> [F; 5] {
    [
        al[j] + r * (ah[j] - al[j]),
        bl[j] + r * (bh[j] - bl[j]),
        cl[j] + r * (ch[j] - cl[j]),
        dl[j] + r * (dh[j] - dl[j]),
        el[j] + r * (eh[j] - el[j]),
    ]
}

/// `γ²·a + γ·v + t − τ`.
#[inline]
fn fingerprint<E: Field>(gamma: [E; 2], tau: E, a: E, v: E, t: E) -> E {
    gamma[1] * a + gamma[0] * v + t - tau
}

/// `eq(r, ·)` on `2^log_mem` cells: `r` padded with leading zeros (zero beyond `2^|r|`).
fn padded<E: Field>(r: &[E], log_mem: usize) -> Vec<E> {
    let mut p = vec![E::ZERO; log_mem - r.len()];
    p.extend_from_slice(r);
    p
}

/// The identity table's extension `Σ_b 2^(n−1−b)·x_b` at `x`.
fn identity_at<E: Field>(x: &[E]) -> E {
    x.iter().fold(E::ZERO, |acc, xi| acc.double() + *xi)
}

/// The extension element from its coordinates' values.
fn from_coordinates<F: NttField, E: ExtensionOf<F>>(coords: &[E]) -> E {
    (0..E::DEGREE)
        .map(|d| {
            let mut unit = vec![F::ZERO; E::DEGREE];
            unit[d] = F::ONE;
            E::from_coeffs(&unit) * coords[d]
        })
        .sum()
}

/// Absorbs `values` (the blocks' values at `point`), draws batching weights, and
/// returns the row weights, the column point and the combined value for one opening.
fn batch_opening<E: Field + fastzk_multilinear::Absorb>(
    pcs: &OrionParams,
    values: &[E],
    point: &[E],
    t: &mut Transcript,
) -> (Vec<E>, Vec<E>, E) {
    t.append_elements(b"spark opened values", values);
    let betas: Vec<E> = t.challenges(b"spark opening batch", values.len());
    let combined = betas.iter().zip(values).map(|(b, v)| *b * *v).sum();
    let (w, c) = block_weights(pcs, &betas, point);
    (w, c, combined)
}

/// Proves `Σ_m weights_m·M_m(r_x, r_y)`, given `eq(r_x, ·)` (the prover has it from
/// `M(r_x, ·)`); returns the proof.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prove<F: LayerField, E: LayerExtension<F>>(
    ctx: &Context,
    pcs: &OrionParams,
    encode: Encoder<'_, F>,
    combine: Combiner<'_, F, E>,
    key: &SparkKey<F>,
    r_x: &[E],
    r_y: &[E],
    weights: [E; 3],
    t: &mut Transcript,
    watch: &mut Stopwatch,
) -> Result<SparkProof<F, E>, SpartanError> {
    let shape = key.commitment.shape;
    if (r_x.len(), r_y.len()) != (shape.log_rows, shape.log_cols) {
        return Err(SpartanError::Runtime(format!(
            "a point of {} + {} coordinates for a Spark key of {} + {}",
            r_x.len(),
            r_y.len(),
            shape.log_rows,
            shape.log_cols
        )));
    }
    // eq(r, ·) on the memory's cells (zero past 2^|r|): looked up, and the memory check's.
    let mut task = ctx.task()?;
    let eq_x = task.eq_table(&padded(r_x, shape.log_mem))?;
    let eq_y = task.eq_table(&padded(r_y, shape.log_mem))?;
    let e_row = task.gather(&eq_x, &key.rows)?;
    let e_col = task.gather(&eq_y, &key.cols)?;
    prove_lookups(
        ctx,
        pcs,
        encode,
        combine,
        key,
        [eq_x, eq_y],
        [e_row, e_col],
        weights,
        t,
        watch,
    )
}

/// The proof with the lookups `e_row`, `e_col` given (the honest ones from [`prove`]; a
/// test gives wrong ones and watches the memory check fail), and `eq(r_x, ·)`,
/// `eq(r_y, ·)` on the memory's `2^log_mem` cells.
#[allow(clippy::too_many_arguments)]
fn prove_lookups<F: LayerField, E: LayerExtension<F>>(
    ctx: &Context,
    pcs: &OrionParams,
    encode: Encoder<'_, F>,
    combine: Combiner<'_, F, E>,
    key: &SparkKey<F>,
    [eq_x, eq_y]: [FieldVec<E>; 2],
    [e_row, e_col]: [FieldVec<E>; 2],
    weights: [E; 3],
    t: &mut Transcript,
    watch: &mut Stopwatch,
) -> Result<SparkProof<F, E>, SpartanError> {
    let pcs = public_params(pcs);
    let shape = key.commitment.shape;
    let n = 1usize << shape.log_n;
    let mut task = ctx.task()?;
    let table = |i: usize| ctx.vec_shared(key.tables[i].clone());
    let tables: Vec<FieldVec<F>> = (0..ENTRY_TABLES).map(table).collect();
    let [w_a, w_b, w_c] = weights.map(Arg::Field);
    let vals = task.map(
        WeightedValues,
        n,
        &[
            Arg::BaseVec(&tables[VALS]),
            Arg::BaseVec(&tables[VALS + 1]),
            Arg::BaseVec(&tables[VALS + 2]),
            w_a,
            w_b,
            w_c,
        ],
    )?;
    let value: E = task.map_reduce(
        Triple,
        Sum,
        n,
        &[Arg::Vec(&vals), Arg::Vec(&e_row), Arg::Vec(&e_col)],
    )?[0];
    t.append_elements(b"spark value", &[value]);

    let coords = |v: &[E]| -> Vec<Vec<F>> {
        (0..E::DEGREE)
            .map(|d| v.par_iter().map(|x| x.coeff(d)).collect())
            .collect()
    };
    let lookup_tables: Vec<Arc<Vec<F>>> = coords(&e_row.host()?)
        .into_iter()
        .chain(coords(&e_col.host()?))
        .map(Arc::new)
        .collect();
    let mut no_rng = ChaCha20Rng::from_seed([0; 32]);
    let slices: Vec<&[F]> = lookup_tables.iter().map(|v| v.as_slice()).collect();
    let lookups =
        fastzk_pcs::commit_with::<F, E, _>(&pcs, shape.log_n, &slices, &mut no_rng, encode)?;
    t.append_bytes(b"spark lookups", &lookups.commitment.root);
    let lookup_tables: Vec<FieldVec<F>> = lookup_tables
        .into_iter()
        .map(|v| ctx.vec_shared(v))
        .collect();
    watch.lap("Spark: lookups e_row, e_col, committed");

    let gamma: E = t.challenge(b"spark gamma");
    let gamma = [gamma, gamma * gamma];
    let tau: E = t.challenge(b"spark tau");
    // The fingerprints of both memory checks, interleaved for the products (four each).
    let fp = [Arg::Field(gamma[0]), Arg::Field(gamma[1]), Arg::Field(tau)];
    let mut args = vec![
        Arg::BaseVec(&tables[ROW]),
        Arg::BaseVec(&tables[COL]),
        Arg::BaseVec(&tables[TS_ROW]),
        Arg::BaseVec(&tables[TS_COL]),
        Arg::Vec(&e_row),
        Arg::Vec(&e_col),
    ];
    args.extend(fp);
    let leaves = task.map(EntryLeaves, 4 * n, &args)?;
    drop(args);
    let (products, entry_product_proof, at_q) = prove_grand_products(&mut task, leaves, 4, t)?;
    let entry_products: [E; 4] = products.try_into().expect("four products");

    let mem = 1usize << shape.log_mem;
    let ids = ctx.vec((0..mem as u64).map(F::from_u64).collect());
    let finals = key.finals.clone().map(|f| ctx.vec_shared(f));
    let mut args = vec![
        Arg::BaseVec(&ids),
        Arg::Vec(&eq_x),
        Arg::Vec(&eq_y),
        Arg::BaseVec(&finals[0]),
        Arg::BaseVec(&finals[1]),
    ];
    args.extend(fp);
    let leaves = task.map(MemoryLeaves, 4 * mem, &args)?;
    drop(args);
    drop((eq_x, eq_y, ids));
    let (products, memory_product_proof, at_qm) = prove_grand_products(&mut task, leaves, 4, t)?;
    let memory_products: [E; 4] = products.try_into().expect("four products");
    watch.lap("Spark: memory-check grand products");

    // The leaves' tables at q, then the memory's at q_m.
    let eq_q = task.eq_table(&at_q.point)?;
    let leaf_tables: Vec<&FieldVec<F>> = [ROW, COL, TS_ROW, TS_COL]
        .iter()
        .map(|&i| &tables[i])
        .chain(&lookup_tables)
        .collect();
    let leaf_values = leaf_tables
        .iter()
        .map(|tb| task.dot_base(&eq_q, tb))
        .collect::<Result<Vec<E>, _>>()?;
    t.append_elements(b"spark leaf values", &leaf_values);
    let eq_qm = task.eq_table(&at_qm.point)?;
    let final_values = [
        task.dot_base(&eq_qm, &finals[0])?,
        task.dot_base(&eq_qm, &finals[1])?,
    ];
    t.append_elements(b"spark final values", &final_values);

    // The evaluation sumcheck, with the leaves' claims at q folded in: `μ` enters as a
    // factor of the `eq(q, ·)` table (the tables' final values are not read).
    let mu: E = t.challenge(b"spark fold");
    let betas: Vec<E> = t.challenges(b"spark leaf batch", leaf_values.len());
    let mut folded = task.map(
        ScaledBase,
        n,
        &[Arg::Field(betas[0]), Arg::BaseVec(leaf_tables[0])],
    )?;
    for (tb, beta) in leaf_tables.iter().zip(&betas).skip(1) {
        let args = [Arg::Vec(&folded), Arg::Field(*beta), Arg::BaseVec(tb)];
        folded = task.map(PlusTimesBase, n, &args)?;
    }
    let eq_q_mu = task.map(Scaled, n, &[Arg::Field(mu), Arg::Vec(&eq_q)])?;
    drop(eq_q);
    let claim = value
        + mu * betas
            .iter()
            .zip(&leaf_values)
            .map(|(b, v)| *b * *v)
            .sum::<E>();
    t.append_elements(b"sumcheck claim", &[claim]);
    let (rounds, r_k, _, _) = prove_fused(
        &mut task,
        [vals, e_row, e_col, eq_q_mu, folded],
        claim,
        t,
        (EvalMessage, EvalRound, EvalLast),
    )?;
    watch.lap("Spark: evaluation sumcheck");
    let eq_k = task.eq_table(&r_k)?;
    let entry_values = tables
        .iter()
        .chain(&lookup_tables)
        .map(|tb| task.dot_base(&eq_k, tb))
        .collect::<Result<Vec<E>, _>>()?;
    let (w, c, _) = batch_opening(&pcs, &entry_values[..ENTRY_TABLES], &r_k, t);
    let (_, entries_opening) = fastzk_pcs::open_with(&pcs, &key.entries, &w, &c, t, combine)?;
    let (w, c, _) = batch_opening(&pcs, &entry_values[ENTRY_TABLES..], &r_k, t);
    let (_, lookups_opening) = fastzk_pcs::open_with(&pcs, &lookups, &w, &c, t, combine)?;
    let (w, c, _) = batch_opening(&pcs, &final_values, &at_qm.point, t);
    let (_, memory_opening) = fastzk_pcs::open_with(&pcs, &key.memory, &w, &c, t, combine)?;
    watch.lap("Spark: three openings");
    Ok(SparkProof {
        value,
        lookups: lookups.commitment,
        entry_products,
        entry_product_proof,
        memory_products,
        memory_product_proof,
        leaf_values,
        final_values,
        eval: SumcheckProof { rounds },
        entry_values,
        entries_opening,
        lookups_opening,
        memory_opening,
    })
}

fn rejected(what: &'static str) -> SpartanError {
    SpartanError::Rejected(what)
}

/// Checks a Spark proof against the setup's commitment; returns the proved
/// `Σ_m weights_m·M_m(r_x, r_y)`.
pub(crate) fn verify<F: NttField, E: ExtensionOf<F>>(
    pcs: &OrionParams,
    key: &SparkCommitment,
    r_x: &[E],
    r_y: &[E],
    proof: &SparkProof<F, E>,
    weights: [E; 3],
    t: &mut Transcript,
) -> Result<E, SpartanError> {
    let pcs = public_params(pcs);
    let shape = key.shape;
    let d = E::DEGREE;
    if !shape.is_consistent()
        || key.entries.num_vars != shape.log_n
        || key.memory.num_vars != shape.log_mem
        || r_x.len() != shape.log_rows
        || r_y.len() != shape.log_cols
        || proof.lookups.num_vars != shape.log_n
        || proof.leaf_values.len() != 4 + 2 * d
        || proof.entry_values.len() != ENTRY_TABLES + 2 * d
    {
        return Err(rejected("Spark proof of the wrong shape"));
    }
    t.append_elements(b"spark value", &[proof.value]);
    t.append_bytes(b"spark lookups", &proof.lookups.root);
    let gamma: E = t.challenge(b"spark gamma");
    let gamma = [gamma, gamma * gamma];
    let tau: E = t.challenge(b"spark tau");

    // The products, and the multiset equalities Init·WS = RS·Final.
    let at_q = product::verify(
        &proof.entry_products,
        shape.log_n,
        &proof.entry_product_proof,
        t,
    )?;
    let at_qm = product::verify(
        &proof.memory_products,
        shape.log_mem,
        &proof.memory_product_proof,
        t,
    )?;
    let [rs_row, ws_row, rs_col, ws_col] = proof.entry_products;
    let [init_row, fin_row, init_col, fin_col] = proof.memory_products;
    if init_row * ws_row != rs_row * fin_row || init_col * ws_col != rs_col * fin_col {
        return Err(rejected("Spark memory check (Init·WS ≠ RS·Final)"));
    }

    // The entries' leaves at q.
    let lv = &proof.leaf_values;
    let e_row_q = from_coordinates::<F, E>(&lv[4..4 + d]);
    let e_col_q = from_coordinates::<F, E>(&lv[4 + d..]);
    let rs_row_q = fingerprint(gamma, tau, lv[0], e_row_q, lv[2]);
    let rs_col_q = fingerprint(gamma, tau, lv[1], e_col_q, lv[3]);
    if at_q.values != [rs_row_q, rs_row_q + E::ONE, rs_col_q, rs_col_q + E::ONE] {
        return Err(rejected("Spark read/write leaves"));
    }
    t.append_elements(b"spark leaf values", lv);
    // The memory's leaves at q_m: Init from r_x, r_y and the identity, Final with the
    // committed counts.
    let qm = &at_qm.point;
    let id = identity_at(qm);
    let init = |r: &[E]| {
        let v = eq_eval(&padded(r, shape.log_mem), qm).expect("same length");
        fingerprint(gamma, tau, id, v, E::ZERO)
    };
    let (ir, ic) = (init(r_x), init(r_y));
    let [fr, fc] = proof.final_values;
    if at_qm.values != [ir, ir + fr, ic, ic + fc] {
        return Err(rejected("Spark init/final leaves"));
    }
    t.append_elements(b"spark final values", &proof.final_values);

    // The evaluation sumcheck with the leaves folded in.
    let mu: E = t.challenge(b"spark fold");
    let betas: Vec<E> = t.challenges(b"spark leaf batch", lv.len());
    let dot = |a: &[E], b: &[E]| a.iter().zip(b).map(|(x, y)| *x * *y).sum::<E>();
    let claim = proof.value + mu * dot(&betas, lv);
    let (r_k, last) = sumcheck::verify(claim, shape.log_n, 3, &proof.eval, t)?;
    let ev = &proof.entry_values;
    let vals = weights[0] * ev[VALS] + weights[1] * ev[VALS + 1] + weights[2] * ev[VALS + 2];
    let e_row = from_coordinates::<F, E>(&ev[ENTRY_TABLES..ENTRY_TABLES + d]);
    let e_col = from_coordinates::<F, E>(&ev[ENTRY_TABLES + d..]);
    let leaves_at_k: Vec<E> = [ROW, COL, TS_ROW, TS_COL]
        .iter()
        .map(|&i| ev[i])
        .chain(ev[ENTRY_TABLES..].iter().copied())
        .collect();
    let eq_qk = eq_eval(&at_q.point, &r_k).expect("same length");
    if last != vals * e_row * e_col + mu * eq_qk * dot(&betas, &leaves_at_k) {
        return Err(rejected("Spark evaluation sumcheck's final check"));
    }

    // The three openings.
    let (w, c, v) = batch_opening(&pcs, &ev[..ENTRY_TABLES], &r_k, t);
    fastzk_pcs::verify(&pcs, &key.entries, &w, &c, v, &proof.entries_opening, t)?;
    let (w, c, v) = batch_opening(&pcs, &ev[ENTRY_TABLES..], &r_k, t);
    fastzk_pcs::verify(&pcs, &proof.lookups, &w, &c, v, &proof.lookups_opening, t)?;
    let (w, c, v) = batch_opening(&pcs, &proof.final_values, qm, t);
    fastzk_pcs::verify(&pcs, &key.memory, &w, &c, v, &proof.memory_opening, t)?;
    Ok(proof.value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SpartanParams;
    use fastzk_field::{bn254, Goldilocks, GoldilocksExt3};
    use fastzk_multilinear::{eq_table, HashKind};
    use fastzk_r1cs::synth::{synthesize, SynthParams};
    use fastzk_testing::gen::rng;

    type Gl = Goldilocks;
    type Gl3 = GoldilocksExt3;

    /// `Σ_m w_m·M_m(r_x, r_y)` straight from the triplets.
    fn naive<F: NttField, E: ExtensionOf<F>>(
        r1cs: &R1cs<F>,
        layout: &Layout,
        r_x: &[E],
        r_y: &[E],
        w: [E; 3],
    ) -> E {
        let (ex, ey) = (eq_table(r_x), eq_table(r_y));
        [r1cs.a(), r1cs.b(), r1cs.c()]
            .iter()
            .zip(w)
            .map(|(m, w)| {
                m.triplets()
                    .map(|(i, c, v)| w * ex[i] * ey[layout.column(c as usize)].mul_base(v))
                    .sum::<E>()
            })
            .sum()
    }

    struct Case<F: NttField, E> {
        layout: Layout,
        r1cs: R1cs<F>,
        key: SparkKey<F>,
        point: (Vec<E>, Vec<E>),
        w: [E; 3],
    }

    fn case<F: NttField, E: ExtensionOf<F>>(
        log: u32,
        n_vars: Option<usize>,
        seed: u64,
    ) -> Case<F, E> {
        let params = SpartanParams::default();
        let mut p = SynthParams::new(log);
        p.n_vars = n_vars;
        let (r1cs, _) = synthesize::<F>(&p, &mut rng(seed)).unwrap();
        let layout = Layout::of::<F, E>(&params, &r1cs);
        let key = setup::<F, E>(&params.pcs, &r1cs, &layout).unwrap();
        let mut g = rng(seed + 100);
        let r_x = (0..layout.log_rows).map(|_| E::random(&mut g)).collect();
        let r_y = (0..layout.log_cols).map(|_| E::random(&mut g)).collect();
        let w = [E::random(&mut g), E::random(&mut g), E::random(&mut g)];
        Case {
            layout,
            r1cs,
            key,
            point: (r_x, r_y),
            w,
        }
    }

    fn transcript() -> Transcript {
        Transcript::new(HashKind::Blake3, b"spark test")
    }

    fn check<F: NttField, E: ExtensionOf<F>>(
        c: &Case<F, E>,
        proof: &SparkProof<F, E>,
    ) -> Result<E, SpartanError> {
        let pcs = SpartanParams::default().pcs;
        let (r_x, r_y) = &c.point;
        verify::<F, E>(
            &pcs,
            &c.key.commitment,
            r_x,
            r_y,
            proof,
            c.w,
            &mut transcript(),
        )
    }

    fn proof<F: LayerField, E: LayerExtension<F>>(c: &Case<F, E>) -> SparkProof<F, E> {
        let pcs = SpartanParams::default().pcs;
        prove::<F, E>(
            &Context::cpu(),
            &pcs,
            &fastzk_pcs::encode_and_hash,
            &fastzk_pcs::combine_rows,
            &c.key,
            &c.point.0,
            &c.point.1,
            c.w,
            &mut transcript(),
            &mut Stopwatch::new(),
        )
        .unwrap()
    }

    #[test]
    fn the_proved_value_is_the_matrices_at_the_point() {
        for (log, n_vars, seed) in [
            (2, None, 1),
            (5, None, 2),
            (9, Some(40), 3),
            (9, Some(3000), 4),
            (11, None, 5),
        ] {
            let c = case::<Gl, Gl3>(log, n_vars, seed);
            let p = proof(&c);
            let expected = naive(&c.r1cs, &c.layout, &c.point.0, &c.point.1, c.w);
            assert_eq!(p.value, expected);
            assert_eq!(check(&c, &p).unwrap(), expected);
            let c = case::<bn254::Fr, bn254::Fr>(log, n_vars, seed);
            let p = proof(&c);
            assert_eq!(
                check(&c, &p).unwrap(),
                naive(&c.r1cs, &c.layout, &c.point.0, &c.point.1, c.w)
            );
        }
    }

    #[test]
    fn setup_is_deterministic() {
        let (a, b) = (case::<Gl, Gl3>(8, None, 7), case::<Gl, Gl3>(8, None, 7));
        assert_eq!(a.key.commitment, b.key.commitment);
    }

    #[test]
    fn a_wrong_lookup_fails_the_memory_check() {
        let c = case::<Gl, Gl3>(7, None, 11);
        let pcs = SpartanParams::default().pcs;
        let (r_x, r_y) = &c.point;
        let (eq_x, eq_y) = (eq_table(r_x), eq_table(r_y));
        let ctx = Context::cpu();
        let log_mem = c.key.commitment.shape.log_mem;
        let memory_eq = |r: &[Gl3]| ctx.vec(eq_table(&padded(r, log_mem)));
        for (which, k) in [(0, 0), (0, 5), (1, 3)] {
            let mut e_row: Vec<Gl3> = c.key.rows.iter().map(|&r| eq_x[r as usize]).collect();
            let mut e_col: Vec<Gl3> = c.key.cols.iter().map(|&r| eq_y[r as usize]).collect();
            // Another cell's value: what a prover wanting another M(r_x, r_y) would read.
            if which == 0 {
                e_row[k] = eq_x[(c.key.rows[k] as usize + 1) % eq_x.len()];
            } else {
                e_col[k] += Gl3::ONE;
            }
            let p = prove_lookups::<Gl, Gl3>(
                &ctx,
                &pcs,
                &fastzk_pcs::encode_and_hash,
                &fastzk_pcs::combine_rows,
                &c.key,
                [memory_eq(r_x), memory_eq(r_y)],
                [ctx.vec(e_row), ctx.vec(e_col)],
                c.w,
                &mut transcript(),
                &mut Stopwatch::new(),
            )
            .unwrap();
            let err = check(&c, &p).unwrap_err();
            assert!(err.to_string().contains("memory check"), "{err}");
        }
    }

    #[test]
    fn every_part_of_a_proof_is_bound() {
        let c = case::<Gl, Gl3>(6, None, 13);
        let honest = proof(&c);
        check(&c, &honest).unwrap();
        let one = Gl3::ONE;
        let mut tampered: Vec<(&str, SparkProof<Gl, Gl3>)> = Vec::new();
        let mut t = |name, f: &dyn Fn(&mut SparkProof<Gl, Gl3>)| {
            let mut p = honest.clone();
            f(&mut p);
            tampered.push((name, p));
        };
        t("value", &|p| p.value += one);
        t("lookups root", &|p| p.lookups.root[0] ^= 1);
        for i in 0..4 {
            t("entry product", &move |p| p.entry_products[i] += one);
            t("memory product", &move |p| p.memory_products[i] += one);
            t("entry product top", &move |p| {
                p.entry_product_proof.top[i][1] += one
            });
            t("memory product top", &move |p| {
                p.memory_product_proof.top[i][0] += one
            });
        }
        for l in 0..honest.entry_product_proof.layers.len() {
            t("entry layer round", &move |p| {
                p.entry_product_proof.layers[l].0.rounds[0][1] += one
            });
            t("entry layer end", &move |p| {
                p.entry_product_proof.layers[l].1[2][1] += one
            });
        }
        for l in 0..honest.memory_product_proof.layers.len() {
            t("memory layer round", &move |p| {
                p.memory_product_proof.layers[l].0.rounds[0][2] += one
            });
            t("memory layer end", &move |p| {
                p.memory_product_proof.layers[l].1[0][0] += one
            });
        }
        for i in 0..honest.leaf_values.len() {
            t("leaf value", &move |p| p.leaf_values[i] += one);
        }
        for i in 0..2 {
            t("final value", &move |p| p.final_values[i] += one);
        }
        for r in 0..honest.eval.rounds.len() {
            t("eval round", &move |p| p.eval.rounds[r][0] += one);
        }
        for i in 0..honest.entry_values.len() {
            t("entry value", &move |p| p.entry_values[i] += one);
        }
        for (name, get) in [
            (
                "entries opening",
                (|p| &mut p.entries_opening)
                    as fn(&mut SparkProof<Gl, Gl3>) -> &mut EvalProof<Gl, Gl3>,
            ),
            ("lookups opening", |p| &mut p.lookups_opening),
            ("memory opening", |p| &mut p.memory_opening),
        ] {
            t(name, &move |p| get(p).row_eval[0] += one);
            t(name, &move |p| get(p).combos[0][1] += one);
            t(name, &move |p| get(p).columns[0][0] += Gl::ONE);
            t(name, &move |p| get(p).merkle.siblings[0][0] ^= 1);
        }
        for (name, p) in tampered {
            assert!(check(&c, &p).is_err(), "tampered {name} accepted");
        }
        // Another circuit's key.
        let other = case::<Gl, Gl3>(6, None, 14);
        let c2 = Case {
            key: other.key,
            ..c
        };
        assert!(check(&c2, &honest).is_err());
    }
}
