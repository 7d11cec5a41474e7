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
//!    public inputs, and `W(r_y')` through the commitment's opening (with zero knowledge,
//!    a masked combination of committed rows, below).
//!
//! Every challenge is drawn in `E` (Goldilocks' cubic extension, or BN254's scalar field
//! itself; the soundness calculator refuses anything under 128 bits); the committed
//! witness and the first round of each sumcheck stay in the base field.
//!
//! **Zero knowledge** (argued in `docs/spartan-zk.md`): the outer sumcheck is Libra's
//! masked sumcheck (a random sum of univariates `p`, its coefficients `K` committed in the
//! public half's last rows and its value `p(r_x)` proved by the inner sumcheck), and the
//! three claims `Az(r_x)`, `Bz(r_x)`, `Cz(r_x)` are masked by `x_l(1 − x_l)·α` on the
//! last variable (zero on the hypercube, so the sum is unchanged; `α` sits in `K` too);
//! the inner sumcheck runs over `Z + ρ'·R` for a committed uniformly random `R` on the
//! witness half and on `K`'s rows, which makes its messages, its final value and the
//! opening's row combination uniform; the commitment hides (random tails, masking rows,
//! salted leaves).
//!
//! **SNARK mode** ([`setup`], [`prove_snark`], [`verify_snark`]): `setup` commits to the
//! matrices once (Spark, in [`spark`]); the proof adds Spark's proof of
//! `M(r_x, r_y)`, and the verifier holds only the [`VerifyingKey`] (sizes and two roots),
//! never the R1CS.

