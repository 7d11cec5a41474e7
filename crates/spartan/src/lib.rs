//! Spartan (Setty, CRYPTO 2020) over R1CS with the Orion/Shockwave Reed–Solomon
//! commitment: the hash-based SNARK NoCap accelerates, in its NIZK form (the verifier
//! reads the R1CS itself and evaluates the matrices' extensions in `O(nnz)`).
//!
//! For `A·z ∘ B·z = C·z` with `z = (1, public, private)` (circom's order):
//!
//! 1. The private part `W` is committed (Orion); `Z(y) = (1 − y_0)·W(y') + y_0·IO(y')`,
//!    where `IO = (1, public, 0, …)` is known to the verifier.
//! 2. **Outer sumcheck** over the constraint index: `Σ_x eq(τ, x)·(Az(x)·Bz(x) − Cz(x)) = 0`
//!    (degree 3) for a random `τ`; it ends at `r_x` with the claimed `Az(r_x)`, `Bz(r_x)`,
//!    `Cz(r_x)`.
//! 3. **Inner sumcheck** over the variable index: `Σ_y M(r_x, y)·Z(y) = r_A·Az(r_x) +
//!    r_B·Bz(r_x) + r_C·Cz(r_x)` with `M = r_A·A + r_B·B + r_C·C` (degree 2); it ends at
//!    `r_y`, where the verifier evaluates `M(r_x, r_y)` from the R1CS, `IO(r_y')` from the
//!    public inputs, and `W(r_y')` through the commitment's opening.
//!
//! Every challenge is drawn in `E` (Goldilocks' cubic extension, or BN254's scalar field
//! itself; the soundness calculator refuses anything under 128 bits); the committed
//! witness and the first round of each sumcheck stay in the base field. Zero knowledge (masked
//! sumchecks and hiding commitments) and the preprocessed SNARK mode (Spark) are not in
//! this version: this proof reveals information about the witness.

use fastzk_field::NttField;
use fastzk_multilinear::sumcheck::{self, SumcheckProof};
use fastzk_multilinear::{eq_eval, eq_table, HashKind, Mle, SumOfProducts, Table, Transcript};
use fastzk_pcs::{Commitment, EvalProof, ExtensionOf, OrionParams};
use fastzk_r1cs::{first_unsatisfied, spmv, Csr, R1cs, R1csError};
use rayon::prelude::*;

pub mod format;
pub mod soundness;
pub use soundness::{soundness, Soundness, TARGET_BITS};

/// Why a proof could not be made, or was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpartanError {
    #[error(transparent)]
    R1cs(#[from] R1csError),
    #[error("commitment: {0}")]
    Pcs(#[from] fastzk_pcs::PcsError),
    #[error("sumcheck: {0}")]
    Sumcheck(#[from] fastzk_multilinear::SumcheckError),
    #[error("{0} public inputs given, the circuit has {1}")]
    PublicCount(usize, usize),
    #[error("proof rejected: {0}")]
    Rejected(&'static str),
    #[error("these parameters give {bits:.1} bits of soundness at this size, below the {target} required (`fastzk spartan params` shows each component)")]
    WeakParameters { bits: f64, target: f64 },
}

/// Refuses parameters under the 128-bit target for this instance.
fn check_soundness<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    layout: &Layout,
) -> Result<(), SpartanError> {
    let s = soundness::<F, E>(params, layout.log_rows, layout.log_cols);
    if s.meets_target() {
        Ok(())
    } else {
        Err(SpartanError::WeakParameters {
            bits: s.bits,
            target: TARGET_BITS,
        })
    }
}

/// The proof system's parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpartanParams {
    pub pcs: OrionParams,
}

impl SpartanParams {
    pub fn hash(&self) -> HashKind {
        self.pcs.hash
    }
}

/// A NIZK proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof<F, E> {
    pub witness: Commitment,
    pub outer: SumcheckProof<E>,
    /// `Az(r_x)`, `Bz(r_x)`, `Cz(r_x)`.
    pub abc: [E; 3],
    pub inner: SumcheckProof<E>,
    /// `W(r_y')`.
    pub witness_eval: E,
    pub opening: EvalProof<F, E>,
}

