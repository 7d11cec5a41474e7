//! The sumchecks of `Σ_x a(x)·b(x)·c(x)` and `Σ_x a(x)·b(x)` written once on the layer:
//! the same rounds as the hand-written `fastzk_multilinear::sumcheck::run_fused` with
//! `g = a·b·c` or `a·b` (same transcript, same messages, same challenges), on the CPU or
//! a device. Each round is one pass: a kernel binds the tables to the last challenge and
//! sums the next message at once.
//!
//! A table of `2^k` entries is held as its two halves, `lo = t[..2^(k−1)]` and
//! `hi = t[2^(k−1)..]`: round pairs are `(lo[j], hi[j])`, and binding writes the next
//! round's halves directly (`lo'[j]` from pair `j`, `hi'[j]` from pair `j + 2^(k−2)`).

use fastzk_multilinear::sumcheck::absorb_round;
use fastzk_multilinear::{Absorb, Transcript};

use crate::{kernel, Arg, FieldVec, Kernel, KernelField, RuntimeError, Sum, Task};

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

fn halves<F>(t: &[FieldVec<F>]) -> Vec<Arg<'_, F>> {
    t.iter().map(Arg::Vec).collect()
}

/// What [`prove_product3`] and [`prove_product2`] return: the messages, the challenges,
/// the last running claim and the tables' values at the challenges.
pub type ProductRun<F, const K: usize> = (Vec<Vec<F>>, Vec<F>, F, [F; K]);

/// What [`prove_product3`] returns.
pub type Product3Run<F> = ProductRun<F, 3>;

/// All rounds of the sumcheck of `a·b·c` from `claim` on `task`'s context, tables of one
/// power-of-two length of at least 2 (taken, as `run_fused` takes them).
pub fn prove_product3<F: KernelField + Absorb>(
    task: &mut Task<'_>,
    tables: [Vec<F>; 3],
    claim: F,
    transcript: &mut Transcript,
) -> Result<Product3Run<F>, RuntimeError> {
    prove_product(
        task,
        tables,
        claim,
        transcript,
        (Product3Message, Product3Round, Product3Last),
    )
}

/// All rounds of the sumcheck of `a·b` from `claim` (Spartan's inner sumcheck), as
/// [`prove_product3`].
pub fn prove_product2<F: KernelField + Absorb>(
    task: &mut Task<'_>,
    tables: [Vec<F>; 2],
    claim: F,
    transcript: &mut Transcript,
) -> Result<ProductRun<F, 2>, RuntimeError> {
    prove_product(
        task,
        tables,
        claim,
        transcript,
        (Product2Message, Product2Round, Product2Last),
    )
}

/// The rounds of a product of `K` tables: `message` sums the first message over the
/// pairs, `round` binds and sums the next one (its first `2K` outputs the next round's
/// halves), `last` binds the last pair.
fn prove_product<F, const K: usize, M, R, L>(
    task: &mut Task<'_>,
    tables: [Vec<F>; K],
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
    let len = tables[0].len();
    if !len.is_power_of_two() || len < 2 || tables.iter().any(|t| t.len() != len) {
        let lens: Vec<usize> = tables.iter().map(Vec::len).collect();
        return Err(RuntimeError::Call {
            kernel: R::NAME,
            what: format!("tables of one power-of-two length, at least 2 ({lens:?} given)"),
        });
    }
    let ctx = task.context();
    let mut half = len / 2;
    let mut halves_of = Vec::with_capacity(2 * K);
    for t in tables {
        let (lo, hi) = ctx.vec(t).split_at(half)?;
        halves_of.extend([lo, hi]);
    }
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