use fastzk_field::NttField;
use fastzk_multilinear::sumcheck::{self, Masking, SumcheckProof};
use fastzk_multilinear::{eq_eval, eq_table, HashKind, Transcript, UnivariateMask};
use fastzk_pcs::{Commitment, EvalProof, ExtensionOf, MerkleTree, OrionParams, PcsError, Rows};
use fastzk_r1cs::{first_unsatisfied, Csr, R1cs, R1csError};
use fastzk_runtime::sumcheck::{prove_eq_r1cs, prove_product2};
use fastzk_runtime::{
    kernel, Arg, Context, FieldVec, KernelField, Matrix, RuntimeError, Task, Transposed,
};
use rand_chacha::rand_core::{OsRng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

pub mod format;

/// A base field the Spartan prover runs on the single-source layer (Goldilocks, BN254's
/// scalar field).
pub trait LayerField: NttField + KernelField<Base = Self> {}
impl<F: NttField + KernelField<Base = F>> LayerField for F {}

/// Its challenge field, on the layer too, with `F` as its kernels' base.
pub trait LayerExtension<F: NttField>: ExtensionOf<F> + KernelField<Base = F> {}
impl<F: NttField, E: ExtensionOf<F> + KernelField<Base = F>> LayerExtension<F> for E {}
mod rounds;
pub mod soundness;
pub mod spark;
pub use soundness::{soundness, soundness_snark, Soundness, TARGET_BITS};

/// Why a proof could not be made, or was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpartanError {
    #[error(transparent)]
    R1cs(#[from] R1csError),
    #[error("commitment: {0}")]
    Pcs(#[from] PcsError),
    #[error("sumcheck: {0}")]
    Sumcheck(#[from] fastzk_multilinear::SumcheckError),
    #[error("{0} public inputs given, the circuit has {1}")]
    PublicCount(usize, usize),
    #[error("proof rejected: {0}")]
    Rejected(&'static str),
    #[error("these parameters give {bits:.1} bits of soundness at this size, below the {target} required (`fastzk spartan params` shows each component)")]
    WeakParameters { bits: f64, target: f64 },
    /// A step on the single-source layer failed (on a device: its error, said once).
    #[error("{0}")]
    Runtime(String),
}

impl From<RuntimeError> for SpartanError {
    fn from(e: RuntimeError) -> Self {
        Self::Runtime(e.to_string())
    }
}

/// Refuses parameters under the 128-bit target for this instance.
fn check_soundness<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    layout: &Layout,
) -> Result<(), SpartanError> {
    meets_target(soundness::<F, E>(params, layout.log_rows, layout.log_cols))
}

fn meets_target(s: Soundness) -> Result<(), SpartanError> {
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

/// A zero-knowledge NIZK proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof<F, E> {
    /// The witness `W` and the mask `R` under one root.
    pub witness: Commitment,
    /// `Σ_x p(x)` for the outer sumcheck's masking polynomial `p`.
    pub outer_mask_sum: E,
    pub outer: SumcheckProof<E>,
    /// The masked `Az(r_x)`, `Bz(r_x)`, `Cz(r_x)`, and `p(r_x)`.
    pub claims: [E; 4],
    /// `Σ_y M(r_x, y)·R(y)`.
    pub inner_mask_sum: E,
    pub inner: SumcheckProof<E>,
    /// `Z''(r_y) − r_y0·IO(r_y')` with `Z'' = Z + ρ'·R`: the committed part of the inner
    /// sumcheck's final value.
    pub witness_eval: E,
    pub opening: EvalProof<F, E>,
}

impl<F: NttField, E: ExtensionOf<F>> Proof<F, E> {
    /// Bytes the proof's elements and digests take (field elements at their canonical
    /// size, `E` as `DEGREE` base elements): what a serialised proof will weigh.
    pub fn size_bytes(&self) -> usize {
        let e = F::BYTES * E::DEGREE;
        32 + e * (sumcheck_elements(&self.outer) + sumcheck_elements(&self.inner) + 4 + 3)
            + opening_bytes(&self.opening)
    }
}

/// Elements a sumcheck proof sends.
fn sumcheck_elements<E>(p: &SumcheckProof<E>) -> usize {
    p.rounds.iter().map(Vec::len).sum()
}

/// Bytes an opening takes: its combinations, the opened columns, salts and siblings.
fn opening_bytes<F: NttField, E: ExtensionOf<F>>(p: &EvalProof<F, E>) -> usize {
    F::BYTES * E::DEGREE * (p.combos.iter().map(Vec::len).sum::<usize>() + p.row_eval.len())
        + F::BYTES * p.columns.iter().map(Vec::len).sum::<usize>()
        + 16 * p.salts.len()
        + 32 * p.merkle.siblings.len()
}

/// How `z` maps onto the `2^log_cols` columns: private variables first (the committed
/// half `W`), then `(1, public)` in the upper half, whose last rows (in the commitment's
/// `R × C` shape) hold the prover's mask values `K` and are committed too. No public
/// entry shares a row with `K`: a committed row may hold anything where no constraint
/// reads (the sum does not see it), never where the public inputs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    log_rows: usize,
    log_cols: usize,
    n_public: usize,
    /// The commitment's shape for one half: `2^log_r` rows of `cols` values.
    log_r: usize,
    cols: usize,
    /// Rows of the upper half that hold `K`.
    first_k_row: usize,
    k_rows: usize,
}

/// The outer sumcheck's round degrees: 3, and 5 in the last round, where the claims'
/// masks `x_l(1 − x_l)·α` live.
fn outer_degrees(log_rows: usize) -> Vec<usize> {
    let mut d = vec![3; log_rows];
    d[log_rows - 1] = 5;
    d
}

/// Extension elements the prover hides in `K`: `α_A`, `α_B`, `α_C`, then the outer
/// masking polynomial's constant and coefficients.
fn mask_elements(log_rows: usize) -> usize {
    4 + outer_degrees(log_rows).iter().sum::<usize>()
}

/// The layout for an R1CS of these sizes (`n_vars` counts the constant one) and
/// challenges of this extension degree. At least two constraint rows: the claims' masks
/// need a variable. The upper half grows until `K`'s rows fit below the public inputs.
fn layout(
    params: &SpartanParams,
    n_constraints: usize,
    n_vars: usize,
    n_public: usize,
    degree: usize,
) -> Layout {
    let log_rows = n_constraints.max(2).next_power_of_two().trailing_zeros() as usize;
    let slots = degree * mask_elements(log_rows);
    let n_private = n_vars.saturating_sub(n_public + 1);
    let mut log_half = n_private
        .max(n_public + 1)
        .next_power_of_two()
        .trailing_zeros() as usize;
    loop {
        let (log_r, log_c) = params.pcs.shape(log_half);
        let (rows, cols) = (1usize << log_r, 1usize << log_c);
        let k_rows = slots.div_ceil(cols);
        if k_rows < rows && (rows - k_rows) * cols > n_public {
            return Layout {
                log_rows,
                log_cols: log_half + 1,
                n_public,
                log_r,
                cols,
                first_k_row: rows - k_rows,
                k_rows,
            };
        }
        log_half += 1;
    }
}

/// `(log2 rows, log2 columns)` Spartan works with for an R1CS of these sizes (`n_vars`
/// counts the constant one) and challenges of this extension degree: what the soundness
/// calculator takes.
pub fn instance_shape(
    params: &SpartanParams,
    n_constraints: usize,
    n_vars: usize,
    n_public: usize,
    degree: usize,
) -> (usize, usize) {
    let l = layout(params, n_constraints, n_vars, n_public, degree);
    (l.log_rows, l.log_cols)
}

impl Layout {
    fn of<F: NttField, E: ExtensionOf<F>>(params: &SpartanParams, r1cs: &R1cs<F>) -> Self {
        layout(
            params,
            r1cs.n_constraints(),
            r1cs.n_vars(),
            r1cs.n_public(),
            E::DEGREE,
        )
    }

    fn half(&self) -> usize {
        1 << (self.log_cols - 1)
    }

    /// The column of `K`'s first slot.
    fn mask_base(&self) -> usize {
        self.half() + self.first_k_row * self.cols
    }

    /// The columns of the upper half's rows that hold `K`.
    fn k_region(&self) -> std::ops::Range<usize> {
        let start = self.half() + self.first_k_row * self.cols;
        start..start + self.k_rows * self.cols
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

    /// The opening's row weights and column point for `Z''(r_y) − r_y0·IO(r_y')`, where
    /// `Z'' = Z + ρ'·R`: the rows of `W`, then `R`'s low half, then `K`'s rows and
    /// `R`'s rows there, as committed.
    fn opening<E: fastzk_field::Field>(&self, r_y: &[E], rho: E) -> (Vec<E>, Vec<E>) {
        let (r0, rest) = (r_y[0], &r_y[1..]);
        let eq_row = eq_table(&rest[..self.log_r]);
        let top = &eq_row[self.first_k_row..self.first_k_row + self.k_rows];
        let low = E::ONE - r0;
        let weights = [low, low * rho]
            .iter()
            .flat_map(|w| eq_row.iter().map(move |e| *w * *e))
            .chain(
                [r0, r0 * rho]
                    .iter()
                    .flat_map(|w| top.iter().map(move |e| *w * *e)),
            )
            .collect();
        (weights, rest[self.log_r..].to_vec())
    }
}

/// The prover's masks, drawn before the witness is committed.
struct Masks<E> {
    /// For `Az`, `Bz`, `Cz`.
    alpha: [E; 3],
    outer: UnivariateMask<E>,
}

impl<E: fastzk_field::Field> Masks<E> {
    fn random<R: RngCore + ?Sized>(log_rows: usize, rng: &mut R) -> Self {
        Self {
            alpha: [E::random(rng), E::random(rng), E::random(rng)],
            outer: UnivariateMask::random(&outer_degrees(log_rows), rng),
        }
    }

    /// In the order of the witness's mask slots.
    fn elements(&self) -> Vec<E> {
        self.alpha
            .iter()
            .copied()
            .chain(self.outer.flatten())
            .collect()
    }
}

/// What the mask slots add to the inner sumcheck's row `M(r_x, ·)`, as (column,
/// coefficient): the claims are `w_A·(Az + m·α_A) + … + w_P·p(r_x)` with
/// `m = r_l(1 − r_l)`, and each extension element sits in `DEGREE` base-field slots.
/// (Their columns are consecutive from the layout's mask base, in order.)
fn mask_entries<F: NttField, E: ExtensionOf<F>>(
    layout: &Layout,
    r_x: &[E],
    weights: &[E; 4],
) -> Vec<(usize, E)> {
    let last = r_x[r_x.len() - 1];
    let m = last * (E::ONE - last);
    let mut coeffs = vec![weights[0] * m, weights[1] * m, weights[2] * m, weights[3]];
    for (i, d) in outer_degrees(layout.log_rows).into_iter().enumerate() {
        let mut power = weights[3];
        for _ in 0..d {
            power *= r_x[i];
            coeffs.push(power);
        }
    }
    let base = layout.mask_base();
    let basis: Vec<E> = (0..E::DEGREE)
        .map(|d| {
            let mut unit = vec![F::ZERO; E::DEGREE];
            unit[d] = F::ONE;
            E::from_coeffs(&unit)
        })
        .collect();
    coeffs
        .iter()
        .enumerate()
        .flat_map(|(e, c)| {
            basis
                .iter()
                .enumerate()
                .map(move |(d, b)| (base + e * E::DEGREE + d, *c * *b))
        })
        .collect()
}

/// What a proof is about: the R1CS itself (NIZK) or the setup's key (SNARK), by digest.
#[derive(Clone, Copy)]
struct Statement {
    label: &'static [u8],
    digest: [u8; 32],
}

impl Statement {
    fn nizk<F: NttField>(r1cs: &R1cs<F>) -> Self {
        Self {
            label: b"r1cs",
            digest: r1cs.digest(),
        }
    }

    fn snark(vk: &VerifyingKey) -> Self {
        Self {
            label: b"spark key",
            digest: vk.digest(),
        }
    }
}

fn transcript<F: NttField>(
    params: &SpartanParams,
    statement: Statement,
    public: &[F],
) -> Transcript {
    let mut t = Transcript::new(params.hash(), b"fastzk spartan zk nizk v2");
    // The parameters are part of the statement: a proof made under others must fail.
    let pcs = &params.pcs;
    let mut p = vec![pcs.log_rows as u8, pcs.log_blowup as u8, pcs.hiding as u8];
    p.extend_from_slice(&(pcs.queries as u64).to_le_bytes());
    p.extend_from_slice(&(pcs.proximity_reps as u64).to_le_bytes());
    t.append_bytes(b"parameters", &p);
    t.append_bytes(statement.label, &statement.digest);
    let mut bytes = Vec::with_capacity(public.len() * F::BYTES);
    public.iter().for_each(|x| x.extend_le_bytes(&mut bytes));
    t.append_bytes(b"public inputs", &bytes);
    t
}

/// Entry `j` of `M(r_x, ·)` in the commitment's column layout ([`Layout::column`]),
/// from its entries by variable: the constant one and the public inputs at `half + v`,
/// the witness at `v − n_public − 1`, plus the masks' entries from `mask_base` on;
/// zero elsewhere.
#[kernel]
fn in_layout<F: KernelField>(
    j: usize,
    by_var: &[F],
    mask: &[F],
    n_vars: usize,
    half: usize,
    n_public: usize,
    mask_base: usize,
    n_mask: usize,
) -> F {
    let mut out = F::ZERO;
    if j < half && j + n_public + 1 < n_vars {
        out = by_var[j + n_public + 1];
    }
    if j >= half && j - half <= n_public {
        out = by_var[j - half];
    }
    if j >= mask_base && j - mask_base < n_mask {
        out += mask[j - mask_base];
    }
    out
}

/// `M(r_x, ·) = Σ w_k·M_k(r_x, ·)` over the commitment's columns, with the masks'
/// entries: the matrices' columns from `eq(r_x, ·)` (the library's transposed product),
/// placed by [`in_layout`].
fn matrix_row<F: LayerField, E: LayerExtension<F>>(
    task: &mut Task<'_>,
    matrices: &Transposed<'_, F>,
    layout: &Layout,
    eq_rx: &FieldVec<E>,
    r_x: &[E],
    weights: &[E; 4],
) -> Result<FieldVec<E>, SpartanError> {
    // The rows past the constraints are empty.
    let (rows, _) = eq_rx.split_at(matrices.n_rows())?;
    let by_var = task.spmv_transposed(matrices, &weights[..3], &rows)?;
    // Consecutive from the layout's mask base: `in_layout` places them by that.
    let entries = mask_entries::<F, E>(layout, r_x, weights);
    if !entries
        .iter()
        .enumerate()
        .all(|(k, (i, _))| *i == layout.mask_base() + k)
    {
        return Err(RuntimeError::Internal("the masks' columns are not consecutive".into()).into());
    }
    let mask: Vec<E> = entries.into_iter().map(|(_, c)| c).collect();
    let ctx = task.context();
    let n_mask = mask.len();
    let args = [
        Arg::Vec(&by_var),
        Arg::Vec(&ctx.vec(mask)),
        Arg::Int(by_var.len()),
        Arg::Int(layout.half()),
        Arg::Int(layout.n_public),
        Arg::Int(layout.mask_base()),
        Arg::Int(n_mask),
    ];
    Ok(task.map(InLayout, 1 << layout.log_cols, &args)?)
}

/// `eq(r, ·)` as the product of two tables over the high and low halves of the index,
/// each `≈ 2^(n/2)` long: cache-resident, where the full table would be read at random.
struct SplitEq<E> {
    point: Vec<E>,
    hi: Vec<E>,
    lo: Vec<E>,
    lo_bits: usize,
}

impl<E: fastzk_field::Field> SplitEq<E> {
    fn new(r: &[E]) -> Self {
        let h = r.len() / 2;
        Self {
            point: r.to_vec(),
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
/// the rows, with split `eq` tables (the verifier's `O(nnz)` step). Each `w_m` is folded
/// into a copy of `eq(r_y)`'s low table and `eq(r_x)`'s high factor is applied once per
/// block of rows, so an entry costs one extension product and a row one more.
fn combined_at<F: NttField, E: ExtensionOf<F>>(
    r1cs: &R1cs<F>,
    layout: &Layout,
    r_x: &[E],
    eq_y: &SplitEq<E>,
    weights: [E; 3],
) -> E {
    let mats: [&Csr<F>; 3] = [r1cs.a(), r1cs.b(), r1cs.c()];
    let eq_x = SplitEq::new(r_x);
    let lo_w: [Vec<E>; 3] = weights.map(|w| eq_y.lo.iter().map(|x| w * *x).collect());
    let (y_bits, y_mask) = (eq_y.lo_bits, (1usize << eq_y.lo_bits) - 1);
    let block = 1usize << eq_x.lo_bits;
    let n = r1cs.n_constraints();
    (0..eq_x.hi.len())
        .into_par_iter()
        .map(|h| {
            let rows = h * block..((h + 1) * block).min(n);
            let first = rows.start;
            let s: E = rows
                .map(|i| {
                    let entries = mats.iter().zip(&lo_w).flat_map(|(m, lo)| {
                        let (cs, vs) = m.row(i);
                        cs.iter().zip(vs).map(|(c, a)| {
                            let col = layout.column(*c as usize);
                            (eq_y.hi[col >> y_bits], lo[col & y_mask].mul_base(*a))
                        })
                    });
                    eq_x.lo[i - first] * E::dot(entries)
                })
                .sum();
            eq_x.hi[h] * s
        })
        .sum()
}

/// Proves that `z` satisfies `r1cs` (refused, naming the constraint, when it does not),
/// with randomness from a ChaCha20 stream seeded by the operating system.
pub fn prove<F: LayerField, E: LayerExtension<F>>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
) -> Result<Proof<F, E>, SpartanError> {
    Ok(prove_timed(params, r1cs, z)?.0)
}

/// Wall time of each prover phase, in order.
pub type Timings = Vec<(&'static str, std::time::Duration)>;

/// Records the time since the previous lap under a phase's name.
struct Stopwatch {
    timings: Timings,
    clock: std::time::Instant,
}

impl Stopwatch {
    fn new() -> Self {
        Self {
            timings: Timings::new(),
            clock: std::time::Instant::now(),
        }
    }

    fn lap(&mut self, name: &'static str) {
        self.timings.push((name, self.clock.elapsed()));
        self.clock = std::time::Instant::now();
    }
}

/// [`prove`], with the time each phase took.
pub fn prove_timed<F: LayerField, E: LayerExtension<F>>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
) -> Result<(Proof<F, E>, Timings), SpartanError> {
    prove_timed_on(&Context::cpu(), params, r1cs, z)
}

/// [`prove_timed`] in `ctx`: the steps written on the single-source layer (`Az, Bz, Cz`,
/// both sumchecks but the outer one's last round, the commitments' Reed–Solomon
/// encoding) run on its device; the proof is the CPU's.
pub fn prove_timed_on<F: LayerField, E: LayerExtension<F>>(
    ctx: &Context,
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
) -> Result<(Proof<F, E>, Timings), SpartanError> {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    let (proof, _, timings) = prove_phases(
        ctx,
        params,
        r1cs,
        None,
        z,
        true,
        &mut ChaCha20Rng::from_seed(seed),
    )?;
    Ok((proof, timings))
}

/// [`prove`] with the caller's randomness: deterministic proofs for tests only (a
/// proof's hiding rests on this randomness being secret and fresh).
pub fn prove_with_rng<F: LayerField, E: LayerExtension<F>, R: RngCore + ?Sized>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
    rng: &mut R,
) -> Result<Proof<F, E>, SpartanError> {
    prove_with_rng_on(&Context::cpu(), params, r1cs, z, rng)
}

/// [`prove_with_rng`] in `ctx` (tests: the same randomness gives the same proof on
/// every device).
pub fn prove_with_rng_on<F: LayerField, E: LayerExtension<F>, R: RngCore + ?Sized>(
    ctx: &Context,
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
    rng: &mut R,
) -> Result<Proof<F, E>, SpartanError> {
    Ok(prove_phases(ctx, params, r1cs, None, z, true, rng)?.0)
}

/// [`prove`] without the satisfiability check (only the shape of `z` is checked): for
/// tests of the verifier against a prover that tries to prove a false statement.
#[doc(hidden)]
pub fn prove_unchecked<F: LayerField, E: LayerExtension<F>>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
) -> Result<Proof<F, E>, SpartanError> {
    Ok(prove_phases(
        &Context::cpu(),
        params,
        r1cs,
        None,
        z,
        false,
        &mut ChaCha20Rng::from_seed([7; 32]),
    )?
    .0)
}

/// The SNARK mode's prover key: the R1CS and its Spark tables and commitments.
pub struct ProvingKey<F> {
    pub r1cs: R1cs<F>,
    pub spark: spark::SparkKey<F>,
    pub vk: VerifyingKey,
}

/// What the SNARK mode's verifier holds instead of the R1CS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    /// Constraints, variables (the constant one included) and public inputs: the layout
    /// follows from them.
    pub n_constraints: usize,
    pub n_vars: usize,
    pub n_public: usize,
    pub spark: spark::SparkCommitment,
}

impl VerifyingKey {
    /// What the transcript binds: every field of the key.
    pub fn digest(&self) -> [u8; 32] {
        let mut h = blake3::Hasher::new();
        h.update(b"fastzk spartan verifying key v1");
        let s = &self.spark.shape;
        for x in [
            self.n_constraints,
            self.n_vars,
            self.n_public,
            s.log_n,
            s.log_mem,
            s.log_rows,
            s.log_cols,
            self.spark.entries.num_vars,
            self.spark.memory.num_vars,
        ] {
            h.update(&(x as u64).to_le_bytes());
        }
        h.update(&self.spark.entries.root);
        h.update(&self.spark.memory.root);
        *h.finalize().as_bytes()
    }

    fn layout<F: NttField, E: ExtensionOf<F>>(&self, params: &SpartanParams) -> Layout {
        layout(
            params,
            self.n_constraints,
            self.n_vars,
            self.n_public,
            E::DEGREE,
        )
    }
}

/// A SNARK-mode proof: the zero-knowledge proof and Spark's proof of `M(r_x, r_y)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnarkProof<F, E> {
    pub proof: Proof<F, E>,
    pub spark: spark::SparkProof<F, E>,
}

impl<F: NttField, E: ExtensionOf<F>> SnarkProof<F, E> {
    /// Bytes the proof's elements and digests take.
    pub fn size_bytes(&self) -> usize {
        self.proof.size_bytes() + self.spark.size_bytes()
    }
}

/// The SNARK mode's preprocessing (deterministic; its cost is paid once per circuit).
pub fn setup<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    r1cs: R1cs<F>,
) -> Result<ProvingKey<F>, SpartanError> {
    let layout = Layout::of::<F, E>(params, &r1cs);
    check_soundness::<F, E>(params, &layout)?;
    let spark = spark::setup::<F, E>(&params.pcs, &r1cs, &layout)?;
    meets_target(soundness_snark::<F, E>(params, &spark.commitment.shape))?;
    let vk = VerifyingKey {
        n_constraints: r1cs.n_constraints(),
        n_vars: r1cs.n_vars(),
        n_public: r1cs.n_public(),
        spark: spark.commitment,
    };
    Ok(ProvingKey { r1cs, spark, vk })
}

