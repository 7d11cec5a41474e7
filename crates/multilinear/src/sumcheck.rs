//! The sumcheck protocol for `Σ_{x ∈ {0,1}^n} g(f_1(x), …, f_k(x))`, where the `f_i` are
//! multilinear tables and `g` a sum of products of them ([`SumOfProducts`], degree `d`):
//! Spartan's outer check `eq·(Az·Bz − Cz)` is degree 3, its inner one degree 2.
//!
//! Round `i` binds variable `i` (the most significant index bit, see [`crate::mle`]):
//! the prover sends the univariate `s_i(X) = Σ_{x'} g(f(r_0…r_{i−1}, X, x'))` as its
//! values at `X = 0, 2, 3, …, d` (`s_i(1)` follows from the running claim, so it is not
//! sent), absorbs them, and binds `X` to the transcript's challenge. The verifier checks
//! nothing until the end: the last claim must equal `g` at the tables' values at the
//! random point, which the caller obtains (from a commitment opening, or by evaluating
//! the tables itself) — [`verify_with_values`] does both steps when the caller holds the
//! values. Soundness error `n·d/|F|` (Schwartz–Zippel per round): over Goldilocks, run
//! it over the extension.
//!
//! Tables may be [`Table::Lazy`]: a function giving entry `j`, read twice in the first
//! round (once for the message, once to bind) instead of being stored — NoCap's
//! recomputation (§V), which on a CPU halves the peak memory of a sumcheck over
//! products of tables the prover can regenerate (`Az`, `Bz`, `Cz` from the R1CS).

use fastzk_field::Field;
use rayon::prelude::*;

use crate::mask::UnivariateMask;
use crate::mle::{bind_first_in_place, eq_table, Mle};
use crate::transcript::{Absorb, Transcript};
use crate::SumcheckError;

/// Pairs per rayon task.
const CHUNK: usize = 1 << 12;

/// `g(f_1, …, f_k) = Σ_t c_t·Π_{i ∈ S_t} f_i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SumOfProducts<F> {
    terms: Vec<(F, Vec<usize>)>,
    tables: usize,
}

impl<F: Field> SumOfProducts<F> {
    /// The zero polynomial over `tables` tables.
    pub fn new(tables: usize) -> Self {
        Self {
            terms: Vec::new(),
            tables,
        }
    }

    /// Adds `coeff·Π f_i` over `factors` (an empty list is the constant `coeff`).
    pub fn term(mut self, coeff: F, factors: &[usize]) -> Result<Self, SumcheckError> {
        if let Some(&bad) = factors.iter().find(|&&i| i >= self.tables) {
            return Err(SumcheckError::NoSuchTable {
                index: bad,
                tables: self.tables,
            });
        }
        self.terms.push((coeff, factors.to_vec()));
        Ok(self)
    }

    pub fn tables(&self) -> usize {
        self.tables
    }

    /// The largest number of factors in a term.
    pub fn degree(&self) -> usize {
        self.terms.iter().map(|(_, s)| s.len()).max().unwrap_or(0)
    }

    /// Values sent per round: `s(0), s(2), …, s(d)` (at least `s(0)`).
    pub fn message_len(&self) -> usize {
        self.degree().max(1)
    }

    /// `g` at the tables' values `values[i] = f_i`.
    pub fn evaluate(&self, values: &[F]) -> Result<F, SumcheckError> {
        if values.len() != self.tables {
            return Err(SumcheckError::ValueCount {
                expected: self.tables,
                got: values.len(),
            });
        }
        Ok(self.eval_unchecked(values))
    }

    /// The hot loop of every round: a coefficient of ±1 costs no multiplication.
    #[inline]
    fn eval_unchecked(&self, values: &[F]) -> F {
        let mut acc = F::ZERO;
        for (c, s) in &self.terms {
            let Some((&first, rest)) = s.split_first() else {
                acc += *c;
                continue;
            };
            let prod = rest.iter().fold(values[first], |p, &i| p * values[i]);
            if *c == F::ONE {
                acc += prod;
            } else if *c == -F::ONE {
                acc -= prod;
            } else {
                acc += *c * prod;
            }
        }
        acc
    }

