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
//! Every challenge is drawn in `E` (Goldilocks' quadratic extension, or BN254's scalar
//! field itself); the committed witness stays in the base field. Zero knowledge (masked
//! sumchecks and hiding commitments) and the preprocessed SNARK mode (Spark) are not in
//! this version: this proof reveals information about the witness.

use fastzk_field::NttField;
use fastzk_multilinear::sumcheck::{self, SumcheckProof};
use fastzk_multilinear::{eq_eval, eq_table, HashKind, Mle, SumOfProducts, Table, Transcript};
use fastzk_pcs::{Commitment, EvalProof, ExtensionOf, OrionParams};
use fastzk_r1cs::{spmv, Csr, R1cs, R1csError};
use rayon::prelude::*;

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

impl Layout {
    fn of<F: NttField>(r1cs: &R1cs<F>) -> Self {
        let n_public = r1cs.n_public();
        let n_private = r1cs.n_vars() - n_public - 1;
        let half = n_private.max(n_public + 1).next_power_of_two();
        Self {
            log_rows: r1cs
                .n_constraints()
                .max(1)
                .next_power_of_two()
                .trailing_zeros() as usize,
            log_cols: 1 + half.trailing_zeros() as usize,
            n_public,
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

/// A digest of the R1CS, so the transcript binds the statement.
fn r1cs_digest<F: NttField>(r1cs: &R1cs<F>) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(&(r1cs.n_vars() as u64).to_le_bytes());
    h.update(&(r1cs.n_public() as u64).to_le_bytes());
    h.update(&(r1cs.n_constraints() as u64).to_le_bytes());
    for m in [r1cs.a(), r1cs.b(), r1cs.c()] {
        for p in m.row_ptr() {
            h.update(&(*p as u64).to_le_bytes());
        }
        for c in m.cols() {
            h.update(&c.to_le_bytes());
        }
        for v in m.vals() {
            h.update(&v.to_le_bytes());
        }
    }
    *h.finalize().as_bytes()
}

fn transcript<F: NttField>(params: &SpartanParams, r1cs: &R1cs<F>, public: &[F]) -> Transcript {
    let mut t = Transcript::new(params.hash(), b"fastzk spartan nizk v1");
    t.append_bytes(b"r1cs", &r1cs_digest(r1cs));
    let bytes: Vec<u8> = public.iter().flat_map(|x| x.to_le_bytes()).collect();
    t.append_bytes(b"public inputs", &bytes);
    t
}

/// `Σ_{(i, v, a)} w·a·row[i]` scattered to the columns: `rowᵀ·(r_A·A + r_B·B + r_C·C)`.
fn combined_columns<F: NttField, E: ExtensionOf<F>>(
    r1cs: &R1cs<F>,
    layout: &Layout,
    row: &[E],
    weights: [E; 3],
) -> Vec<E> {
    let mats: [&Csr<F>; 3] = [r1cs.a(), r1cs.b(), r1cs.c()];
    // Each matrix scatters into its own table (in parallel); then they are summed.
    let parts: Vec<Vec<E>> = mats
        .par_iter()
        .zip(weights.par_iter())
        .map(|(m, w)| {
            let mut out = vec![E::ZERO; 1 << layout.log_cols];
            for (i, v, a) in m.triplets() {
                out[layout.column(v as usize)] += (*w * row[i]).mul_base(a);
            }
            out
        })
        .collect();
    let mut total = parts[0].clone();
    for p in &parts[1..] {
        total.par_iter_mut().zip(p).for_each(|(t, x)| *t += *x);
    }
    total
}

/// Proves that `z` satisfies `r1cs` (refused, naming the constraint, when it does not).
pub fn prove<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
) -> Result<Proof<F, E>, SpartanError> {
    r1cs.check(z)?;
    prove_unchecked(params, r1cs, z)
}

/// [`prove`] without the satisfiability check (only the shape of `z` is checked): for
/// tests of the verifier against a prover that tries to prove a false statement.
#[doc(hidden)]
pub fn prove_unchecked<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    r1cs: &R1cs<F>,
    z: &[F],
) -> Result<Proof<F, E>, SpartanError> {
    r1cs.check_witness_shape(z)?;
    let layout = Layout::of(r1cs);
    check_soundness::<F, E>(params, &layout)?;
    let public = &z[1..=layout.n_public];
    let mut t = transcript(params, r1cs, public);

    let mut w = vec![F::ZERO; layout.half()];
    w[..z.len() - layout.n_public - 1].copy_from_slice(&z[layout.n_public + 1..]);
    let committed = fastzk_pcs::commit(&params.pcs, &w)?;
    t.append_bytes(b"witness commitment", &committed.commitment.root);

    // Outer sumcheck: the products are read from the base-field vectors and lifted on
    // the fly in its first round (NoCap's recomputation), then stored at half size.
    let rows = 1usize << layout.log_rows;
    let pad = |mut v: Vec<F>| {
        v.resize(rows, F::ZERO);
        v
    };
    let az = pad(spmv(r1cs.a(), z));
    let bz = pad(spmv(r1cs.b(), z));
    let cz = pad(spmv(r1cs.c(), z));
    let tau: Vec<E> = t.challenges(b"tau", layout.log_rows);
    let (fa, fb, fc) = (
        |j: usize| E::from_base(az[j]),
        |j: usize| E::from_base(bz[j]),
        |j: usize| E::from_base(cz[j]),
    );
    fn lazy<E>(num_vars: usize, value: &(dyn Fn(usize) -> E + Sync)) -> Table<'_, E> {
        Table::Lazy { num_vars, value }
    }
    let n = layout.log_rows;
    let outer_g = outer_polynomial::<E>();
    let outer = sumcheck::prove(
        vec![
            Table::Dense(Mle::new(eq_table(&tau)).expect("power of two")),
            lazy(n, &fa),
            lazy(n, &fb),
            lazy(n, &fc),
        ],
        &outer_g,
        &mut t,
    )?;
    let abc = [outer.values[1], outer.values[2], outer.values[3]];
    t.append_elements(b"abc at r_x", &abc);

    // Inner sumcheck over the columns.
    let weights: [E; 3] = t.challenges(b"r_abc", 3).try_into().expect("three");
    let m = combined_columns(r1cs, &layout, &eq_table(&outer.point), weights);
    let mut z_cols = vec![F::ZERO; 1 << layout.log_cols];
    for (v, x) in z.iter().enumerate() {
        z_cols[layout.column(v)] = *x;
    }
    let fz = |j: usize| E::from_base(z_cols[j]);
    let inner = sumcheck::prove(
        vec![
            Table::Dense(Mle::new(m).expect("power of two")),
            Table::Lazy {
                num_vars: layout.log_cols,
                value: &fz,
            },
        ],
        &inner_polynomial::<E>(),
        &mut t,
    )?;
    let (witness_eval, opening) =
        fastzk_pcs::open(&params.pcs, &committed, &inner.point[1..], &mut t)?;
    Ok(Proof {
        witness: committed.commitment,
        outer: outer.proof,
        abc,
        inner: inner.proof,
        witness_eval,
        opening,
    })
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
    let m_at = {
        let eq_y = eq_table(&r_y);
        let cols = combined_columns(r1cs, &layout, &eq_table(&r_x), weights);
        cols.par_iter().zip(&eq_y).map(|(a, b)| *a * *b).sum::<E>()
    };
    // IO(r_y') from the public inputs: (1, public, 0, …).
    let io_at: E = std::iter::once(F::ONE)
        .chain(public.iter().copied())
        .enumerate()
        .map(|(k, x)| {
            let bits: Vec<E> = (0..layout.log_cols - 1)
                .map(|b| {
                    if (k >> (layout.log_cols - 2 - b)) & 1 == 1 {
                        E::ONE
                    } else {
                        E::ZERO
                    }
                })
                .collect();
            eq_eval(&r_y[1..], &bits).expect("same length").mul_base(x)
        })
        .sum();
    let z_at = (E::ONE - r_y[0]) * proof.witness_eval + r_y[0] * io_at;
    if last != m_at * z_at {
        return Err(SpartanError::Rejected("inner sumcheck's final check"));
    }
    Ok(())
}