/// [`prove`] in the SNARK mode.
pub fn prove_snark<F: LayerField, E: LayerExtension<F>>(
    params: &SpartanParams,
    pk: &ProvingKey<F>,
    z: &[F],
) -> Result<SnarkProof<F, E>, SpartanError> {
    Ok(prove_snark_timed(params, pk, z)?.0)
}

/// [`prove_snark`], with the time each phase took.
pub fn prove_snark_timed<F: LayerField, E: LayerExtension<F>>(
    params: &SpartanParams,
    pk: &ProvingKey<F>,
    z: &[F],
) -> Result<(SnarkProof<F, E>, Timings), SpartanError> {
    prove_snark_timed_on(&Context::cpu(), params, pk, z)
}

/// [`prove_snark_timed`] in `ctx`, as [`prove_timed_on`].
pub fn prove_snark_timed_on<F: LayerField, E: LayerExtension<F>>(
    ctx: &Context,
    params: &SpartanParams,
    pk: &ProvingKey<F>,
    z: &[F],
) -> Result<(SnarkProof<F, E>, Timings), SpartanError> {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    prove_snark_phases(ctx, params, pk, z, &mut ChaCha20Rng::from_seed(seed))
}

/// [`prove_snark_timed_on`] with the caller's randomness: deterministic proofs for tests
/// only, as [`prove_with_rng`].
pub fn prove_snark_with_rng_on<F: LayerField, E: LayerExtension<F>, R: RngCore + ?Sized>(
    ctx: &Context,
    params: &SpartanParams,
    pk: &ProvingKey<F>,
    z: &[F],
    rng: &mut R,
) -> Result<SnarkProof<F, E>, SpartanError> {
    Ok(prove_snark_phases(ctx, params, pk, z, rng)?.0)
}