impl<F: NttField, E: ExtensionOf<F>> Proof<F, E> {
    /// Bytes the proof's elements and digests take (field elements at their canonical
    /// size, `E` as `DEGREE` base elements): what a serialised proof will weigh.
    pub fn size_bytes(&self) -> usize {
        let f = F::BYTES;
        let e = f * E::DEGREE;
        let rounds = |p: &SumcheckProof<E>| p.rounds.iter().map(|r| r.len()).sum::<usize>();
        32 + e * (rounds(&self.outer) + rounds(&self.inner) + 3 + 1)
            + e * (self.opening.combos.iter().map(Vec::len).sum::<usize>()
                + self.opening.row_eval.len())
            + f * self.opening.columns.iter().map(Vec::len).sum::<usize>()
            + 32 * self.opening.merkle.siblings.len()
    }
}

/// How `z` maps onto the `2^log_cols` columns: private variables first (the committed
/// half), then `(1, public)` in the upper half.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    log_rows: usize,
    log_cols: usize,
    n_public: usize,
}

/// `(log2 rows, log2 columns)` Spartan works with for an R1CS of these sizes (`n_vars`
/// counts the constant one): what the soundness calculator takes.
pub fn instance_shape(n_constraints: usize, n_vars: usize, n_public: usize) -> (usize, usize) {
    let n_private = n_vars.saturating_sub(n_public + 1);
    let half = n_private.max(n_public + 1).next_power_of_two();
    (
        n_constraints.max(1).next_power_of_two().trailing_zeros() as usize,
        1 + half.trailing_zeros() as usize,
    )
}

impl Layout {
    fn of<F: NttField>(r1cs: &R1cs<F>) -> Self {
        let (log_rows, log_cols) =
            instance_shape(r1cs.n_constraints(), r1cs.n_vars(), r1cs.n_public());
        Self {
            log_rows,
            log_cols,
            n_public: r1cs.n_public(),
        }
    }

    fn half(&self) -> usize {
        1 << (self.log_cols - 1)
    }

    /// The column of variable `v` of `z`.
    #[inline]
    fn column(&self, v: usize) -> usize {
        if v <= self.n_public {
            self.half() + v
        } else {
            v - self.n_public - 1
        }
    }
}