    /// `Σ_j w_j·g_j` over the concatenation of the parts' tables (part `j`'s table `i`
    /// becomes table `offset_j + i`): several claims checked by one sumcheck.
    pub fn combine(parts: &[Self], weights: &[F]) -> Result<Self, SumcheckError> {
        if parts.len() != weights.len() {
            return Err(SumcheckError::ValueCount {
                expected: parts.len(),
                got: weights.len(),
            });
        }
        let mut out = Self::new(parts.iter().map(|p| p.tables).sum());
        let mut offset = 0;
        for (p, &w) in parts.iter().zip(weights) {
            for (c, s) in &p.terms {
                out.terms
                    .push((*c * w, s.iter().map(|&i| i + offset).collect()));
            }
            offset += p.tables;
        }
        Ok(out)
    }
}

/// A table the prover sums over: stored, or recomputed from a function of the index.
pub enum Table<'a, F> {
    Dense(Mle<F>),
    Lazy {
        num_vars: usize,
        value: &'a (dyn Fn(usize) -> F + Sync),
    },
}

impl<F: Field> Table<'_, F> {
    fn num_vars(&self) -> usize {
        match self {
            Table::Dense(m) => m.num_vars(),
            Table::Lazy { num_vars, .. } => *num_vars,
        }
    }

    #[inline]
    fn at(&self, j: usize) -> F {
        match self {
            Table::Dense(m) => m.evals()[j],
            Table::Lazy { value, .. } => value(j),
        }
    }

    /// A lazy table stored as it is (no variable bound).
    fn bind_none(self) -> Mle<F> {
        match self {
            Table::Dense(m) => m,
            Table::Lazy { num_vars, value } => {
                let evals = (0..1usize << num_vars)
                    .into_par_iter()
                    .with_min_len(CHUNK)
                    .map(value)
                    .collect();
                Mle::new(evals).expect("a power of two")
            }
        }
    }

    /// Binds the first variable, turning a lazy table into a stored one of half size.
    fn bind(self, r: F) -> Mle<F> {
        match self {
            Table::Dense(mut m) => {
                m.fix_first_in_place(r)
                    .expect("bound only while variables remain");
                m
            }
            Table::Lazy { num_vars, value } => {
                let half = 1usize << (num_vars - 1);
                let evals = (0..half)
                    .into_par_iter()
                    .with_min_len(CHUNK)
                    .map(|j| {
                        let lo = value(j);
                        lo + r * (value(j + half) - lo)
                    })
                    .collect();
                Mle::new(evals).expect("a power of two")
            }
        }
    }
}

/// The prover's messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SumcheckProof<F> {
    /// Round `i`: `s_i(0), s_i(2), …, s_i(d)`.
    pub rounds: Vec<Vec<F>>,
}

/// What the prover ends with.
#[derive(Clone, Debug)]
pub struct ProverOutput<F> {
    pub proof: SumcheckProof<F>,
    /// The sum that was proved.
    pub claim: F,
    /// The challenges `r_0, …, r_{n−1}`.
    pub point: Vec<F>,
    /// Each table's value at `point` (what the verifier's final check needs).
    pub values: Vec<F>,
}

/// Proves `claim = Σ_x g(f(x))` (the prover computes the claim; the caller compares it
/// with the one in its statement). The claim and every message are absorbed.
pub fn prove<F: Field + Absorb>(
    tables: Vec<Table<'_, F>>,
    g: &SumOfProducts<F>,
    transcript: &mut Transcript,
) -> Result<ProverOutput<F>, SumcheckError> {
    check_tables(&tables, g)?;
    let claim = total(&tables, g);
    prove_claimed(tables, g, claim, transcript)
}