fn prove_snark_phases<F: LayerField, E: LayerExtension<F>, R: RngCore + ?Sized>(
    ctx: &Context,
    params: &SpartanParams,
    pk: &ProvingKey<F>,
    z: &[F],
    rng: &mut R,
) -> Result<(SnarkProof<F, E>, Timings), SpartanError> {
    let (proof, spark, timings) = prove_phases(ctx, params, &pk.r1cs, Some(pk), z, true, rng)?;
    let spark = spark.expect("the SNARK mode proves M(r_x, r_y)");
    Ok((SnarkProof { proof, spark }, timings))
}

/// The prover, phase by phase; `check` refuses a witness that does not satisfy the
/// constraints (checked on the `Az`, `Bz`, `Cz` the proof needs anyway).
type Proved<F, E> = (Proof<F, E>, Option<spark::SparkProof<F, E>>, Timings);

fn prove_phases<F: LayerField, E: LayerExtension<F>, R: RngCore + ?Sized>(
    ctx: &Context,
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    snark: Option<&ProvingKey<F>>,
    z: &[F],
    check: bool,
    rng: &mut R,
) -> Result<Proved<F, E>, SpartanError> {
    let mut watch = Stopwatch::new();
    r1cs.check_witness_shape(z)?;
    let layout = Layout::of::<F, E>(params, r1cs);
    check_soundness::<F, E>(params, &layout)?;
    // On the layer: the products where the context runs (cuZK's SpMV on a device),
    // padded and checked there; read back only to name an unsatisfied constraint.
    let products = {
        let mut task = ctx.task()?;
        let zv = ctx.vec(z.to_vec());
        let mut product = |m: &Csr<F>| task.spmv(&Matrix::new(m), &zv);
        let [az, bz, cz] = [product(r1cs.a())?, product(r1cs.b())?, product(r1cs.c())?];
        let (padded, unsatisfied) =
            rounds::padded_products(&mut task, [&az, &bz, &cz], 1 << layout.log_rows)?;
        if check && unsatisfied != F::ZERO {
            let index = first_unsatisfied(&az.host()?, &bz.host()?, &cz.host()?);
            let index = index.ok_or_else(|| {
                RuntimeError::Internal("an unsatisfied row the host does not find".into())
            })?;
            return Err(R1csError::Unsatisfied { index }.into());
        }
        padded
    };
    watch.lap("Az, Bz, Cz (and the witness check)");
    let public = &z[1..=layout.n_public];
    let statement = snark.map_or_else(|| Statement::nizk(r1cs), |pk| Statement::snark(&pk.vk));
    let mut t = transcript(params, statement, public);

    // z by columns, with the masks' values K in the upper half's last rows; the mask R
    // on the lower half and on K's rows.
    let masks = Masks::<E>::random(layout.log_rows, rng);
    let mut z_cols = vec![F::ZERO; 1 << layout.log_cols];
    for (v, x) in z.iter().enumerate() {
        z_cols[layout.column(v)] = *x;
    }
    let base = layout.mask_base();
    for (e, x) in masks.elements().iter().enumerate() {
        for d in 0..E::DEGREE {
            z_cols[base + e * E::DEGREE + d] = x.coeff(d);
        }
    }
    let half = layout.half();
    let k_region = layout.k_region();
    let mut mask_r = vec![F::ZERO; 1 << layout.log_cols];
    let (low, high) = mask_r.split_at_mut(half);
    fill_random(low, rng);
    fill_random(&mut high[k_region.start - half..k_region.end - half], rng);
    watch.lap("transcript (statement digest) and masks");
    let encode = layer_encoder::<F>(ctx);
    let committed = fastzk_pcs::commit_with::<F, E, _>(
        &params.pcs,
        layout.log_cols - 1,
        &[
            &z_cols[..half],
            &mask_r[..half],
            &z_cols[k_region.clone()],
            &mask_r[k_region],
        ],
        rng,
        &encode,
    )?;
    t.append_bytes(b"witness commitment", &committed.commitment.root);
    watch.lap("commit to the witness");

    let tau: Vec<E> = t.challenges(b"tau", layout.log_rows);
    let outer_mask_sum = masks.outer.sum();
    t.append_elements(b"outer mask sum", &[outer_mask_sum]);
    let rho: E = t.challenge(b"outer mask");
    let claim = rho * outer_mask_sum;
    t.append_elements(b"sumcheck claim", &[claim]);
    let (outer_rounds, r_x, claims) =
        outer_sumcheck(ctx, &tau, &products, &masks, rho, claim, &mut t)?;
    // Read by the outer sumcheck only: not held through M(r_x, ·) and the inner one.
    drop(products);
    t.append_elements(b"outer claims", &claims);
    watch.lap("outer sumcheck");

    // Inner sumcheck over the columns, of M·(Z + ρ'·R).
    let weights: [E; 4] = t.challenges(b"claim weights", 4).try_into().expect("four");
    let mut task = ctx.task()?;
    // eq(r_x, ·): for M(r_x, ·) here, and for Spark's lookups in the SNARK mode.
    let eq_rx = task.eq_table(&r_x)?;
    let matrices = Transposed::new(&[r1cs.a(), r1cs.b(), r1cs.c()])?;
    let m = matrix_row(&mut task, &matrices, &layout, &eq_rx, &r_x, &weights)?;
    drop(eq_rx);
    watch.lap("combined matrix row M(r_x, ·)");
    let inner_claim: E = weights.iter().zip(&claims).map(|(w, c)| *w * *c).sum();
    let (zv, maskv) = (ctx.vec(z_cols), ctx.vec(mask_r));
    let inner_mask_sum = task.dot_base(&m, &maskv)?;
    t.append_elements(b"inner mask sum", &[inner_mask_sum]);
    let rho_in: E = t.challenge(b"inner mask");
    let claim = inner_claim + rho_in * inner_mask_sum;
    t.append_elements(b"sumcheck claim", &[claim]);
    // log_cols ≥ 1 always (the public half exists): round one with Z and R in the base
    // field.
    let msg = rounds::inner_first(&mut task, &m, &zv, &maskv, rho_in)?;
    let (r, running) = sumcheck::absorb_round(&msg, claim, &mut t);
    // The other rounds: a product of two tables (none left when one column pair is all
    // there is).
    let tables = rounds::bind_inner(&mut task, &m, &zv, &maskv, rho_in, r)?;
    let (mut inner_rounds, mut inner_point) = if tables[0].len() >= 2 {
        let run = prove_product2(&mut task, tables, running, &mut t)?;
        (run.0, run.1)
    } else {
        (Vec::new(), Vec::new())
    };
    inner_rounds.insert(0, msg);
    inner_point.insert(0, r);
    watch.lap("inner sumcheck");
    let (row_weights, col_point) = layout.opening(&inner_point, rho_in);
    let combine = layer_combiner::<F, E>(ctx);
    let (witness_eval, opening) = fastzk_pcs::open_with(
        &params.pcs,
        &committed,
        &row_weights,
        &col_point,
        &mut t,
        &combine,
    )?;
    watch.lap("open the witness commitment");
    let spark = match snark {
        Some(pk) => {
            let w = [weights[0], weights[1], weights[2]];
            let p = spark::prove::<F, E>(
                ctx,
                &params.pcs,
                &encode,
                &combine,
                &pk.spark,
                &r_x,
                &inner_point,
                w,
                &mut t,
                &mut watch,
            )?;
            Some(p)
        }
        None => None,
    };
    let proof = Proof {
        witness: committed.commitment,
        outer_mask_sum,
        outer: SumcheckProof {
            rounds: outer_rounds,
        },
        claims,
        inner_mask_sum,
        inner: SumcheckProof {
            rounds: inner_rounds,
        },
        witness_eval,
        opening,
    };
    Ok((proof, spark, watch.timings))
}

