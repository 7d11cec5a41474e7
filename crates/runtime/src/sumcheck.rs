//! The sumchecks of `Σ_x a(x)·b(x)·c(x)` and `Σ_x a(x)·b(x)` written once on the layer:
//! the same rounds as the hand-written `fastzk_multilinear::sumcheck::run_fused` with
//! `g = a·b·c` or `a·b` (same transcript, same messages, same challenges), on the CPU or
//! a device; and the rounds of `Σ_x eq(q, x)·(a(x)·b(x) − c(x))` (Spartan's outer
//! sumcheck) as `run_fused_eq` gives them, `eq` factored out. Each round is one pass: a
//! kernel binds the tables to the last challenge and sums the next message at once.
//!
//! A table of `2^k` entries is held as its two halves, `lo = t[..2^(k−1)]` and
//! `hi = t[2^(k−1)..]`: round pairs are `(lo[j], hi[j])`, and binding writes the next
//! round's halves directly (`lo'[j]` from pair `j`, `hi'[j]` from pair `j + 2^(k−2)`).

use fastzk_multilinear::sumcheck::{absorb_round, eq_factor, eq_round_message, Masking};
use fastzk_multilinear::{Absorb, Transcript};

use crate::{kernel, Arg, Context, FieldVec, Kernel, KernelField, RuntimeError, Sum, Task};

/// The message of a round, `s(0), s(2), s(3)`, from pair `j`.
#[kernel]
pub fn product3_message<F: KernelField>(
    j: usize,
    al: &[F],
    ah: &[F],
    bl: &[F],
    bh: &[F],
    cl: &[F],
    ch: &[F],
) -> [F; 3] {
    let a0 = al[j];
    let b0 = bl[j];
    let c0 = cl[j];
    let da = ah[j] - a0;
    let db = bh[j] - b0;
    let dc = ch[j] - c0;
    let a2 = ah[j] + da;
    let b2 = bh[j] + db;
    let c2 = ch[j] + dc;
    [
        a0 * b0 * c0,
        a2 * b2 * c2,
        (a2 + da) * (b2 + db) * (c2 + dc),
    ]
}

/// Binds pairs `j` and `j + q` of each table to `r` (the next round's halves at `j`) and
/// gives the next message's terms from them.
#[kernel]
pub fn product3_round<F: KernelField>(
    j: usize,
    al: &[F],
    ah: &[F],
    bl: &[F],
    bh: &[F],
    cl: &[F],
    ch: &[F],
    q: usize,
    r: F,
) -> [F; 9] {
    let a0 = al[j] + r * (ah[j] - al[j]);
    let a1 = al[j + q] + r * (ah[j + q] - al[j + q]);
    let b0 = bl[j] + r * (bh[j] - bl[j]);
    let b1 = bl[j + q] + r * (bh[j + q] - bl[j + q]);
    let c0 = cl[j] + r * (ch[j] - cl[j]);
    let c1 = cl[j + q] + r * (ch[j + q] - cl[j + q]);
    let da = a1 - a0;
    let db = b1 - b0;
    let dc = c1 - c0;
    let a2 = a1 + da;
    let b2 = b1 + db;
    let c2 = c1 + dc;
    [
        a0,
        a1,
        b0,
        b1,
        c0,
        c1,
        a0 * b0 * c0,
        a2 * b2 * c2,
        (a2 + da) * (b2 + db) * (c2 + dc),
    ]
}

/// Binds the last pair of each table: the tables' values at the challenges.
#[kernel]
pub fn product3_last<F: KernelField>(
    j: usize,
    al: &[F],
    ah: &[F],
    bl: &[F],
    bh: &[F],
    cl: &[F],
    ch: &[F],
    r: F,
) -> [F; 3] {
    [
        al[j] + r * (ah[j] - al[j]),
        bl[j] + r * (bh[j] - bl[j]),
        cl[j] + r * (ch[j] - cl[j]),
    ]
}

/// The message of a round of `a·b`, `s(0), s(2)`, from pair `j`.
#[kernel]
pub fn product2_message<F: KernelField>(
    j: usize,
    al: &[F],
    ah: &[F],
    bl: &[F],
    bh: &[F],
) -> [F; 2] {
    let a0 = al[j];
    let b0 = bl[j];
    let a2 = ah[j] + (ah[j] - a0);
    let b2 = bh[j] + (bh[j] - b0);
    [a0 * b0, a2 * b2]
}