/// [`prove`] for a sum the caller already knows (saves a pass over the tables; a wrong
/// `claim` gives a proof that does not verify).
pub fn prove_claimed<F: Field + Absorb>(
    tables: Vec<Table<'_, F>>,
    g: &SumOfProducts<F>,
    claim: F,
    transcript: &mut Transcript,
) -> Result<ProverOutput<F>, SumcheckError> {
    check_tables(&tables, g)?;
    transcript.append_elements(b"sumcheck claim", &[claim]);
    let (rounds, point, values) = prove_rounds(tables, g, claim, transcript)?;
    Ok(ProverOutput {
        proof: SumcheckProof { rounds },
        claim,
        point,
        values,
    })
}

/// The rounds alone, from a running claim, for a caller that computed the first
/// rounds its own way (cheaper arithmetic in the base field, say) and absorbed them as
/// [`absorb_round`] does: returns the messages, the challenges and the tables' values.
pub type Rounds<F> = (Vec<Vec<F>>, Vec<F>, Vec<F>);

/// See [`Rounds`].
pub fn prove_rounds<F: Field + Absorb>(
    tables: Vec<Table<'_, F>>,
    g: &SumOfProducts<F>,
    claim: F,
    transcript: &mut Transcript,
) -> Result<Rounds<F>, SumcheckError> {
    let n = check_tables(&tables, g)?;
    let run = run_rounds(tables, g, claim, n, None, transcript)?;
    // (`g(values) = running` holds when the claim was the true sum; a caller's wrong
    // claim is for the verifier to reject, not a reason to stop here.)
    let values = run.tables.iter().map(|t| t.evals()[0]).collect::<Vec<_>>();
    Ok((run.rounds, run.point, values))
}

/// A zero-knowledge sumcheck's mask: the masking polynomial, its weight `ρ`, and the
/// challenges of the rounds the caller ran before (the mask's variables are the whole
/// sumcheck's).
pub struct Masking<'a, F> {
    pub mask: &'a UnivariateMask<F>,
    pub rho: F,
    pub earlier: Vec<F>,
}

impl<F: Field> Masking<'_, F> {
    /// Adds `ρ` times the mask's message to a round's message `s(0), s(2), …`, the round
    /// coming after the `earlier` challenges and then `point`.
    pub fn add(&self, msg: &mut [F], point: &[F]) {
        let prefix: Vec<F> = self.earlier.iter().chain(point).copied().collect();
        let pm = self.mask.round_message(&prefix, msg.len());
        msg.iter_mut().zip(pm).for_each(|(a, b)| *a += self.rho * b);
    }
}

/// Where [`run_rounds`] stopped.
pub struct RunState<F> {
    pub rounds: Vec<Vec<F>>,
    pub point: Vec<F>,
    /// The claim for the rest of the sum.
    pub running: F,
    /// The tables with the rounds' variables bound.
    pub tables: Vec<Mle<F>>,
}

/// `count` rounds of the sumcheck of `g` (plus `ρ·p` when masked) from a running claim.
pub fn run_rounds<F: Field + Absorb>(
    tables: Vec<Table<'_, F>>,
    g: &SumOfProducts<F>,
    claim: F,
    count: usize,
    masking: Option<&Masking<'_, F>>,
    transcript: &mut Transcript,
) -> Result<RunState<F>, SumcheckError> {
    let n = check_tables(&tables, g)?;
    if count > n {
        return Err(SumcheckError::RoundCount {
            expected: n,
            got: count,
        });
    }
    let mut rounds = Vec::with_capacity(count);
    let mut point: Vec<F> = Vec::with_capacity(count);
    let mut running = claim;
    let mut current: Vec<Table<'_, F>> = tables;
    for _ in 0..count {
        let mut msg = round_message(&current, g);
        if let Some(m) = masking {
            m.add(&mut msg, &point);
        }
        let r;
        (r, running) = absorb_round(&msg, running, transcript);
        current = current
            .into_iter()
            .map(|t| Table::Dense(t.bind(r)))
            .collect();
        rounds.push(msg);
        point.push(r);
    }
    let tables = current
        .into_iter()
        .map(|t| match t {
            Table::Dense(m) => m,
            lazy => lazy.bind_none(),
        })
        .collect();
    Ok(RunState {
        rounds,
        point,
        running,
        tables,
    })
}