/// Orion's row encoding and the Merkle tree over the codewords' columns on the layer,
/// for every commitment the prover makes: on a device the codewords are hashed where
/// they were made, and come back once (the openings read their columns on the host).
fn layer_encoder<F: LayerField>(
    ctx: &Context,
) -> impl Fn(&Rows<'_, F>) -> Result<(Vec<F>, MerkleTree), PcsError> + Sync + '_ {
    move |rows: &Rows<'_, F>| {
        let on_layer = || {
            let mut task = ctx.task()?;
            let encoded = task.rs_encode(&ctx.vec(rows.messages.to_vec()), rows.k, rows.width)?;
            let tree = task.merkle_columns(rows.hash, &encoded, rows.width, rows.salts)?;
            Ok((encoded.into_vec()?, tree))
        };
        on_layer().map_err(|e: RuntimeError| PcsError::Encode(e.to_string()))
    }
}

/// Orion's `wᵀ·M` on the layer, for [`fastzk_pcs::open_with`]: the committed messages
/// (base-field rows of `k` values) combined by [`fastzk_runtime::Task::combine_rows_host`].
fn layer_combiner<F: LayerField, E: LayerExtension<F>>(
    ctx: &Context,
) -> impl Fn(&[F], usize, &[E]) -> Result<Vec<E>, PcsError> + Sync + '_ {
    move |m: &[F], k: usize, w: &[E]| {
        let on_layer = || {
            let mut task = ctx.task()?;
            task.combine_rows_host(m, k, w)?.into_vec()
        };
        on_layer().map_err(|e: RuntimeError| PcsError::Combine(e.to_string()))
    }
}