/// [`product3_round`] for `a·b`.
#[kernel]
pub fn product2_round<F: KernelField>(
    j: usize,
    al: &[F],
    ah: &[F],
    bl: &[F],
    bh: &[F],
    q: usize,
    r: F,
) -> [F; 6] {
    let a0 = al[j] + r * (ah[j] - al[j]);
    let a1 = al[j + q] + r * (ah[j + q] - al[j + q]);
    let b0 = bl[j] + r * (bh[j] - bl[j]);
    let b1 = bl[j + q] + r * (bh[j + q] - bl[j + q]);
    let a2 = a1 + (a1 - a0);
    let b2 = b1 + (b1 - b0);
    [a0, a1, b0, b1, a0 * b0, a2 * b2]
}

/// [`product3_last`] for `a·b`.
#[kernel]
pub fn product2_last<F: KernelField>(
    j: usize,
    al: &[F],
    ah: &[F],
    bl: &[F],
    bh: &[F],
    r: F,
) -> [F; 2] {
    [al[j] + r * (ah[j] - al[j]), bl[j] + r * (bh[j] - bl[j])]
}

/// `t(0), t(2)` of `Σ_j e[j]·(a·b − c)` over pair `j`.
#[kernel]
pub fn r1cs_eq_message<F: KernelField>(
    j: usize,
    al: &[F],
    ah: &[F],
    bl: &[F],
    bh: &[F],
    cl: &[F],
    ch: &[F],
    e: &[F],
) -> [F; 2] {
    let w = e[j];
    let a2 = ah[j] + (ah[j] - al[j]);
    let b2 = bh[j] + (bh[j] - bl[j]);
    let c2 = ch[j] + (ch[j] - cl[j]);
    [w * (al[j] * bl[j] - cl[j]), w * (a2 * b2 - c2)]
}

/// `t(1)` of `Σ_j e[j]·(a·b − c)` over pair `j`: summed only when the running claim
/// cannot give it (`α·q_i = 0`).
#[kernel]
pub fn r1cs_eq_at_one<F: KernelField>(j: usize, ah: &[F], bh: &[F], ch: &[F], e: &[F]) -> F {
    e[j] * (ah[j] * bh[j] - ch[j])
}

/// Binds pairs `j` and `j + q` of each table to `r` and folds the `eq` table of the
/// remaining coordinates (`e'[j] = e[j] + e[j + q]`: the bound coordinate's two weights
/// sum to one), then gives the next round's `t(0)` and `t(2)` from them.
#[kernel]
pub fn r1cs_eq_round<F: KernelField>(
    j: usize,
    al: &[F],
    ah: &[F],
    bl: &[F],
    bh: &[F],
    cl: &[F],
    ch: &[F],
    e: &[F],
    q: usize,
    r: F,
) -> [F; 9] {
    let a0 = al[j] + r * (ah[j] - al[j]);
    let a1 = al[j + q] + r * (ah[j + q] - al[j + q]);
    let b0 = bl[j] + r * (bh[j] - bl[j]);
    let b1 = bl[j + q] + r * (bh[j + q] - bl[j + q]);
    let c0 = cl[j] + r * (ch[j] - cl[j]);
    let c1 = cl[j + q] + r * (ch[j + q] - cl[j + q]);
    let w = e[j] + e[j + q];
    let a2 = a1 + (a1 - a0);
    let b2 = b1 + (b1 - b0);
    let c2 = c1 + (c1 - c0);
    [
        a0,
        a1,
        b0,
        b1,
        c0,
        c1,
        w,
        w * (a0 * b0 - c0),
        w * (a2 * b2 - c2),
    ]
}

fn halves<F: KernelField>(t: &[FieldVec<F>]) -> Vec<Arg<'_, F>> {
    t.iter().map(Arg::Vec).collect()
}

/// A table a driver takes: a host vector (moved into the task's context) or a vector
/// already there (made by an earlier kernel, on the device where it runs).
pub trait Table<F: KernelField> {
    fn entries(&self) -> usize;
    fn into_layer(self, ctx: &Context) -> FieldVec<F>;
}

impl<F: KernelField> Table<F> for Vec<F> {
    fn entries(&self) -> usize {
        self.len()
    }
    fn into_layer(self, ctx: &Context) -> FieldVec<F> {
        ctx.vec(self)
    }
}

impl<F: KernelField> Table<F> for FieldVec<F> {
    fn entries(&self) -> usize {
        self.len()
    }
    fn into_layer(self, _: &Context) -> FieldVec<F> {
        self
    }
}