/// The variables of stored tables of one power-of-two length.
fn stored_tables_vars<F>(tables: &[Vec<F>]) -> Result<usize, SumcheckError> {
    let len = tables[0].len();
    let n = len.trailing_zeros() as usize;
    match tables
        .iter()
        .find(|t| t.len() != len || !len.is_power_of_two())
    {
        Some(t) => Err(SumcheckError::TableSizes {
            expected: n,
            got: t.len().trailing_zeros() as usize,
        }),
        None => Ok(n),
    }
}

/// What [`run_fused`] returns: the messages, the challenges, the running claim and the
/// tables with those variables bound.
pub type FusedRun<F, const K: usize> = (Vec<Vec<F>>, Vec<F>, F, [Vec<F>; K]);

/// `count` rounds of the sumcheck of `g(f_1, …, f_K)` for a `g` given as a function of
/// degree `degree` (plus `ρ·p` when masked), on stored tables of equal power-of-two
/// length: each round's binding is fused with the next round's message, one pass over
/// the tables per round, and `g` is called on a stack array (no per-term loop). For a
/// prover's hot sumchecks; [`run_rounds`] is the general form.
pub fn run_fused<F: Field + Absorb, const K: usize>(
    mut tables: [Vec<F>; K],
    degree: usize,
    g: impl Fn(&[F; K]) -> F + Sync,
    claim: F,
    count: usize,
    masking: Option<&Masking<'_, F>>,
    transcript: &mut Transcript,
) -> Result<FusedRun<F, K>, SumcheckError> {
    let n = stored_tables_vars(&tables)?;
    if count > n {
        return Err(SumcheckError::RoundCount {
            expected: n,
            got: count,
        });
    }
    let points = degree.max(1);
    let mut rounds = Vec::with_capacity(count);
    let mut point: Vec<F> = Vec::with_capacity(count);
    let mut running = claim;
    let mut msg = if count > 0 {
        pair_message(&tables, points, &g)
    } else {
        Vec::new()
    };
    for round in 0..count {
        if let Some(m) = masking {
            m.add(&mut msg, &point);
        }
        let r;
        (r, running) = absorb_round(&msg, running, transcript);
        rounds.push(std::mem::take(&mut msg));
        point.push(r);
        if round + 1 < count {
            msg = bind_and_message(&mut tables, r, points, &g);
        } else {
            for t in tables.iter_mut() {
                bind_first_in_place(t, r);
            }
        }
    }
    Ok((rounds, point, running, tables))
}

/// What [`run_fused_eq`] returns: [`FusedRun`] and `eq(q, ·)` of the bound variables.
pub type FusedEqRun<F, const K: usize> = (Vec<Vec<F>>, Vec<F>, F, [Vec<F>; K], F);