/// The outer sumcheck of `eq(τ, ·)·(Az'·Bz' − Cz') + ρ·p` from the claim `ρ·P`, where
/// `Az' = Az + x_l(1 − x_l)·α_A` (and so for `B`, `C`): the first round in the base
/// field, the middle ones generic, the last (degree 5, where the `α` terms live) on the
/// two values left. Returns the messages, `r_x`, and the four claims.
type OuterRun<E> = (Vec<Vec<E>>, Vec<E>, [E; 4]);

fn outer_sumcheck<F: LayerField, E: LayerExtension<F>>(
    ctx: &Context,
    tau: &[E],
    products: &[FieldVec<F>; 3],
    masks: &Masks<E>,
    rho: E,
    claim: E,
    t: &mut Transcript,
) -> Result<OuterRun<E>, SpartanError> {
    let l = tau.len();
    let masking = Masking {
        mask: &masks.outer,
        rho,
        earlier: vec![],
    };
    let mut rounds = Vec::with_capacity(l);
    let mut point = Vec::with_capacity(l);
    let mut task = ctx.task()?;
    let [az, bz, cz] = products;
    let (last, running) = if l == 1 {
        let lift = |v: &FieldVec<F>| -> Result<Vec<E>, RuntimeError> {
            Ok(v.to_vec()?.into_iter().map(E::from_base).collect())
        };
        (vec![eq_table(tau), lift(az)?, lift(bz)?, lift(cz)?], claim)
    } else {
        // Round one in the base field (Az, Bz, Cz are base-field tables; only eq(τ, ·)
        // is in the extension), then the generic rounds on tables of half size.
        let eq = task.eq_table(tau)?;
        let mut msg = rounds::outer_first(&mut task, &eq, [az, bz, cz])?;
        drop(eq);
        masking.add(&mut msg, &[]);
        let (r, running) = sumcheck::absorb_round(&msg, claim, t);
        rounds.push(msg);
        point.push(r);
        // The middle rounds with eq(τ, ·) factored out (Gruen): α = eq(τ_0, r_0) so far.
        let alpha = eq_eval(&tau[..1], &[r]).expect("one coordinate");
        let tables = rounds::bind_tables(&mut task, [az, bz, cz], r)?;
        let (more, at, running, [a, b, c], alpha) = prove_eq_r1cs(
            &mut task,
            tables,
            &tau[1..],
            alpha,
            running,
            l - 2,
            Some(&Masking {
                earlier: vec![r],
                ..masking
            }),
            t,
        )?;
        rounds.extend(more);
        point.extend(at);
        let t_last = tau[l - 1];
        let eq_last = vec![alpha * (E::ONE - t_last), alpha * t_last];
        (vec![eq_last, a, b, c], running)
    };
    let at = |v: &[E], x: E| v[0] + x * (v[1] - v[0]);
    let alpha = masks.alpha;
    let masked = |x: E| {
        let m = x * (E::ONE - x);
        [
            at(&last[1], x) + m * alpha[0],
            at(&last[2], x) + m * alpha[1],
            at(&last[3], x) + m * alpha[2],
        ]
    };
    let mut msg: Vec<E> = [0u64, 2, 3, 4, 5]
        .iter()
        .map(|&x| {
            let x = E::from_u64(x);
            let [a, b, c] = masked(x);
            at(&last[0], x) * (a * b - c)
        })
        .collect();
    masking.add(&mut msg, &point);
    let (r, _) = sumcheck::absorb_round(&msg, running, t);
    rounds.push(msg);
    point.push(r);
    let [a, b, c] = masked(r);
    let claims = [a, b, c, masks.outer.evaluate(&point)];
    Ok((rounds, point, claims))
}