/// Each table as a vector of `task`'s context, split into its halves (no copy).
fn split_halves<F: KernelField, T: Table<F>, const K: usize>(
    task: &Task<'_>,
    tables: [T; K],
) -> Result<Vec<FieldVec<F>>, RuntimeError> {
    let mut halves_of = Vec::with_capacity(2 * K);
    for t in tables {
        let half = t.entries() / 2;
        let (lo, hi) = t.into_layer(task.context()).split_at(half)?;
        halves_of.extend([lo, hi]);
    }
    Ok(halves_of)
}

/// The tables' halves and the `eq` weights of their pairs.
fn with_weights<'a, F: KernelField>(t: &'a [FieldVec<F>], e: &'a FieldVec<F>) -> Vec<Arg<'a, F>> {
    let mut args = halves(t);
    args.push(Arg::Vec(e));
    args
}

/// What [`prove_product3`] and [`prove_product2`] return: the messages, the challenges,
/// the last running claim and the tables' values at the challenges.
pub type ProductRun<F, const K: usize> = (Vec<Vec<F>>, Vec<F>, F, [F; K]);

/// What [`prove_product3`] returns.
pub type Product3Run<F> = ProductRun<F, 3>;

/// All rounds of the sumcheck of `a·b·c` from `claim` on `task`'s context, tables of one
/// power-of-two length of at least 2 (taken, as `run_fused` takes them).
pub fn prove_product3<F: KernelField + Absorb, T: Table<F>>(
    task: &mut Task<'_>,
    tables: [T; 3],
    claim: F,
    transcript: &mut Transcript,
) -> Result<Product3Run<F>, RuntimeError> {
    prove_fused(
        task,
        tables,
        claim,
        transcript,
        (Product3Message, Product3Round, Product3Last),
    )
}

/// All rounds of the sumcheck of `a·b` from `claim` (Spartan's inner sumcheck), as
/// [`prove_product3`].
pub fn prove_product2<F: KernelField + Absorb, T: Table<F>>(
    task: &mut Task<'_>,
    tables: [T; 2],
    claim: F,
    transcript: &mut Transcript,
) -> Result<ProductRun<F, 2>, RuntimeError> {
    prove_fused(
        task,
        tables,
        claim,
        transcript,
        (Product2Message, Product2Round, Product2Last),
    )
}

/// All rounds of the sumcheck of `g` over `K` tables from `claim` (taken, one
/// power-of-two length of at least 2), `g` given by three kernels over the tables'
/// halves (`al, ah, bl, bh, …`): `message` gives a round's message `s(0), s(2), …` from
/// pair `j`, `round` (with `q`, `r` after the halves) binds pairs `j` and `j + q` to `r`
/// and gives the next round's halves at `j` (its first `2K` outputs) and message terms,
/// `last` (with `r`) binds the last pair. The rounds `run_fused` gives for that `g`
/// ([`prove_product3`], [`prove_product2`] are two; a prover writes its own `g` so).
pub fn prove_fused<F, T: Table<F>, const K: usize, M, R, L>(
    task: &mut Task<'_>,
    tables: [T; K],
    claim: F,
    transcript: &mut Transcript,
    (message, round, last): (M, R, L),
) -> Result<ProductRun<F, K>, RuntimeError>
where
    F: KernelField + Absorb,
    M: Kernel<F>,
    R: Kernel<F>,
    L: Kernel<F>,
{
    let len = tables[0].entries();
    if !len.is_power_of_two() || len < 2 || tables.iter().any(|t| t.entries() != len) {
        let lens: Vec<usize> = tables.iter().map(Table::entries).collect();
        return Err(RuntimeError::Call {
            kernel: R::NAME,
            what: format!("tables of one power-of-two length, at least 2 ({lens:?} given)"),
        });
    }
    let mut half = len / 2;
    let mut halves_of = split_halves(task, tables)?;
    let mut msg = task.map_reduce(message, Sum, half, &halves(&halves_of))?;
    let (mut rounds, mut point, mut running) = (Vec::new(), Vec::new(), claim);
    loop {
        let r;
        (r, running) = absorb_round(&msg, running, transcript);
        rounds.push(msg);
        point.push(r);
        let mut args = halves(&halves_of);
        if half == 1 {
            args.push(Arg::Field(r));
            let v = task.map_reduce(last, Sum, 1, &args)?;
            let values: [F; K] = v
                .try_into()
                .map_err(|_| RuntimeError::Internal(format!("{} gives {K} values", L::NAME)))?;
            return Ok((rounds, point, running, values));
        }
        half /= 2;
        args.extend([Arg::Int(half), Arg::Field(r)]);
        let (next, m) = task.run(round, Sum, half, 2 * K, &args)?;
        halves_of = next;
        msg = m;
    }
}

