//! Grand products by a layered sumcheck (Thaler's GKR for a binary tree of
//! multiplications, as Spartan's Spark uses for its memory checks).
//!
//! For leaves `V_m` of `2^m` values, layer `j` has `2^j` values,
//! `V_j[i] = V_{j+1}[i]·V_{j+1}[i + 2^j]` (the top variable pairs the halves), and `V_0` is
//! the product. The prover sends `V_1`'s two values; each claim `V_j(q) = c` is then
//! reduced by the sumcheck of `Σ_x eq(q, x)·V_{j+1}(0, x)·V_{j+1}(1, x)` (degree 3) to the
//! two values `V_{j+1}(0, r)`, `V_{j+1}(1, r)`, which a random `c` folds into the claim
//! `V_{j+1}(c, r)`. At the bottom the caller holds one claim per product about the leaves'
//! extension at one random point, and checks it against committed data.
//!
//! Several products of equal size run together: one sumcheck per layer over the random
//! combination of their claims (weights drawn after the claims are absorbed). Error:
//! `3·j / |F|` for layer `j`'s sumcheck, `1 / |F|` for each fold and each batching.

use rayon::prelude::*;

use crate::sumcheck::{self, batch_claims, SumcheckProof};
use crate::{eq_eval, Absorb, SumcheckError, Transcript};
use fastzk_field::Field;

/// The proof that the claimed products are those of the leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProductProof<F> {
    /// `V_1` of each product.
    pub top: Vec<[F; 2]>,
    /// For layers `1 … m − 1`: the sumcheck and each product's `V_{j+1}(0, r)`,
    /// `V_{j+1}(1, r)`.
    pub layers: Vec<(SumcheckProof<F>, Vec<[F; 2]>)>,
}

/// Where the products' proof leaves the caller: a point and, for each product, the claimed
/// value of its leaves' extension there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeafClaims<F> {
    pub point: Vec<F>,
    pub values: Vec<F>,
}

/// Every layer of one product tree, the leaves first.
fn layers<F: Field>(leaves: Vec<F>) -> Vec<Vec<F>> {
    let mut out = vec![leaves];
    while out.last().expect("leaves").len() > 1 {
        let v = out.last().expect("a layer");
        let half = v.len() / 2;
        let (lo, hi) = v.split_at(half);
        out.push(lo.par_iter().zip(hi).map(|(a, b)| *a * *b).collect());
    }
    out
}

/// Proves the products of each table of `leaves` (one to [`MAX_PRODUCTS`] tables of one
/// power-of-two size ≥ 2).
/// The products are absorbed into the transcript; returns them, the proof, and the
/// leaves' claims.
#[allow(clippy::type_complexity)]
pub fn prove<F: Field + Absorb>(
    leaves: Vec<Vec<F>>,
    transcript: &mut Transcript,
) -> Result<(Vec<F>, ProductProof<F>, LeafClaims<F>), SumcheckError> {
    let p = leaves.len();
    let len = leaves.first().map_or(0, Vec::len);
    if p == 0
        || p > MAX_PRODUCTS
        || len < 2
        || !len.is_power_of_two()
        || leaves.iter().any(|l| l.len() != len)
    {
        return Err(SumcheckError::TableSizes {
            expected: len.trailing_zeros() as usize,
            got: leaves.iter().map(Vec::len).max().unwrap_or(0),
        });
    }
    let m = len.trailing_zeros() as usize;
    // trees[k][m − j] is layer j of product k.
    let mut trees: Vec<Vec<Vec<F>>> = leaves.into_iter().map(layers).collect();
    let layer = |k: usize, j: usize| &trees[k][m - j];
    let products: Vec<F> = (0..p).map(|k| layer(k, 0)[0]).collect();
    let top: Vec<[F; 2]> = (0..p).map(|k| [layer(k, 1)[0], layer(k, 1)[1]]).collect();
    prove_layers(
        products,
        top,
        m,
        transcript,
        |j, point, weights, claim, transcript| {
            let half = 1usize << j;
            // Each product's two halves: V_{j+1}(0, ·) and V_{j+1}(1, ·).
            // Layer j + 1 is read by this layer's sumcheck only: taken, and split in place.
            let halves: Vec<Vec<F>> = (0..p)
                .flat_map(|k| {
                    let mut lo = std::mem::take(&mut trees[k][m - j - 1]);
                    let hi = lo.split_off(half);
                    [lo, hi]
                })
                .collect();
            let run = match p {
                1 => layer_rounds::<F, 2>,
                2 => layer_rounds::<F, 4>,
                3 => layer_rounds::<F, 6>,
                _ => layer_rounds::<F, 8>,
            };
            run(halves, point, weights, claim, transcript)
        },
    )
}