/// Fills `out` with uniform elements in parallel: one ChaCha20 stream per chunk, each
/// seeded from `rng` (so the result is a function of `rng`, as tests need).
fn fill_random<F: NttField, R: RngCore + ?Sized>(out: &mut [F], rng: &mut R) {
    const CHUNK: usize = 1 << 14;
    let seeds: Vec<[u8; 32]> = (0..out.len().div_ceil(CHUNK))
        .map(|_| {
            let mut s = [0u8; 32];
            rng.fill_bytes(&mut s);
            s
        })
        .collect();
    out.par_chunks_mut(CHUNK)
        .zip(seeds)
        .for_each(|(chunk, seed)| {
            let mut r = ChaCha20Rng::from_seed(seed);
            chunk.iter_mut().for_each(|x| *x = F::random(&mut r));
        });
}

/// Checks a proof that the circuit is satisfied with these public inputs.
pub fn verify<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    public: &[F],
    proof: &Proof<F, E>,
) -> Result<(), SpartanError> {
    let layout = Layout::of::<F, E>(params, r1cs);
    verify_with(
        params,
        &layout,
        Statement::nizk(r1cs),
        public,
        proof,
        |r_x, eq_y, weights, _| Ok(combined_at(r1cs, &layout, r_x, eq_y, weights)),
    )
}

