//! Grand products by a layered sumcheck, written once on the layer: the proof
//! `fastzk_multilinear::product::prove` gives (same transcript, same messages), on the
//! CPU or a device.
//!
//! The products' leaves are held **interleaved** — element `x·P + k` is leaf `x` of
//! product `k` — so that every layer of every product is one vector and each kernel runs
//! over all products at once: a layer's top variable (the one its sumcheck binds first)
//! is the top of the interleaved index, whatever `P`. A layer's sumcheck of
//! `Σ_x eq(q, x)·Σ_k w_k·L_k(x)·R_k(x)` weights pair `x'·P + k` by
//! `eq(q_{>i}, x')·w_k`, one table folded round by round as the outer sumcheck's `eq`.

use fastzk_multilinear::product::{prove_layers, LayerRun, MAX_PRODUCTS};
use fastzk_multilinear::sumcheck::{absorb_round, eq_factor, eq_round_message};
use fastzk_multilinear::{Absorb, LeafClaims, ProductProof, Transcript};

use crate::{kernel, Arg, FieldVec, KernelField, RuntimeError, Sum, Task};

/// A layer of the trees from the one below: `v[i]·v[i + half]` (the top variable pairs
/// the halves).
#[kernel]
fn product_layer<F: KernelField>(i: usize, v: &[F], half: usize) -> F {
    v[i] * v[i + half]
}

/// The weight of pair `i = x'·P + k`: `eq(q_{>i}, x')·w_k`.
#[kernel]
fn pair_weights<F: KernelField>(i: usize, e: &[F], w: &[F], p: usize) -> F {
    e[i / p] * w[i % p]
}

/// `t(0), t(2)` of `Σ W·L·R` over pair `j`.
#[kernel]
fn pair_product_message<F: KernelField>(
    j: usize,
    ll: &[F],
    lh: &[F],
    rl: &[F],
    rh: &[F],
    w: &[F],
) -> [F; 2] {
    let l2 = lh[j] + (lh[j] - ll[j]);
    let r2 = rh[j] + (rh[j] - rl[j]);
    [w[j] * ll[j] * rl[j], w[j] * l2 * r2]
}

/// `t(1)` over pair `j`: summed only when the running claim cannot give it.
#[kernel]
fn pair_product_at_one<F: KernelField>(j: usize, lh: &[F], rh: &[F], w: &[F]) -> F {
    w[j] * lh[j] * rh[j]
}

/// Binds pairs `j` and `j + q` of `L` and `R` to `r`, folds the weights, and gives the
/// next round's `t(0)` and `t(2)` from them.
#[kernel]
#[allow(clippy::too_many_arguments)]
fn pair_product_round<F: KernelField>(
    j: usize,
    ll: &[F],
    lh: &[F],
    rl: &[F],
    rh: &[F],
    w: &[F],
    q: usize,
    r: F,
) -> [F; 7] {
    let l0 = ll[j] + r * (lh[j] - ll[j]);
    let l1 = ll[j + q] + r * (lh[j + q] - ll[j + q]);
    let r0 = rl[j] + r * (rh[j] - rl[j]);
    let r1 = rl[j + q] + r * (rh[j + q] - rl[j + q]);
    let v = w[j] + w[j + q];
    let l2 = l1 + (l1 - l0);
    let r2 = r1 + (r1 - r0);
    [l0, l1, r0, r1, v, v * l0 * r0, v * l2 * r2]
}

/// The last variable bound: each product's `L_k(r)`, `R_k(r)`.
#[kernel]
fn pair_bind<F: KernelField>(k: usize, ll: &[F], lh: &[F], rl: &[F], rh: &[F], r: F) -> [F; 2] {
    [ll[k] + r * (lh[k] - ll[k]), rl[k] + r * (rh[k] - rl[k])]
}

/// What [`prove_grand_products`] returns: the products, the proof and the leaves'
/// claims, as `fastzk_multilinear::product::prove`.
pub type GrandProducts<F> = (Vec<F>, ProductProof<F>, LeafClaims<F>);

/// Proves the products of `products` tables of one power-of-two length `n ≥ 2`, given
/// interleaved in `leaves` (`x·products + k` is leaf `x` of table `k`; one to
/// `MAX_PRODUCTS` tables): the products are absorbed into the transcript; the proof and
/// the claims are `fastzk_multilinear::product::prove`'s on the same tables.
pub fn prove_grand_products<F: KernelField + Absorb>(
    task: &mut Task<'_>,
    leaves: FieldVec<F>,
    products: usize,
    transcript: &mut Transcript,
) -> Result<GrandProducts<F>, RuntimeError> {
    let p = products;
    let n = leaves.len().checked_div(p).unwrap_or(0);
    if !(1..=MAX_PRODUCTS).contains(&p) || n < 2 || !n.is_power_of_two() || n * p != leaves.len() {
        return Err(RuntimeError::Call {
            kernel: "prove_grand_products",
            what: format!(
                "{} leaves of {p} products (1 to {MAX_PRODUCTS}, of one power-of-two length, \
                 at least 2)",
                leaves.len()
            ),
        });
    }
    let m = n.trailing_zeros() as usize;
    // trees[j] is layer m − j (the leaves first), interleaved.
    let mut trees = vec![leaves];
    while trees.last().expect("leaves").len() > p {
        let half = trees.last().expect("a layer").len() / 2;
        let v = task.map(
            ProductLayer,
            half,
            &[Arg::Vec(trees.last().expect("a layer")), Arg::Int(half)],
        )?;
        trees.push(v);
    }
    let layer = |j: usize| &trees[m - j];
    let top_layer = layer(1).to_vec()?;
    let products: Vec<F> = layer(0).to_vec()?;
    let top: Vec<[F; 2]> = (0..p).map(|k| [top_layer[k], top_layer[p + k]]).collect();
    prove_layers(
        products,
        top,
        m,
        transcript,
        |j, point, weights, claim, t| layer_rounds(task, layer(j + 1), point, weights, claim, t),
    )
}