/// A layer's sumcheck: its messages, its point and each product's two ends.
pub type LayerRun<F> = (Vec<Vec<F>>, Vec<F>, Vec<[F; 2]>);

/// The proof of `m`-layer products from their values and each one's `V_1` (`top`),
/// whatever runs the layers: absorbs the products, then for each layer `j = 1 … m − 1`
/// batches the claims and calls `layer(j, point, weights, claim, transcript)` for the
/// sumcheck over layer `j + 1`, and folds its ends. [`prove`] runs the layers on the CPU;
/// a prover on the single-source layer runs them there (`fastzk_runtime`), with this
/// transcript.
#[allow(clippy::type_complexity)]
pub fn prove_layers<F: Field + Absorb, Err>(
    products: Vec<F>,
    top: Vec<[F; 2]>,
    m: usize,
    transcript: &mut Transcript,
    mut layer: impl FnMut(usize, &[F], &[F], F, &mut Transcript) -> Result<LayerRun<F>, Err>,
) -> Result<(Vec<F>, ProductProof<F>, LeafClaims<F>), Err> {
    transcript.append_elements(b"products", &products);
    let (mut point, mut claims) = fold(&top, transcript);
    let mut proof_layers = Vec::with_capacity(m.saturating_sub(1));
    for j in 1..m {
        let (weights, claim) = batch_claims(&claims, transcript);
        transcript.append_elements(b"sumcheck claim", &[claim]);
        let (rounds, r, ends) = layer(j, &point, &weights, claim, transcript)?;
        (point, claims) = fold(&ends, transcript);
        point.extend(r);
        proof_layers.push((SumcheckProof { rounds }, ends));
    }
    Ok((
        products,
        ProductProof {
            top,
            layers: proof_layers,
        },
        LeafClaims {
            point,
            values: claims,
        },
    ))
}

/// One layer's sumcheck, `Σ_x eq(q, x)·Σ_k w_k·L_k(x)·R_k(x)` over the halves
/// `L_0, R_0, L_1, …` (`K` of them), with `eq` factored out
/// ([`sumcheck::run_fused_eq`]). Returns the messages, the point and each product's two
/// final values.
#[allow(clippy::type_complexity)]
fn layer_rounds<F: Field + Absorb, const K: usize>(
    halves: Vec<Vec<F>>,
    q: &[F],
    weights: &[F],
    claim: F,
    transcript: &mut Transcript,
) -> Result<LayerRun<F>, SumcheckError> {
    let tables: [Vec<F>; K] =
        halves
            .try_into()
            .map_err(|h: Vec<Vec<F>>| SumcheckError::ValueCount {
                expected: K,
                got: h.len(),
            })?;
    let (rounds, point, _, bound, _) = sumcheck::run_fused_eq(
        tables,
        q,
        F::ONE,
        2,
        |v: &[F; K]| {
            let mut s = F::ZERO;
            for k in 0..K / 2 {
                s += weights[k] * (v[2 * k] * v[2 * k + 1]);
            }
            s
        },
        claim,
        q.len(),
        None,
        transcript,
    )?;
    let ends = (0..K / 2)
        .map(|k| [bound[2 * k][0], bound[2 * k + 1][0]])
        .collect();
    Ok((rounds, point, ends))
}

/// Products batched in one run (the layer sumcheck's table count is fixed at compile
/// time: twice this).
pub const MAX_PRODUCTS: usize = 4;

/// Absorbs each product's two halves' values and folds them at a random `c`: returns
/// `[c]` (the point's new first coordinate) and the folded claims.
fn fold<F: Field + Absorb>(ends: &[[F; 2]], transcript: &mut Transcript) -> (Vec<F>, Vec<F>) {
    let flat: Vec<F> = ends.iter().flatten().copied().collect();
    transcript.append_elements(b"product halves", &flat);
    let c: F = transcript.challenge(b"product fold");
    (
        vec![c],
        ends.iter().map(|[a, b]| *a + c * (*b - *a)).collect(),
    )
}