/// Checks a SNARK-mode proof with the verifying key alone.
pub fn verify_snark<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    vk: &VerifyingKey,
    public: &[F],
    proof: &SnarkProof<F, E>,
) -> Result<(), SpartanError> {
    let layout = vk.layout::<F, E>(params);
    let s = &vk.spark.shape;
    if (s.log_rows, s.log_cols) != (layout.log_rows, layout.log_cols) || !s.is_consistent() {
        return Err(SpartanError::Rejected("verifying key of the wrong shape"));
    }
    meets_target(soundness_snark::<F, E>(params, s))?;
    verify_with(
        params,
        &layout,
        Statement::snark(vk),
        public,
        &proof.proof,
        |r_x, eq_y, weights, t| {
            spark::verify::<F, E>(
                &params.pcs,
                &vk.spark,
                r_x,
                &eq_y.point,
                &proof.spark,
                weights,
                t,
            )
        },
    )
}

/// The verifier up to `M(r_x, r_y)`, which `matrices(r_x, eq(r_y), weights, transcript)`
/// supplies: from the R1CS (NIZK) or from a Spark proof (SNARK).
fn verify_with<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    layout: &Layout,
    statement: Statement,
    public: &[F],
    proof: &Proof<F, E>,
    matrices: impl FnOnce(&[E], &SplitEq<E>, [E; 3], &mut Transcript) -> Result<E, SpartanError>,
) -> Result<(), SpartanError> {
    check_soundness::<F, E>(params, layout)?;
    if public.len() != layout.n_public {
        return Err(SpartanError::PublicCount(public.len(), layout.n_public));
    }
    if proof.witness.num_vars != layout.log_cols - 1 {
        return Err(SpartanError::Rejected(
            "witness commitment of the wrong size",
        ));
    }
    let mut t = transcript(params, statement, public);
    t.append_bytes(b"witness commitment", &proof.witness.root);

    let tau: Vec<E> = t.challenges(b"tau", layout.log_rows);
    t.append_elements(b"outer mask sum", &[proof.outer_mask_sum]);
    let rho: E = t.challenge(b"outer mask");
    let (r_x, last) = sumcheck::verify_lens(
        rho * proof.outer_mask_sum,
        &outer_degrees(layout.log_rows),
        &proof.outer,
        &mut t,
    )?;
    let [va, vb, vc, p_at] = proof.claims;
    if last != eq_eval(&tau, &r_x).expect("same length") * (va * vb - vc) + rho * p_at {
        return Err(SpartanError::Rejected("outer sumcheck's final check"));
    }
    t.append_elements(b"outer claims", &proof.claims);

    let weights: [E; 4] = t.challenges(b"claim weights", 4).try_into().expect("four");
    let claim: E = weights
        .iter()
        .zip(&proof.claims)
        .map(|(w, c)| *w * *c)
        .sum();
    t.append_elements(b"inner mask sum", &[proof.inner_mask_sum]);
    let rho_in: E = t.challenge(b"inner mask");
    let (r_y, last) = sumcheck::verify(
        claim + rho_in * proof.inner_mask_sum,
        layout.log_cols,
        2, // s(0), s(2): the inner polynomial M·Z has degree 2
        &proof.inner,
        &mut t,
    )?;
    let (row_weights, col_point) = layout.opening(&r_y, rho_in);
    fastzk_pcs::verify(
        &params.pcs,
        &proof.witness,
        &row_weights,
        &col_point,
        proof.witness_eval,
        &proof.opening,
        &mut t,
    )?;
    // M(r_x, r_y) from the R1CS in O(nnz) or from Spark, plus the mask slots' entries.
    let eq_y = SplitEq::new(&r_y);
    let m_at = matrices(&r_x, &eq_y, [weights[0], weights[1], weights[2]], &mut t)?
        + mask_entries::<F, E>(layout, &r_x, &weights)
            .into_iter()
            .map(|(i, c)| c * eq_y.at(i))
            .sum::<E>();
    // IO(r_y') from the public inputs: (1, public, 0, …).
    let eq_io = SplitEq::new(&r_y[1..]);
    let io_at: E = std::iter::once(F::ONE)
        .chain(public.iter().copied())
        .enumerate()
        .map(|(k, x)| eq_io.at(k).mul_base(x))
        .sum();
    let z_at = proof.witness_eval + r_y[0] * io_at;
    if last != m_at * z_at {
        return Err(SpartanError::Rejected("inner sumcheck's final check"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastzk_field::{Field, Goldilocks, GoldilocksExt3};
    use fastzk_r1cs::synth::{synthesize, SynthParams};
    use rand_chacha::rand_core::SeedableRng;

    /// `M(r_x, ·)` as the prover makes it (the library's transposed product placed in
    /// the layout, with the masks' entries) against the sum taken entry by entry, on
    /// circuits from 2^4 to 2^15 constraints.
    #[test]
    fn matrix_row_matches_the_entry_sum() {
        type E = GoldilocksExt3;
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let ctx = Context::cpu();
        for log in [4u32, 10, 15] {
            let (r1cs, _) =
                synthesize::<Goldilocks>(&SynthParams::new(log), &mut rng).expect("instance");
            let layout = Layout::of::<Goldilocks, E>(&SpartanParams::default(), &r1cs);
            let r_x: Vec<E> = (0..layout.log_rows).map(|_| E::random(&mut rng)).collect();
            let w: [E; 4] = std::array::from_fn(|_| E::random(&mut rng));
            let row = eq_table(&r_x);
            let mut want = vec![E::ZERO; 1 << layout.log_cols];
            for (m, wm) in [r1cs.a(), r1cs.b(), r1cs.c()].into_iter().zip(w) {
                for (i, c, a) in m.triplets() {
                    want[layout.column(c as usize)] += wm * row[i] * E::from_base(a);
                }
            }
            for (i, c) in mask_entries::<Goldilocks, E>(&layout, &r_x, &w) {
                want[i] += c;
            }
            let mut task = ctx.task().unwrap();
            let matrices = Transposed::new(&[r1cs.a(), r1cs.b(), r1cs.c()]).unwrap();
            let got = matrix_row(&mut task, &matrices, &layout, &ctx.vec(row), &r_x, &w)
                .unwrap()
                .into_vec()
                .unwrap();
            assert!(got == want, "2^{log} constraints");
        }
    }
}