/// A digest of the R1CS, so the transcript binds the statement: the sizes, then each
/// matrix's rows in chunks hashed in parallel, and the chunk digests hashed in order.
fn r1cs_digest<F: NttField>(r1cs: &R1cs<F>) -> [u8; 32] {
    const ROWS: usize = 1 << 12;
    let mut h = blake3::Hasher::new();
    for n in [r1cs.n_vars(), r1cs.n_public(), r1cs.n_constraints()] {
        h.update(&(n as u64).to_le_bytes());
    }
    let n_rows = r1cs.n_constraints();
    for m in [r1cs.a(), r1cs.b(), r1cs.c()] {
        let chunks: Vec<[u8; 32]> = (0..n_rows.div_ceil(ROWS))
            .into_par_iter()
            .map(|k| {
                let mut buf = Vec::new();
                for i in k * ROWS..((k + 1) * ROWS).min(n_rows) {
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

fn transcript<F: NttField>(params: &SpartanParams, r1cs: &R1cs<F>, public: &[F]) -> Transcript {
    let mut t = Transcript::new(params.hash(), b"fastzk spartan nizk v1");
    // The parameters are part of the statement: a proof made under others must fail.
    let pcs = &params.pcs;
    let mut p = vec![pcs.log_rows as u8, pcs.log_blowup as u8];
    p.extend_from_slice(&(pcs.queries as u64).to_le_bytes());
    p.extend_from_slice(&(pcs.proximity_reps as u64).to_le_bytes());
    t.append_bytes(b"parameters", &p);
    t.append_bytes(b"r1cs", &r1cs_digest(r1cs));
    let mut bytes = Vec::with_capacity(public.len() * F::BYTES);
    public.iter().for_each(|x| x.extend_le_bytes(&mut bytes));
    t.append_bytes(b"public inputs", &bytes);
    t
}

/// `rowᵀ·(r_A·A + r_B·B + r_C·C)`, a table over the columns: each task scatters a
/// range of rows of all three matrices into its own table, and the tables are summed
/// (a shared table would need atomics; one per task costs memory per thread only).
fn combined_columns<F: NttField, E: ExtensionOf<F>>(
    r1cs: &R1cs<F>,
    layout: &Layout,
    row: &[E],
    weights: [E; 3],
) -> Vec<E> {
    let mats: [&Csr<F>; 3] = [r1cs.a(), r1cs.b(), r1cs.c()];
    let n_rows = r1cs.n_constraints();
    let cols = 1usize << layout.log_cols;
    let tasks = rayon::current_num_threads().max(1);
    let per_task = n_rows.div_ceil(tasks).max(1);
    (0..tasks)
        .into_par_iter()
        .map(|k| {
            let mut out = vec![E::ZERO; cols];
            let first = (k * per_task).min(n_rows);
            let last = ((k + 1) * per_task).min(n_rows);
            for (i, &eq_i) in row.iter().enumerate().take(last).skip(first) {
                for (m, w) in mats.iter().zip(&weights) {
                    let (cs, vs) = m.row(i);
                    if cs.is_empty() {
                        continue;
                    }
                    let wr = *w * eq_i;
                    for (c, a) in cs.iter().zip(vs) {
                        out[layout.column(*c as usize)] += wr.mul_base(*a);
                    }
                }
            }
            out
        })
        .reduce_with(|mut a, b| {
            a.par_iter_mut().zip(b).for_each(|(x, y)| *x += y);
            a
        })
        .unwrap_or_else(|| vec![E::ZERO; cols])
}

/// `eq(r, ·)` as the product of two tables over the high and low halves of the index,
/// each `≈ 2^(n/2)` long: cache-resident, where the full table would be read at random.
struct SplitEq<E> {
    hi: Vec<E>,
    lo: Vec<E>,
    lo_bits: usize,
}

impl<E: fastzk_field::Field> SplitEq<E> {
    fn new(r: &[E]) -> Self {
        let h = r.len() / 2;
        Self {
            hi: eq_table(&r[..h]),
            lo: eq_table(&r[h..]),
            lo_bits: r.len() - h,
        }
    }

    #[inline]
    fn at(&self, i: usize) -> E {
        self.hi[i >> self.lo_bits] * self.lo[i & ((1 << self.lo_bits) - 1)]
    }
}

/// `M(r_x, r_y) = Σ_m w_m·Σ_{(i, v, a) ∈ m} a·eq(r_x, i)·eq(r_y, col(v))` straight from
/// the rows, with split `eq` tables (the verifier's `O(nnz)` step).
fn combined_at<F: NttField, E: ExtensionOf<F>>(
    r1cs: &R1cs<F>,
    layout: &Layout,
    r_x: &[E],
    r_y: &[E],
    weights: [E; 3],
) -> E {
    let mats: [&Csr<F>; 3] = [r1cs.a(), r1cs.b(), r1cs.c()];
    let (eq_x, eq_y) = (SplitEq::new(r_x), SplitEq::new(r_y));
    (0..r1cs.n_constraints())
        .into_par_iter()
        .with_min_len(1 << 10)
        .map(|i| {
            mats.iter()
                .zip(&weights)
                .map(|(m, w)| {
                    let (cs, vs) = m.row(i);
                    let dot: E = cs
                        .iter()
                        .zip(vs)
                        .map(|(c, a)| eq_y.at(layout.column(*c as usize)).mul_base(*a))
                        .sum();
                    *w * dot
                })
                .sum::<E>()
                * eq_x.at(i)
        })
        .sum()
}

/// Proves that `z` satisfies `r1cs` (refused, naming the constraint, when it does not).
pub fn prove<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
) -> Result<Proof<F, E>, SpartanError> {
    Ok(prove_timed(params, r1cs, z)?.0)
}

/// Wall time of each prover phase, in order.
pub type Timings = Vec<(&'static str, std::time::Duration)>;

/// [`prove`], with the time each phase took.
pub fn prove_timed<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
) -> Result<(Proof<F, E>, Timings), SpartanError> {
    prove_phases(params, r1cs, z, true)
}

/// [`prove`] without the satisfiability check (only the shape of `z` is checked): for
/// tests of the verifier against a prover that tries to prove a false statement.
#[doc(hidden)]
pub fn prove_unchecked<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
) -> Result<Proof<F, E>, SpartanError> {
    Ok(prove_phases(params, r1cs, z, false)?.0)
}

/// The prover, phase by phase; `check` refuses a witness that does not satisfy the
/// constraints (checked on the `Az`, `Bz`, `Cz` the proof needs anyway).
fn prove_phases<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
    check: bool,
) -> Result<(Proof<F, E>, Timings), SpartanError> {
    let mut timings = Timings::new();
    let mut clock = std::time::Instant::now();
    let mut lap = |name: &'static str, timings: &mut Timings| {
        timings.push((name, clock.elapsed()));
        clock = std::time::Instant::now();
    };
    r1cs.check_witness_shape(z)?;
    let layout = Layout::of(r1cs);
    check_soundness::<F, E>(params, &layout)?;
    let rows = 1usize << layout.log_rows;
    let pad = |mut v: Vec<F>| {
        v.resize(rows, F::ZERO);
        v
    };
    let az = pad(spmv(r1cs.a(), z));
    let bz = pad(spmv(r1cs.b(), z));
    let cz = pad(spmv(r1cs.c(), z));
    if check {
        if let Some(index) = first_unsatisfied(&az, &bz, &cz) {
            return Err(R1csError::Unsatisfied { index }.into());
        }
    }
    lap("Az, Bz, Cz (and the witness check)", &mut timings);
    let public = &z[1..=layout.n_public];
    let mut t = transcript(params, r1cs, public);

    let mut w = vec![F::ZERO; layout.half()];
    w[..z.len() - layout.n_public - 1].copy_from_slice(&z[layout.n_public + 1..]);
    lap("transcript (statement digest)", &mut timings);
    let committed = fastzk_pcs::commit(&params.pcs, &w)?;
    t.append_bytes(b"witness commitment", &committed.commitment.root);
    lap("commit to the witness", &mut timings);

    // Outer sumcheck: the products are read from the base-field vectors and lifted on
    // the fly in its first round (NoCap's recomputation), then stored at half size.
    let tau: Vec<E> = t.challenges(b"tau", layout.log_rows);
    let outer_g = outer_polynomial::<E>();
    t.append_elements(b"sumcheck claim", &[E::ZERO]);
    let outer = if layout.log_rows == 0 {
        let lift = |v: &[F]| Table::Dense(Mle::new(vec![E::from_base(v[0])]).expect("one value"));
        let eq = Table::Dense(Mle::new(eq_table(&tau)).expect("one value"));
        sumcheck::prove_rounds(
            vec![eq, lift(&az), lift(&bz), lift(&cz)],
            &outer_g,
            E::ZERO,
            &mut t,
        )?
    } else {
        // Round one in the base field (Az, Bz, Cz are base-field tables; only eq(τ, ·)
        // is in the extension), then the generic rounds on tables of half size.
        let eq = eq_table(&tau);
        let msg = outer_first_round(&eq, &az, &bz, &cz);
        let (r, running) = sumcheck::absorb_round(&msg, E::ZERO, &mut t);
        let mut eq = Mle::new(eq).expect("power of two");
        eq.fix_first_in_place(r).expect("a variable to bind");
        let tables = vec![
            Table::Dense(eq),
            Table::Dense(bind_base(&az, r)),
            Table::Dense(bind_base(&bz, r)),
            Table::Dense(bind_base(&cz, r)),
        ];
        let (mut rounds, mut point, values) =
            sumcheck::prove_rounds(tables, &outer_g, running, &mut t)?;
        rounds.insert(0, msg);
        point.insert(0, r);
        (rounds, point, values)
    };
    let (outer_rounds, outer_point, outer_values) = outer;
    let abc = [outer_values[1], outer_values[2], outer_values[3]];
    t.append_elements(b"abc at r_x", &abc);
    lap("outer sumcheck", &mut timings);

    // Inner sumcheck over the columns.
    let weights: [E; 3] = t.challenges(b"r_abc", 3).try_into().expect("three");
    let m = combined_columns(r1cs, &layout, &eq_table(&outer_point), weights);
    let mut z_cols = vec![F::ZERO; 1 << layout.log_cols];
    for (v, x) in z.iter().enumerate() {
        z_cols[layout.column(v)] = *x;
    }
    lap("combined matrix row M(r_x, ·)", &mut timings);
    let inner_claim = weights[0] * abc[0] + weights[1] * abc[1] + weights[2] * abc[2];
    // log_cols ≥ 1 always (the public half exists): round one with Z in the base field.
    t.append_elements(b"sumcheck claim", &[inner_claim]);
    let msg = inner_first_round(&m, &z_cols);
    let (r, running) = sumcheck::absorb_round(&msg, inner_claim, &mut t);
    let mut m = Mle::new(m).expect("power of two");
    m.fix_first_in_place(r).expect("a variable to bind");
    let (mut inner_rounds, mut inner_point, _) = sumcheck::prove_rounds(
        vec![Table::Dense(m), Table::Dense(bind_base(&z_cols, r))],
        &inner_polynomial::<E>(),
        running,
        &mut t,
    )?;
    inner_rounds.insert(0, msg);
    inner_point.insert(0, r);
    lap("inner sumcheck", &mut timings);
    let (witness_eval, opening) =
        fastzk_pcs::open(&params.pcs, &committed, &inner_point[1..], &mut t)?;
    lap("open the witness commitment", &mut timings);
    let proof = Proof {
        witness: committed.commitment,
        outer: SumcheckProof {
            rounds: outer_rounds,
        },
        abc,
        inner: SumcheckProof {
            rounds: inner_rounds,
        },
        witness_eval,
        opening,
    };
    Ok((proof, timings))
}

/// Pairs per rayon task in the base-field first rounds.
const FIRST_ROUND_CHUNK: usize = 1 << 12;

/// A base-field table with its first variable bound to an extension challenge.
fn bind_base<F: NttField, E: ExtensionOf<F>>(v: &[F], r: E) -> Mle<E> {
    let half = v.len() / 2;
    let evals = (0..half)
        .into_par_iter()
        .with_min_len(FIRST_ROUND_CHUNK)
        .map(|j| E::from_base(v[j]) + r.mul_base(v[j + half] - v[j]))
        .collect();
    Mle::new(evals).expect("a power of two")
}

/// The outer sumcheck's first message `s(0), s(2), s(3)` for `eq·(Az·Bz − Cz)`, with
/// `Az·Bz − Cz` at each point computed in the base field and one base-by-extension
/// product by `eq` (the generic round would lift all four tables).
fn outer_first_round<F: NttField, E: ExtensionOf<F>>(
    eq: &[E],
    az: &[F],
    bz: &[F],
    cz: &[F],
) -> Vec<E> {
    let half = eq.len() / 2;
    sum_over_pairs::<E, 3>(half, |j, acc| {
        let (a1, b1, c1, e1) = (az[j + half], bz[j + half], cz[j + half], eq[j + half]);
        let (da, db, dc, de) = (a1 - az[j], b1 - bz[j], c1 - cz[j], e1 - eq[j]);
        acc[0] += eq[j].mul_base(az[j] * bz[j] - cz[j]);
        let (a2, b2, c2, e2) = (a1 + da, b1 + db, c1 + dc, e1 + de);
        acc[1] += e2.mul_base(a2 * b2 - c2);
        let (a3, b3, c3, e3) = (a2 + da, b2 + db, c2 + dc, e2 + de);
        acc[2] += e3.mul_base(a3 * b3 - c3);
    })
}

/// The inner sumcheck's first message `s(0), s(2)` for `M·Z` with `Z` in the base field.
fn inner_first_round<F: NttField, E: ExtensionOf<F>>(m: &[E], z: &[F]) -> Vec<E> {
    let half = m.len() / 2;
    sum_over_pairs::<E, 2>(half, |j, acc| {
        let (m1, z1) = (m[j + half], z[j + half]);
        acc[0] += m[j].mul_base(z[j]);
        acc[1] += (m1 + m1 - m[j]).mul_base(z1 + z1 - z[j]);
    })
}

/// `Σ_j` of what `add(j, ·)` adds for each pair `j < half`, in parallel: a round
/// message's `K` values.
fn sum_over_pairs<E: fastzk_field::Field, const K: usize>(
    half: usize,
    add: impl Fn(usize, &mut [E; K]) + Sync + Send,
) -> Vec<E> {
    (0..half)
        .into_par_iter()
        .with_min_len(FIRST_ROUND_CHUNK)
        .fold(
            || [E::ZERO; K],
            |mut acc, j| {
                add(j, &mut acc);
                acc
            },
        )
        .reduce(
            || [E::ZERO; K],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
        .to_vec()
}

/// `eq·(Az·Bz − Cz)` over tables `(eq, Az, Bz, Cz)`.
fn outer_polynomial<E: fastzk_field::Field>() -> SumOfProducts<E> {
    SumOfProducts::new(4)
        .term(E::ONE, &[0, 1, 2])
        .and_then(|g| g.term(-E::ONE, &[0, 3]))
        .expect("valid tables")
}

/// `M·Z` over tables `(M, Z)`.
fn inner_polynomial<E: fastzk_field::Field>() -> SumOfProducts<E> {
    SumOfProducts::new(2)
        .term(E::ONE, &[0, 1])
        .expect("valid tables")
}

/// Checks a proof that the circuit is satisfied with these public inputs.
pub fn verify<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    public: &[F],
    proof: &Proof<F, E>,
) -> Result<(), SpartanError> {
    let layout = Layout::of(r1cs);
    check_soundness::<F, E>(params, &layout)?;
    if public.len() != layout.n_public {
        return Err(SpartanError::PublicCount(public.len(), layout.n_public));
    }
    if proof.witness.num_vars != layout.log_cols - 1 {
        return Err(SpartanError::Rejected(
            "witness commitment of the wrong size",
        ));
    }
    let mut t = transcript(params, r1cs, public);
    t.append_bytes(b"witness commitment", &proof.witness.root);

    let tau: Vec<E> = t.challenges(b"tau", layout.log_rows);
    let outer_g = outer_polynomial::<E>();
    let (r_x, last) = sumcheck::verify(
        E::ZERO,
        layout.log_rows,
        outer_g.message_len(),
        &proof.outer,
        &mut t,
    )?;
    let [va, vb, vc] = proof.abc;
    if last != eq_eval(&tau, &r_x).expect("same length") * (va * vb - vc) {
        return Err(SpartanError::Rejected("outer sumcheck's final check"));
    }
    t.append_elements(b"abc at r_x", &proof.abc);

    let weights: [E; 3] = t.challenges(b"r_abc", 3).try_into().expect("three");
    let claim = weights[0] * va + weights[1] * vb + weights[2] * vc;
    let inner_g = inner_polynomial::<E>();
    let (r_y, last) = sumcheck::verify(
        claim,
        layout.log_cols,
        inner_g.message_len(),
        &proof.inner,
        &mut t,
    )?;
    fastzk_pcs::verify(
        &params.pcs,
        &proof.witness,
        &r_y[1..],
        proof.witness_eval,
        &proof.opening,
        &mut t,
    )?;
    // M(r_x, r_y) from the R1CS: O(nnz).
    let m_at = combined_at(r1cs, &layout, &r_x, &r_y, weights);
    // IO(r_y') from the public inputs: (1, public, 0, …).
    let eq_io = SplitEq::new(&r_y[1..]);
    let io_at: E = std::iter::once(F::ONE)
        .chain(public.iter().copied())
        .enumerate()
        .map(|(k, x)| eq_io.at(k).mul_base(x))
        .sum();
    let z_at = (E::ONE - r_y[0]) * proof.witness_eval + r_y[0] * io_at;
    if last != m_at * z_at {
        return Err(SpartanError::Rejected("inner sumcheck's final check"));
    }
    Ok(())
}