/// `count` rounds of the sumcheck of `α·eq(q, x)·g(f_1, …, f_K)` (plus `ρ·p` when
/// masked) with `eq` factored out (Gruen): round `i` sends
/// `s(X) = α·eq(q_i, X)·t(X) (+ ρ·p_i(X))` where
/// `t(X) = Σ_x' eq(q_>i, x')·g(f(X, x'))` has `g`'s degree; the prover sums `t` at
/// `0, 2, …, degree` only (`t(1)` follows from the running claim) and binds no `eq`
/// table, and `α` takes `eq(q_i, r_i)` each round. The messages are those of the
/// sumcheck of `eq·g` (degree `degree + 1`). `q` holds `eq`'s coordinates for the
/// tables' variables; `α` is `eq`'s factor from variables bound before.
#[allow(clippy::too_many_arguments)]
pub fn run_fused_eq<F: Field + Absorb, const K: usize>(
    mut tables: [Vec<F>; K],
    q: &[F],
    mut alpha: F,
    degree: usize,
    g: impl Fn(&[F; K]) -> F + Sync,
    claim: F,
    count: usize,
    masking: Option<&Masking<'_, F>>,
    transcript: &mut Transcript,
) -> Result<FusedEqRun<F, K>, SumcheckError> {
    let n = stored_tables_vars(&tables)?;
    if count > n || q.len() != n {
        return Err(SumcheckError::RoundCount {
            expected: n,
            got: count.max(q.len()),
        });
    }
    let mut rounds = Vec::with_capacity(count);
    let mut point: Vec<F> = Vec::with_capacity(count);
    let mut running = claim;
    for i in 0..count {
        let qi = q[i];
        let rest = eq_table(&q[i + 1..]);
        let half = tables[0].len() / 2;
        // t at 0, 2, …, degree (and at 1 when asked).
        let sums = |with_one: bool| -> Vec<F> {
            (0..half)
                .into_par_iter()
                .with_min_len(CHUNK)
                .fold(
                    || vec![F::ZERO; degree + 1],
                    |mut acc, j| {
                        let lo: [F; K] = std::array::from_fn(|k| tables[k][j]);
                        let hi: [F; K] = std::array::from_fn(|k| tables[k][j + half]);
                        let diff: [F; K] = std::array::from_fn(|k| hi[k] - lo[k]);
                        acc[0] += rest[j] * g(&lo);
                        if with_one {
                            acc[1] += rest[j] * g(&hi);
                        }
                        let mut v = hi;
                        for s in acc.iter_mut().skip(2) {
                            v.iter_mut().zip(&diff).for_each(|(x, d)| *x += *d);
                            *s += rest[j] * g(&v);
                        }
                        acc
                    },
                )
                .reduce(|| vec![F::ZERO; degree + 1], add_sums)
        };
        let t = sums(false);
        let msg = eq_round_message(t, qi, alpha, running, masking, &point, || {
            Ok::<_, std::convert::Infallible>(sums(true)[1])
        })
        .unwrap_or_else(|never| match never {});
        let r;
        (r, running) = absorb_round(&msg, running, transcript);
        alpha *= eq_factor(qi, r);
        for table in tables.iter_mut() {
            bind_first_in_place(table, r);
        }
        rounds.push(msg);
        point.push(r);
    }
    Ok((rounds, point, running, tables, alpha))
}

/// `eq(q_i, X)` as a line in `X`: `1 − q_i + (2q_i − 1)·X`.
pub fn eq_factor<F: Field>(qi: F, x: F) -> F {
    F::ONE - qi + (qi.double() - F::ONE) * x
}

/// A round's message `s(0), s(2), …, s(degree + 1)` of [`run_fused_eq`] from `t` (its
/// sums at `0, 1, 2, …, degree`, `t[1]` not yet known): `t(1)` follows from the running
/// claim, less the mask's part, when `α·q_i ≠ 0`, and `t1` sums it otherwise; the mask's
/// message is added after `masking.earlier` and `point`. Shared by every prover of such
/// rounds, so that they send the same messages.
pub fn eq_round_message<F: Field, Err>(
    mut t: Vec<F>,
    qi: F,
    alpha: F,
    running: F,
    masking: Option<&Masking<'_, F>>,
    point: &[F],
    t1: impl FnOnce() -> Result<F, Err>,
) -> Result<Vec<F>, Err> {
    let prefix: Vec<F> = masking
        .map(|m| m.earlier.iter().chain(point).copied().collect())
        .unwrap_or_default();
    let mask_claim = masking.map_or(F::ZERO, |m| {
        m.rho * (m.mask.round_at(&prefix, F::ZERO) + m.mask.round_at(&prefix, F::ONE))
    });
    t[1] = match (alpha * qi).inverse() {
        Some(inv) => (running - mask_claim - alpha * (F::ONE - qi) * t[0]) * inv,
        None => t1()?,
    };
    let degree = t.len() - 1;
    let mut msg: Vec<F> = std::iter::once(0u64)
        .chain(2..=degree as u64 + 1)
        .map(|x| {
            let x = F::from_u64(x);
            alpha * eq_factor(qi, x) * interpolate(&t, x)
        })
        .collect();
    if let Some(m) = masking {
        m.add(&mut msg, point);
    }
    Ok(msg)
}