/// A layer's sumcheck over `below` (interleaved, `2^{q.len()+1}·P` values): the rounds
/// of `fastzk_multilinear::sumcheck::run_fused_eq` with `α = 1` and
/// `g = Σ_k w_k·L_k·R_k` (degree 2), the messages, the point, and each product's two
/// ends `L_k(r)`, `R_k(r)`.
fn layer_rounds<F: KernelField + Absorb>(
    task: &mut Task<'_>,
    below: &FieldVec<F>,
    q: &[F],
    weights: &[F],
    claim: F,
    transcript: &mut Transcript,
) -> Result<LayerRun<F>, RuntimeError> {
    let p = weights.len();
    let (l, r_table) = below.split_at(below.len() / 2)?;
    let mut half = l.len() / 2;
    let (ll, lh) = l.split_at(half)?;
    let (rl, rh) = r_table.split_at(half)?;
    let mut halves = [ll, lh, rl, rh];
    let e = task.eq_table(&q[1..])?;
    let ctx = task.context();
    let mut w = task.map(
        PairWeights,
        half,
        &[
            Arg::Vec(&e),
            Arg::Vec(&ctx.vec(weights.to_vec())),
            Arg::Int(p),
        ],
    )?;
    let args: Vec<Arg<'_, F>> = halves.iter().chain([&w]).map(Arg::Vec).collect();
    let first = task.map_reduce(PairProductMessage, Sum, half, &args)?;
    let mut t = vec![first[0], F::ZERO, first[1]];
    let (mut rounds, mut point, mut running, mut alpha) = (Vec::new(), Vec::new(), claim, F::ONE);
    for &qi in q {
        let msg = eq_round_message(t, qi, alpha, running, None, &point, || {
            let args = [&halves[1], &halves[3], &w].map(Arg::Vec);
            Ok::<F, RuntimeError>(task.map_reduce(PairProductAtOne, Sum, half, &args)?[0])
        })?;
        let r;
        (r, running) = absorb_round(&msg, running, transcript);
        rounds.push(msg);
        point.push(r);
        alpha *= eq_factor(qi, r);
        let mut args: Vec<Arg<'_, F>> = halves.iter().map(Arg::Vec).collect();
        if half == p {
            args.push(Arg::Field(r));
            let (bound, _) = task.run(PairBind, Sum, p, 2, &args)?;
            let [lv, rv] = [&bound[0], &bound[1]].map(FieldVec::to_vec);
            let (lv, rv) = (lv?, rv?);
            let ends = (0..p).map(|k| [lv[k], rv[k]]).collect();
            return Ok((rounds, point, ends));
        }
        half /= 2;
        args.extend([Arg::Vec(&w), Arg::Int(half), Arg::Field(r)]);
        let (mut next, m) = task.run(PairProductRound, Sum, half, 5, &args)?;
        w = next.pop().expect("five vectors");
        halves = next
            .try_into()
            .map_err(|_| RuntimeError::Internal("four halves".into()))?;
        t = vec![m[0], F::ZERO, m[1]];
    }
    Err(RuntimeError::Internal(format!(
        "a layer of {} values for a point of {} coordinates",
        below.len(),
        q.len()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastzk_field::{Field, GoldilocksExt3};
    use fastzk_multilinear::sumcheck::run_fused_eq;
    use fastzk_multilinear::{eq_table, HashKind};
    use fastzk_testing::gen::{elements, rng};

    /// A layer's rounds against `run_fused_eq` where `q` has zero coordinates, so that
    /// `t(1)` is summed by its kernel rather than taken from the running claim.
    #[test]
    fn layer_rounds_sum_t1_where_q_is_zero() {
        type F = GoldilocksExt3;
        let p = 2;
        let ctx = crate::Context::cpu();
        let mut task = ctx.task().unwrap();
        let below: Vec<F> = elements(&mut rng(4), 16 * p);
        let q = [F::ZERO, F::from_u64(5), F::ZERO];
        let w = [F::from_u64(3), F::from_u64(11)];
        let table = |k: usize, hi: bool| -> Vec<F> {
            (0..8)
                .map(|x| below[(x + 8 * usize::from(hi)) * p + k])
                .collect()
        };
        let tables = [
            table(0, false),
            table(0, true),
            table(1, false),
            table(1, true),
        ];
        let eq = eq_table(&q);
        let claim: F = (0..8)
            .map(|x| {
                eq[x] * (w[0] * tables[0][x] * tables[1][x] + w[1] * tables[2][x] * tables[3][x])
            })
            .sum();
        let mut t_ref = Transcript::new(HashKind::Blake3, b"layer");
        let (rounds, point, _, bound, _) = run_fused_eq(
            tables,
            &q,
            F::ONE,
            2,
            |v: &[F; 4]| w[0] * v[0] * v[1] + w[1] * v[2] * v[3],
            claim,
            3,
            None,
            &mut t_ref,
        )
        .unwrap();
        let mut t = Transcript::new(HashKind::Blake3, b"layer");
        let got = layer_rounds(&mut task, &ctx.vec(below), &q, &w, claim, &mut t).unwrap();
        let ends = vec![[bound[0][0], bound[1][0]], [bound[2][0], bound[3][0]]];
        assert_eq!(got, (rounds, point, ends));
    }
}