/// Checks the proof that `products` are the products of tables of `2^num_vars` values
/// (`num_vars ≥ 1`); returns the claims about the leaves the caller must check.
pub fn verify<F: Field + Absorb>(
    products: &[F],
    num_vars: usize,
    proof: &ProductProof<F>,
    transcript: &mut Transcript,
) -> Result<LeafClaims<F>, SumcheckError> {
    let p = products.len();
    if proof.top.len() != p || proof.layers.len() + 1 != num_vars {
        return Err(SumcheckError::RoundCount {
            expected: num_vars,
            got: proof.layers.len() + 1,
        });
    }
    transcript.append_elements(b"products", products);
    if products
        .iter()
        .zip(&proof.top)
        .any(|(v, [a, b])| *v != *a * *b)
    {
        return Err(SumcheckError::FinalCheck);
    }
    let (mut point, mut claims) = fold(&proof.top, transcript);
    for (j, (sc, ends)) in (1..num_vars).zip(&proof.layers) {
        if ends.len() != p {
            return Err(SumcheckError::ValueCount {
                expected: p,
                got: ends.len(),
            });
        }
        let (weights, claim) = batch_claims(&claims, transcript);
        let (r, last) = sumcheck::verify(claim, j, 3, sc, transcript)?;
        let sum: F = weights
            .iter()
            .zip(ends)
            .map(|(w, [a, b])| *w * *a * *b)
            .sum();
        if last != eq_eval(&point, &r).expect("same length") * sum {
            return Err(SumcheckError::FinalCheck);
        }
        (point, claims) = fold(ends, transcript);
        point.extend(r);
    }
    Ok(LeafClaims {
        point,
        values: claims,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mle::evaluate_naive;
    use crate::HashKind;
    use fastzk_field::GoldilocksExt3;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    type E = GoldilocksExt3;

    fn random_tables(p: usize, m: usize, seed: u64) -> Vec<Vec<E>> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        (0..p)
            .map(|_| (0..1 << m).map(|_| E::random(&mut rng)).collect())
            .collect()
    }

    fn transcript() -> Transcript {
        Transcript::new(HashKind::Blake3, b"product test")
    }

    #[test]
    fn products_and_leaf_claims_are_right_and_verify() {
        for m in 1..=7 {
            let leaves = random_tables(2, m, m as u64);
            let (products, proof, claims) = prove::<E>(leaves.clone(), &mut transcript()).unwrap();
            for (k, l) in leaves.iter().enumerate() {
                assert_eq!(products[k], l.iter().copied().product::<E>());
                assert_eq!(claims.values[k], evaluate_naive(l, &claims.point));
            }
            let checked = verify(&products, m, &proof, &mut transcript()).unwrap();
            assert_eq!(checked, claims);
        }
    }

    #[test]
    fn edge_leaves_zero_one_and_all_equal() {
        let m = 4;
        for fill in [E::ZERO, E::ONE, -E::ONE, E::from_u64(5)] {
            let leaves = vec![vec![fill; 1 << m]; 3];
            let (products, proof, claims) = prove::<E>(leaves, &mut transcript()).unwrap();
            assert_eq!(products[0], (0..1 << m).map(|_| fill).product::<E>());
            assert_eq!(claims.values[0], fill);
            verify(&products, m, &proof, &mut transcript()).unwrap();
        }
    }

    #[test]
    fn wrong_products_and_tampered_proofs_are_rejected() {
        let m = 5;
        let (products, proof, _) = prove::<E>(random_tables(2, m, 9), &mut transcript()).unwrap();
        let mut bad = products.clone();
        bad[1] += E::ONE;
        assert!(verify(&bad, m, &proof, &mut transcript()).is_err());
        let mut p = proof.clone();
        p.top[0][1] += E::ONE;
        assert!(verify(&products, m, &p, &mut transcript()).is_err());
        for layer in 0..proof.layers.len() {
            let mut p = proof.clone();
            p.layers[layer].0.rounds[0][0] += E::ONE;
            assert!(verify(&products, m, &p, &mut transcript()).is_err());
            // A changed end value passes this layer's check only if the sum is
            // unchanged; the next layer or the caller's leaf check catches it.
            let mut p = proof.clone();
            p.layers[layer].1[1][0] += E::ONE;
            let honest = verify(&products, m, &proof, &mut transcript()).unwrap();
            match verify(&products, m, &p, &mut transcript()) {
                Err(_) => {}
                Ok(claims) => assert_ne!(claims, honest),
            }
        }
        assert!(verify(&products, m + 1, &proof, &mut transcript()).is_err());
        assert!(prove::<E>(vec![vec![E::ONE]], &mut transcript()).is_err());
        assert!(prove::<E>(vec![], &mut transcript()).is_err());
        assert!(prove::<E>(vec![vec![E::ONE; 4]; 5], &mut transcript()).is_err());
        assert!(prove::<E>(vec![vec![E::ONE; 4], vec![E::ONE; 8]], &mut transcript()).is_err());
    }
}