/// Adds `g` at `X = 0, 2, …, points` of the pair `(lo, hi)` to `sums`.
#[inline(always)]
fn add_pair<F: Field, const K: usize>(
    sums: &mut [F],
    lo: [F; K],
    hi: [F; K],
    g: &impl Fn(&[F; K]) -> F,
) {
    let diff: [F; K] = std::array::from_fn(|k| hi[k] - lo[k]);
    let mut v = lo;
    sums[0] += g(&v);
    v = hi;
    for s in sums.iter_mut().skip(1) {
        v.iter_mut().zip(&diff).for_each(|(x, d)| *x += *d);
        *s += g(&v);
    }
}

fn add_sums<F: Field>(mut a: Vec<F>, b: Vec<F>) -> Vec<F> {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
    a
}

/// A round's message over the pairs `(j, j + half)` of the tables.
fn pair_message<F: Field, const K: usize>(
    tables: &[Vec<F>; K],
    points: usize,
    g: &(impl Fn(&[F; K]) -> F + Sync),
) -> Vec<F> {
    let half = tables[0].len() / 2;
    (0..half)
        .into_par_iter()
        .with_min_len(CHUNK)
        .fold(
            || vec![F::ZERO; points],
            |mut sums, j| {
                let lo = std::array::from_fn(|k| tables[k][j]);
                let hi = std::array::from_fn(|k| tables[k][j + half]);
                add_pair(&mut sums, lo, hi, g);
                sums
            },
        )
        .reduce(|| vec![F::ZERO; points], add_sums)
}

/// Binds the first variable to `r` in place and returns the next round's message from
/// the bound values as they are written: quarter `A` of each table becomes
/// `A + r·(C − A)` and `B` becomes `B + r·(D − B)`, and `(A[j], B[j])` is the next
/// round's pair `j`.
fn bind_and_message<F: Field, const K: usize>(
    tables: &mut [Vec<F>; K],
    r: F,
    points: usize,
    g: &(impl Fn(&[F; K]) -> F + Sync),
) -> Vec<F> {
    let half = tables[0].len() / 2;
    let quarter = half / 2;
    type Quarters<'a, F> = (&'a mut [F], &'a mut [F], &'a [F], &'a [F]);
    let mut per_table: [std::vec::IntoIter<Quarters<'_, F>>; K] = tables.each_mut().map(|t| {
        let (first, second) = t.split_at_mut(half);
        let (a, b) = first.split_at_mut(quarter);
        let (c, d) = second.split_at(quarter);
        a.chunks_mut(CHUNK)
            .zip(b.chunks_mut(CHUNK))
            .zip(c.chunks(CHUNK).zip(d.chunks(CHUNK)))
            .map(|((a, b), (c, d))| (a, b, c, d))
            .collect::<Vec<_>>()
            .into_iter()
    });
    let items: Vec<[Quarters<'_, F>; K]> = (0..quarter.div_ceil(CHUNK))
        .map(|_| std::array::from_fn(|k| per_table[k].next().expect("same chunk count")))
        .collect();
    let msg = items
        .into_par_iter()
        .map(|mut item| {
            let mut sums = vec![F::ZERO; points];
            for j in 0..item[0].0.len() {
                let lo = std::array::from_fn(|k| {
                    let (a, _, c, _) = &mut item[k];
                    a[j] += r * (c[j] - a[j]);
                    a[j]
                });
                let hi = std::array::from_fn(|k| {
                    let (_, b, _, d) = &mut item[k];
                    b[j] += r * (d[j] - b[j]);
                    b[j]
                });
                add_pair(&mut sums, lo, hi, g);
            }
            sums
        })
        .reduce(|| vec![F::ZERO; points], add_sums);
    for t in tables.iter_mut() {
        t.truncate(half);
    }
    msg
}