/// What [`prove_eq_r1cs`] returns: the messages, the challenges, the last running claim,
/// the tables with the rounds' variables bound, and `α` times `eq(q, ·)` of them.
pub type EqR1csRun<F> = (Vec<Vec<F>>, Vec<F>, F, [Vec<F>; 3], F);

/// `count` rounds of the sumcheck of `α·eq(q, x)·(a·b − c)` (plus `ρ·p` when masked)
/// from `claim`, on `task`'s context: the messages, challenges and bound tables of
/// `fastzk_multilinear::sumcheck::run_fused_eq` with `g = a·b − c`, degree 2. The
/// tables (of one power-of-two length `2^n`, `n = q.len()`, `count ≤ n`) are taken.
#[allow(clippy::too_many_arguments)]
pub fn prove_eq_r1cs<F: KernelField + Absorb, T: Table<F>>(
    task: &mut Task<'_>,
    tables: [T; 3],
    q: &[F],
    mut alpha: F,
    claim: F,
    count: usize,
    masking: Option<&Masking<'_, F>>,
    transcript: &mut Transcript,
) -> Result<EqR1csRun<F>, RuntimeError> {
    let len = tables[0].entries();
    if !len.is_power_of_two()
        || len != 1 << q.len()
        || count > q.len()
        || tables.iter().any(|t| t.entries() != len)
    {
        let lens: Vec<usize> = tables.iter().map(Table::entries).collect();
        return Err(RuntimeError::Call {
            kernel: <R1csEqRound as Kernel<F>>::NAME,
            what: format!(
                "tables of length 2^{} (one per coordinate of q), at most that many rounds \
                 ({lens:?} given, {count} rounds)",
                q.len()
            ),
        });
    }
    if count == 0 {
        let [a, b, c] = tables.map(|t| t.into_layer(task.context()).into_vec());
        return Ok((Vec::new(), Vec::new(), claim, [a?, b?, c?], alpha));
    }
    let mut half = len / 2;
    let mut halves_of = split_halves(task, tables)?;
    // eq(q_>i, ·) for round i's pairs, folded on the context round by round.
    let mut e = task.eq_table(&q[1..])?;
    let first = task.map_reduce(R1csEqMessage, Sum, half, &with_weights(&halves_of, &e))?;
    let mut t = vec![first[0], F::ZERO, first[1]];
    let (mut rounds, mut point, mut running) = (Vec::new(), Vec::new(), claim);
    for &qi in &q[..count] {
        let msg = eq_round_message(t, qi, alpha, running, masking, &point, || {
            let [_, ah, _, bh, _, ch] = &halves_of[..] else {
                return Err(RuntimeError::Internal("two halves per table".into()));
            };
            let args = [ah, bh, ch, &e].map(Arg::Vec);
            Ok(task.map_reduce(R1csEqAtOne, Sum, half, &args)?[0])
        })?;
        let r;
        (r, running) = absorb_round(&msg, running, transcript);
        rounds.push(msg);
        point.push(r);
        alpha *= eq_factor(qi, r);
        let mut args = halves(&halves_of);
        if half == 1 {
            // The last coordinate: the tables' values at the challenges.
            args.push(Arg::Field(r));
            let v = task.map_reduce(Product3Last, Sum, 1, &args)?;
            let [a, b, c] = v[..] else {
                return Err(RuntimeError::Internal(
                    "product3_last gives 3 values".into(),
                ));
            };
            return Ok((rounds, point, running, [vec![a], vec![b], vec![c]], alpha));
        }
        half /= 2;
        args.extend([Arg::Vec(&e), Arg::Int(half), Arg::Field(r)]);
        let (mut next, m) = task.run(R1csEqRound, Sum, half, 7, &args)?;
        e = next.pop().expect("seven vectors");
        halves_of = next;
        t = vec![m[0], F::ZERO, m[1]];
    }
    // The tables after the last round asked for, each half back on the host.
    let mut out = halves_of.into_iter().map(FieldVec::into_vec);
    let mut joined = || -> Result<Vec<F>, RuntimeError> {
        let mut lo = out.next().expect("two halves per table")?;
        lo.extend(out.next().expect("two halves per table")?);
        Ok(lo)
    };
    Ok((
        rounds,
        point,
        running,
        [joined()?, joined()?, joined()?],
        alpha,
    ))
}
