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

use crate::mle::bind_first_in_place;
use crate::sumcheck::{self, batch_claims, SumcheckProof};
use crate::{eq_eval, eq_table, Absorb, SumcheckError, Transcript};
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

/// Proves the products of each table of `leaves` (tables of one power-of-two size ≥ 2).
/// The products are absorbed into the transcript; returns them, the proof, and the
/// leaves' claims.
#[allow(clippy::type_complexity)]
pub fn prove<F: Field + Absorb>(
    leaves: Vec<Vec<F>>,
    transcript: &mut Transcript,
) -> Result<(Vec<F>, ProductProof<F>, LeafClaims<F>), SumcheckError> {
    let p = leaves.len();
    let len = leaves.first().map_or(0, Vec::len);
    if p == 0 || len < 2 || !len.is_power_of_two() || leaves.iter().any(|l| l.len() != len) {
        return Err(SumcheckError::TableSizes {
            expected: len.trailing_zeros() as usize,
            got: leaves.iter().map(Vec::len).max().unwrap_or(0),
        });
    }
    let m = len.trailing_zeros() as usize;
    // trees[k][m − j] is layer j of product k.
    let trees: Vec<Vec<Vec<F>>> = leaves.into_iter().map(layers).collect();
    let layer = |k: usize, j: usize| &trees[k][m - j];
    let products: Vec<F> = (0..p).map(|k| layer(k, 0)[0]).collect();
    transcript.append_elements(b"products", &products);
    let top: Vec<[F; 2]> = (0..p).map(|k| [layer(k, 1)[0], layer(k, 1)[1]]).collect();
    let (mut point, mut claims) = fold(&top, transcript);
    let mut proof_layers = Vec::with_capacity(m.saturating_sub(1));
    for j in 1..m {
        let (weights, claim) = batch_claims(&claims, transcript);
        let half = 1usize << j;
        // Each product's two halves: V_{j+1}(0, ·) and V_{j+1}(1, ·).
        let halves: Vec<Vec<F>> = (0..2 * p)
            .map(|t| {
                let next = layer(t / 2, j + 1);
                let part = if t % 2 == 0 {
                    &next[..half]
                } else {
                    &next[half..]
                };
                part.to_vec()
            })
            .collect();
        transcript.append_elements(b"sumcheck claim", &[claim]);
        let (rounds, r, ends) = layer_rounds(halves, &point, &weights, claim, transcript);
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

/// Pairs per rayon task in a layer's rounds.
const CHUNK: usize = 1 << 11;

/// The sumcheck of `Σ_x eq(q, x)·Σ_k w_k·L_k(x)·R_k(x)` (`tables` = `L_0, R_0, L_1, …`)
/// with `eq` factored out round by round (Gruen): round `i` sends
/// `s(X) = α·eq(q_i, X)·t(X)` with `α = eq(q_<i, r_<i)` and
/// `t(X) = Σ_x' eq(q_>i, x')·Σ_k w_k·L_k(X, x')·R_k(X, x')` of degree 2, so the prover
/// sums `t` at 0 and 2 only (`t(1)` follows from the running claim) and binds no `eq`
/// table. The messages are the generic degree-3 sumcheck's (`s(0), s(2), s(3)`).
/// Returns the messages, the point and each product's two final values.
#[allow(clippy::type_complexity)]
fn layer_rounds<F: Field + Absorb>(
    mut tables: Vec<Vec<F>>,
    q: &[F],
    weights: &[F],
    claim: F,
    transcript: &mut Transcript,
) -> (Vec<Vec<F>>, Vec<F>, Vec<[F; 2]>) {
    let p = weights.len();
    let mut alpha = F::ONE;
    let mut running = claim;
    let mut rounds = Vec::with_capacity(q.len());
    let mut point = Vec::with_capacity(q.len());
    let (two, three) = (F::from_u64(2), F::from_u64(3));
    for (i, &qi) in q.iter().enumerate() {
        let rest = eq_table(&q[i + 1..]);
        let half = tables[0].len() / 2;
        // t at X = 0, 2 (and 1 when asked), over the pairs (x', x' + half).
        let sums = |with_one: bool| -> [F; 3] {
            (0..half)
                .into_par_iter()
                .with_min_len(CHUNK)
                .fold(
                    || [F::ZERO; 3],
                    |mut acc, x| {
                        let (mut f0, mut f1, mut f2) = (F::ZERO, F::ZERO, F::ZERO);
                        for k in 0..p {
                            let (l, r) = (&tables[2 * k], &tables[2 * k + 1]);
                            let (l0, l1, r0, r1) = (l[x], l[x + half], r[x], r[x + half]);
                            f0 += weights[k] * (l0 * r0);
                            f2 += weights[k] * ((l1.double() - l0) * (r1.double() - r0));
                            if with_one {
                                f1 += weights[k] * (l1 * r1);
                            }
                        }
                        acc[0] += rest[x] * f0;
                        acc[1] += rest[x] * f1;
                        acc[2] += rest[x] * f2;
                        acc
                    },
                )
                .reduce(
                    || [F::ZERO; 3],
                    |a, b| [a[0] + b[0], a[1] + b[1], a[2] + b[2]],
                )
        };
        let [t0, _, t2] = sums(false);
        // s(1) = running − s(0) = α·q_i·t(1); should α·q_i be zero, t(1) is summed.
        let t1 = match (alpha * qi).inverse() {
            Some(inv) => (running - alpha * (F::ONE - qi) * t0) * inv,
            None => sums(true)[1],
        };
        let t3 = t0 - three * (t1 - t2);
        let e = |x: F| F::ONE - qi + (qi.double() - F::ONE) * x;
        let msg = vec![
            alpha * e(F::ZERO) * t0,
            alpha * e(two) * t2,
            alpha * e(three) * t3,
        ];
        let r;
        (r, running) = sumcheck::absorb_round(&msg, running, transcript);
        alpha *= e(r);
        for table in tables.iter_mut() {
            bind_first_in_place(table, r);
        }
        rounds.push(msg);
        point.push(r);
    }
    let ends = (0..p)
        .map(|k| [tables[2 * k][0], tables[2 * k + 1][0]])
        .collect();
    (rounds, point, ends)
}

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

    /// The round where `α·q_i` is zero sums `t(1)` instead of deriving it: the messages
    /// still verify and end at the right values.
    #[test]
    fn a_zero_coordinate_of_q_takes_the_summing_path() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let tables = random_tables(4, 4, 4);
        let weights: Vec<E> = (0..2).map(|_| E::random(&mut rng)).collect();
        for zero_at in 0..4 {
            let mut q: Vec<E> = (0..4).map(|_| E::random(&mut rng)).collect();
            q[zero_at] = E::ZERO;
            let eq = eq_table(&q);
            let claim: E = (0..16)
                .map(|x| {
                    let f: E = (0..2)
                        .map(|k| weights[k] * tables[2 * k][x] * tables[2 * k + 1][x])
                        .sum();
                    eq[x] * f
                })
                .sum();
            let mut t = transcript();
            t.append_elements(b"sumcheck claim", &[claim]);
            let (rounds, point, ends) = layer_rounds(tables.clone(), &q, &weights, claim, &mut t);
            let (r, last) =
                sumcheck::verify_lens(claim, &[3; 4], &SumcheckProof { rounds }, &mut transcript())
                    .unwrap();
            assert_eq!(r, point);
            for (k, [a, b]) in ends.iter().enumerate() {
                assert_eq!(*a, evaluate_naive(&tables[2 * k], &point));
                assert_eq!(*b, evaluate_naive(&tables[2 * k + 1], &point));
            }
            let f: E = (0..2).map(|k| weights[k] * ends[k][0] * ends[k][1]).sum();
            assert_eq!(last, eq_eval(&q, &point).unwrap() * f);
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
        assert!(prove::<E>(vec![vec![E::ONE; 4], vec![E::ONE; 8]], &mut transcript()).is_err());
    }
}