/// Absorbs one round's message and draws its challenge `r`; returns `r` and the next
/// running claim `s(r)`.
pub fn absorb_round<F: Field + Absorb>(msg: &[F], claim: F, transcript: &mut Transcript) -> (F, F) {
    transcript.append_elements(b"sumcheck round", msg);
    let r: F = transcript.challenge(b"sumcheck challenge");
    (r, next_claim(claim, msg, r))
}

/// The tables' common number of variables, after checking they match `g`.
fn check_tables<F: Field>(
    tables: &[Table<'_, F>],
    g: &SumOfProducts<F>,
) -> Result<usize, SumcheckError> {
    if tables.len() != g.tables {
        return Err(SumcheckError::ValueCount {
            expected: g.tables,
            got: tables.len(),
        });
    }
    let n = tables.first().map_or(0, |t| t.num_vars());
    if let Some(t) = tables.iter().find(|t| t.num_vars() != n) {
        return Err(SumcheckError::TableSizes {
            expected: n,
            got: t.num_vars(),
        });
    }
    Ok(n)
}

/// `Σ_x g(f(x))` over the whole hypercube.
fn total<F: Field>(tables: &[Table<'_, F>], g: &SumOfProducts<F>) -> F {
    let len = 1usize << tables.first().map_or(0, |t| t.num_vars());
    (0..len)
        .into_par_iter()
        .with_min_len(CHUNK)
        .fold(
            || (F::ZERO, vec![F::ZERO; tables.len()]),
            |(acc, mut vals), j| {
                for (v, t) in vals.iter_mut().zip(tables) {
                    *v = t.at(j);
                }
                (acc + g.eval_unchecked(&vals), vals)
            },
        )
        .map(|(acc, _)| acc)
        .sum()
}

/// `s(0), s(2), …, s(d)` for the current tables.
fn round_message<F: Field>(tables: &[Table<'_, F>], g: &SumOfProducts<F>) -> Vec<F> {
    let k = tables.len();
    let len = g.message_len();
    let half = 1usize << (tables[0].num_vars() - 1);
    let zero = || (vec![F::ZERO; len], vec![F::ZERO; k], vec![F::ZERO; k]);
    let sums = (0..half)
        .into_par_iter()
        .with_min_len(CHUNK)
        .fold(zero, |(mut sums, mut vals, mut diffs), j| {
            for i in 0..k {
                let lo = tables[i].at(j);
                let hi = tables[i].at(j + half);
                vals[i] = lo;
                diffs[i] = hi - lo;
            }
            sums[0] += g.eval_unchecked(&vals);
            // X = 1, then 2, 3, …: one addition per table per point.
            for v in vals.iter_mut().zip(&diffs) {
                *v.0 += *v.1;
            }
            for s in sums.iter_mut().skip(1) {
                for v in vals.iter_mut().zip(&diffs) {
                    *v.0 += *v.1;
                }
                *s += g.eval_unchecked(&vals);
            }
            (sums, vals, diffs)
        })
        .map(|(s, _, _)| s)
        .reduce(
            || vec![F::ZERO; len],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        );
    sums
}

/// The values of `s` at `0, 1, …, d` from a message and the running claim
/// (`s(1) = claim − s(0)`).
fn full_values<F: Field>(claim: F, msg: &[F]) -> Vec<F> {
    let mut v = Vec::with_capacity(msg.len() + 1);
    v.push(msg[0]);
    v.push(claim - msg[0]);
    v.extend_from_slice(&msg[1..]);
    v
}

/// `s(r)` for the polynomial of degree `≤ d` with the given values at `0, …, d`
/// (Lagrange interpolation on the integer nodes).
pub fn interpolate<F: Field>(values: &[F], r: F) -> F {
    let d = values.len();
    let node = |m: usize| F::from_u64(m as u64);
    (0..d)
        .map(|k| {
            let mut num = F::ONE;
            let mut den = F::ONE;
            for m in (0..d).filter(|&m| m != k) {
                num *= r - node(m);
                den *= node(k) - node(m);
            }
            values[k]
                * num
                * den
                    .inverse()
                    .expect("distinct small nodes in a large field")
        })
        .sum()
}

fn next_claim<F: Field>(claim: F, msg: &[F], r: F) -> F {
    interpolate(&full_values(claim, msg), r)
}

/// Replays the transcript and returns the random point and the claim the tables'
/// values there must satisfy (`g(f(point)) = claim`); the caller checks that.
pub fn verify<F: Field + Absorb>(
    claim: F,
    num_vars: usize,
    message_len: usize,
    proof: &SumcheckProof<F>,
    transcript: &mut Transcript,
) -> Result<(Vec<F>, F), SumcheckError> {
    verify_lens(claim, &vec![message_len; num_vars], proof, transcript)
}

/// [`verify`] for rounds of different degrees: round `i` sends `lens[i]` values.
pub fn verify_lens<F: Field + Absorb>(
    claim: F,
    lens: &[usize],
    proof: &SumcheckProof<F>,
    transcript: &mut Transcript,
) -> Result<(Vec<F>, F), SumcheckError> {
    if proof.rounds.len() != lens.len() {
        return Err(SumcheckError::RoundCount {
            expected: lens.len(),
            got: proof.rounds.len(),
        });
    }
    transcript.append_elements(b"sumcheck claim", &[claim]);
    let mut running = claim;
    let mut point = Vec::with_capacity(lens.len());
    for (i, (msg, &len)) in proof.rounds.iter().zip(lens).enumerate() {
        if msg.len() != len || len == 0 {
            return Err(SumcheckError::MessageLength {
                round: i,
                expected: len,
                got: msg.len(),
            });
        }
        let r;
        (r, running) = absorb_round(msg, running, transcript);
        point.push(r);
    }
    Ok((point, running))
}

/// [`verify`] plus the final check against the tables' values at the point.
pub fn verify_with_values<F: Field + Absorb>(
    claim: F,
    num_vars: usize,
    g: &SumOfProducts<F>,
    proof: &SumcheckProof<F>,
    values: &[F],
    transcript: &mut Transcript,
) -> Result<Vec<F>, SumcheckError> {
    let (point, expected) = verify(claim, num_vars, g.message_len(), proof, transcript)?;
    if g.evaluate(values)? != expected {
        return Err(SumcheckError::FinalCheck);
    }
    Ok(point)
}

/// Weights `1, α, α², …` for batching `claims` into one sumcheck, with `α` drawn after
/// the claims are absorbed; returns the weights and `Σ α^j·claim_j`.
pub fn batch_claims<F: Field + Absorb>(claims: &[F], transcript: &mut Transcript) -> (Vec<F>, F) {
    transcript.append_elements(b"sumcheck batch claims", claims);
    let alpha: F = transcript.challenge(b"sumcheck batch");
    let mut w = F::ONE;
    let weights: Vec<F> = claims
        .iter()
        .map(|_| {
            let cur = w;
            w *= alpha;
            cur
        })
        .collect();
    let combined = claims.iter().zip(&weights).map(|(c, w)| *c * *w).sum();
    (weights, combined)
}
