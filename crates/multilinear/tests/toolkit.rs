//! The multilinear toolkit against independent references: evaluation against
//! `Σ eq·f` with `eq` from the bits, sums against the plain hypercube sum, and the
//! sumcheck verifier against tampering of every message it reads.

use fastzk_field::{bn254, Field, Goldilocks, GoldilocksExt2};
use fastzk_multilinear::mle::evaluate_naive;
use fastzk_multilinear::sumcheck::{
    batch_claims, prove, run_fused, run_rounds, verify, verify_lens, verify_with_values, Masking,
    ProverOutput,
};
use fastzk_multilinear::{
    eq_eval, eq_table, Absorb, HashKind, Mle, MleError, SumOfProducts, SumcheckError,
    SumcheckProof, Table, Transcript, UnivariateMask,
};
use fastzk_testing::gen::rng;
use rand_chacha::ChaCha20Rng;

type Gl2 = GoldilocksExt2;
type Fr = bn254::Fr;

fn random_vec<F: Field>(rng: &mut ChaCha20Rng, n: usize) -> Vec<F> {
    (0..n).map(|_| F::random(rng)).collect()
}

fn bits<F: Field>(idx: usize, n: usize) -> Vec<F> {
    (0..n)
        .map(|i| {
            if (idx >> (n - 1 - i)) & 1 == 1 {
                F::ONE
            } else {
                F::ZERO
            }
        })
        .collect()
}

fn mle_checks<F: Field>(seed: u64) {
    let mut r = rng(seed);
    for n in 0..=6 {
        let m = Mle::new(random_vec::<F>(&mut r, 1 << n)).unwrap();
        let p = random_vec::<F>(&mut r, n);
        assert_eq!(
            m.evaluate(&p).unwrap(),
            evaluate_naive(m.evals(), &p),
            "n={n}"
        );
        // On the hypercube, the table entry.
        for idx in [0, (1 << n) - 1, (1 << n) / 3] {
            assert_eq!(m.evaluate(&bits(idx, n)).unwrap(), m.evals()[idx]);
        }
        if n > 0 {
            let fixed = m.fix_first(p[0]).unwrap();
            assert_eq!(fixed.evaluate(&p[1..]).unwrap(), m.evaluate(&p).unwrap());
            let mut inplace = m.clone();
            inplace.fix_first_in_place(p[0]).unwrap();
            assert_eq!(inplace, fixed);
        }
        // eq: the table is eq(r, x) for every x, and sums to one.
        let t = eq_table(&p);
        assert_eq!(t.len(), 1 << n);
        for (idx, v) in t.iter().enumerate() {
            assert_eq!(*v, eq_eval(&p, &bits(idx, n)).unwrap());
        }
        assert_eq!(t.iter().copied().sum::<F>(), F::ONE);
    }
}

/// Large `eq` tables (filled in parallel from the two halves of the point) against
/// `eq_eval` at sampled indices, and their sum.
#[test]
fn large_eq_tables_match_eq_eval() {
    let mut r = rng(9);
    for n in [12, 13, 17] {
        let p = random_vec::<Gl2>(&mut r, n);
        let t = eq_table(&p);
        assert_eq!(t.len(), 1 << n);
        for idx in (0..1usize << n).step_by(997).chain([(1 << n) - 1]) {
            assert_eq!(
                t[idx],
                eq_eval(&p, &bits(idx, n)).unwrap(),
                "n={n} idx={idx}"
            );
        }
        assert_eq!(t.iter().copied().sum::<Gl2>(), Gl2::ONE);
    }
}

/// Binding tables long enough to fold in parallel blocks (through the field's slice
/// kernel: Goldilocks' packed lanes) against the formula entry by entry.
#[test]
fn long_tables_bind_entry_by_entry() {
    fn check<F: Field>(seed: u64) {
        let mut r = rng(seed);
        for n in [14, 15, 16] {
            let m = Mle::new(random_vec::<F>(&mut r, 1 << n)).unwrap();
            let c = random_vec::<F>(&mut r, 1)[0];
            let fixed = m.fix_first(c).unwrap();
            let mut in_place = m.evals().to_vec();
            fastzk_multilinear::mle::bind_first_in_place(&mut in_place, c);
            let (lo, hi) = m.evals().split_at(1 << (n - 1));
            for j in 0..lo.len() {
                let want = lo[j] + c * (hi[j] - lo[j]);
                assert_eq!(fixed.evals()[j], want, "n={n} j={j}");
                assert_eq!(in_place[j], want, "n={n} j={j}");
            }
            assert_eq!(in_place.len(), lo.len());
        }
    }
    check::<Goldilocks>(11);
    check::<Gl2>(12);
    check::<Fr>(13);
}

#[test]
fn mle_evaluation_matches_the_reference() {
    mle_checks::<Gl2>(1);
    mle_checks::<Fr>(2);
    mle_checks::<Goldilocks>(3);
}

#[test]
fn mle_shapes_are_checked() {
    assert_eq!(
        Mle::new(vec![Fr::ONE; 3]).unwrap_err(),
        MleError::NotPowerOfTwo(3)
    );
    assert_eq!(
        Mle::<Fr>::new(vec![]).unwrap_err(),
        MleError::NotPowerOfTwo(0)
    );
    let m = Mle::new(vec![Fr::ONE; 4]).unwrap();
    assert_eq!(
        m.evaluate(&[Fr::ONE]).unwrap_err(),
        MleError::PointLength {
            expected: 2,
            got: 1
        }
    );
    let c = Mle::new(vec![Fr::from_u64(5)]).unwrap();
    assert_eq!(c.evaluate(&[]).unwrap(), Fr::from_u64(5));
    assert_eq!(c.fix_first(Fr::ONE).unwrap_err(), MleError::NoVariables);
    let p = Mle::padded(vec![Fr::ONE; 5]);
    assert_eq!(p.num_vars(), 3);
    assert_eq!(p.evals()[5..], [Fr::ZERO; 3]);
    assert_eq!(Mle::<Fr>::padded(vec![]).num_vars(), 0);
}

/// `eq·(f1·f2 − f3)` (Spartan's outer shape), a square, a constant and a negated term.
fn spartan_like<F: Field>() -> SumOfProducts<F> {
    SumOfProducts::new(5)
        .term(F::ONE, &[0, 1, 2])
        .unwrap()
        .term(-F::ONE, &[0, 3])
        .unwrap()
        .term(F::from_u64(3), &[4, 4])
        .unwrap()
        .term(F::from_u64(7), &[])
        .unwrap()
}

fn hypercube_sum<F: Field>(tables: &[Vec<F>], g: &SumOfProducts<F>) -> F {
    (0..tables[0].len())
        .map(|x| {
            let vals: Vec<F> = tables.iter().map(|t| t[x]).collect();
            g.evaluate(&vals).unwrap()
        })
        .sum()
}

fn run<F: Field + Absorb>(tables: &[Vec<F>], g: &SumOfProducts<F>) -> ProverOutput<F> {
    let dense = tables
        .iter()
        .map(|t| Table::Dense(Mle::new(t.clone()).unwrap()))
        .collect();
    prove(dense, g, &mut Transcript::new(HashKind::Blake3, b"test")).unwrap()
}

fn sumcheck_checks<F: Field + Absorb>(seed: u64) {
    let mut r = rng(seed);
    let g = spartan_like::<F>();
    for n in 0..=7 {
        let tables: Vec<Vec<F>> = (0..5).map(|_| random_vec(&mut r, 1 << n)).collect();
        let out = run(&tables, &g);
        assert_eq!(out.claim, hypercube_sum(&tables, &g), "n={n}");
        for (t, v) in tables.iter().zip(&out.values) {
            assert_eq!(
                Mle::new(t.clone()).unwrap().evaluate(&out.point).unwrap(),
                *v
            );
        }
        let mut tr = Transcript::new(HashKind::Blake3, b"test");
        let point = verify_with_values(out.claim, n, &g, &out.proof, &out.values, &mut tr).unwrap();
        assert_eq!(point, out.point);
        assert_eq!(out.proof.rounds.len(), n);
        assert!(out.proof.rounds.iter().all(|m| m.len() == 3));
    }
}

#[test]
fn honest_sumchecks_verify() {
    sumcheck_checks::<Gl2>(4);
    sumcheck_checks::<Fr>(5);
}

#[test]
fn degree_one_and_lazy_tables() {
    let mut r = rng(6);
    let n = 6;
    let a: Vec<Fr> = random_vec(&mut r, 1 << n);
    let b: Vec<Fr> = random_vec(&mut r, 1 << n);
    // Degree 1: one value per round.
    let g1 = SumOfProducts::new(1).term(Fr::from_u64(2), &[0]).unwrap();
    let out = run(std::slice::from_ref(&a), &g1);
    assert!(out.proof.rounds.iter().all(|m| m.len() == 1));
    let mut tr = Transcript::new(HashKind::Blake3, b"test");
    verify_with_values(out.claim, n, &g1, &out.proof, &out.values, &mut tr).unwrap();
    // A lazy table gives the same proof as the stored one.
    let g = SumOfProducts::new(2).term(Fr::ONE, &[0, 1]).unwrap();
    let dense = run(&[a.clone(), b.clone()], &g);
    let f = |j: usize| a[j];
    let lazy = prove(
        vec![
            Table::Lazy {
                num_vars: n,
                value: &f,
            },
            Table::Dense(Mle::new(b.clone()).unwrap()),
        ],
        &g,
        &mut Transcript::new(HashKind::Blake3, b"test"),
    )
    .unwrap();
    assert_eq!(lazy.proof, dense.proof);
    assert_eq!(lazy.values, dense.values);
}

#[test]
fn every_tampered_message_is_rejected() {
    let mut r = rng(7);
    let n = 5;
    let g = spartan_like::<Gl2>();
    let tables: Vec<Vec<Gl2>> = (0..5).map(|_| random_vec(&mut r, 1 << n)).collect();
    let out = run(&tables, &g);
    let check = |claim: Gl2, proof: &_, values: &[Gl2], label: &[u8]| {
        let mut tr = Transcript::new(HashKind::Blake3, label);
        verify_with_values(claim, n, &g, proof, values, &mut tr)
    };
    for i in 0..n {
        for k in 0..3 {
            let mut p = out.proof.clone();
            p.rounds[i][k] += Gl2::ONE;
            assert_eq!(
                check(out.claim, &p, &out.values, b"test"),
                Err(SumcheckError::FinalCheck),
                "round {i} value {k}"
            );
        }
    }
    assert_eq!(
        check(out.claim + Gl2::ONE, &out.proof, &out.values, b"test"),
        Err(SumcheckError::FinalCheck)
    );
    for v in 0..5 {
        let mut vals = out.values.clone();
        vals[v] += Gl2::ONE;
        assert_eq!(
            check(out.claim, &out.proof, &vals, b"test"),
            Err(SumcheckError::FinalCheck),
            "value {v}"
        );
    }
    // Another transcript: other challenges.
    assert_eq!(
        check(out.claim, &out.proof, &out.values, b"other"),
        Err(SumcheckError::FinalCheck)
    );
    let mut short = out.proof.clone();
    short.rounds[2].pop();
    assert!(matches!(
        check(out.claim, &short, &out.values, b"test"),
        Err(SumcheckError::MessageLength { round: 2, .. })
    ));
    let mut fewer = out.proof.clone();
    fewer.rounds.pop();
    assert!(matches!(
        check(out.claim, &fewer, &out.values, b"test"),
        Err(SumcheckError::RoundCount { .. })
    ));
    assert!(matches!(
        check(out.claim, &out.proof, &out.values[..4], b"test"),
        Err(SumcheckError::ValueCount { .. })
    ));
}

#[test]
fn spartan_outer_claim_is_zero_exactly_when_satisfied() {
    // Az ∘ Bz = Cz on every row gives Σ eq(τ, x)·(Az·Bz − Cz) = 0.
    let mut r = rng(8);
    let n = 6;
    let az: Vec<Fr> = random_vec(&mut r, 1 << n);
    let bz: Vec<Fr> = random_vec(&mut r, 1 << n);
    let mut cz: Vec<Fr> = az.iter().zip(&bz).map(|(a, b)| *a * *b).collect();
    let g = SumOfProducts::new(4)
        .term(Fr::ONE, &[0, 1, 2])
        .unwrap()
        .term(-Fr::ONE, &[0, 3])
        .unwrap();
    let tau: Vec<Fr> = random_vec(&mut r, n);
    let eq = eq_table(&tau);
    let out = run(&[eq.clone(), az.clone(), bz.clone(), cz.clone()], &g);
    assert_eq!(out.claim, Fr::ZERO);
    cz[13] += Fr::ONE;
    let out = run(&[eq, az, bz, cz], &g);
    assert_ne!(out.claim, Fr::ZERO);
}

#[test]
fn batched_claims_verify_and_bind_each_claim() {
    let mut r = rng(9);
    let n = 5;
    let g1 = spartan_like::<Fr>();
    let g2 = SumOfProducts::new(2).term(Fr::ONE, &[0, 1]).unwrap();
    let t1: Vec<Vec<Fr>> = (0..5).map(|_| random_vec(&mut r, 1 << n)).collect();
    let t2: Vec<Vec<Fr>> = (0..2).map(|_| random_vec(&mut r, 1 << n)).collect();
    let claims = [hypercube_sum(&t1, &g1), hypercube_sum(&t2, &g2)];

    let mut tp = Transcript::new(HashKind::Sha3_256, b"batch");
    let (w, combined) = batch_claims(&claims, &mut tp);
    let g = SumOfProducts::combine(&[g1.clone(), g2.clone()], &w).unwrap();
    let tables = t1
        .iter()
        .chain(&t2)
        .map(|t| Table::Dense(Mle::new(t.clone()).unwrap()))
        .collect();
    let out = prove(tables, &g, &mut tp).unwrap();
    assert_eq!(out.claim, combined);

    let verify_claims = |claims: &[Fr]| {
        let mut tv = Transcript::new(HashKind::Sha3_256, b"batch");
        let (w, combined) = batch_claims(claims, &mut tv);
        let g = SumOfProducts::combine(&[g1.clone(), g2.clone()], &w).unwrap();
        verify_with_values(combined, n, &g, &out.proof, &out.values, &mut tv)
    };
    verify_claims(&claims).unwrap();
    let mut wrong = claims;
    wrong[1] += Fr::ONE;
    assert_eq!(verify_claims(&wrong), Err(SumcheckError::FinalCheck));
}

#[test]
fn transcripts_are_deterministic_and_bound_to_their_inputs() {
    let draw = |kind, label: &[u8], data: &[Fr]| {
        let mut t = Transcript::new(kind, label);
        t.append_elements(b"data", data);
        let a: Gl2 = t.challenge(b"a");
        let b: Fr = t.challenge(b"b");
        (a, b, t.indices(b"q", 20, 189))
    };
    let data = [Fr::from_u64(1), Fr::from_u64(2)];
    let base = draw(HashKind::Blake3, b"x", &data);
    assert_eq!(base, draw(HashKind::Blake3, b"x", &data));
    assert_ne!(base.0, draw(HashKind::Sha3_256, b"x", &data).0);
    assert_ne!(base.0, draw(HashKind::Blake3, b"y", &data).0);
    assert_ne!(base.0, draw(HashKind::Blake3, b"x", &data[..1]).0);
    assert!(base.2.iter().all(|&i| i < 189));
    // Successive challenges differ.
    let mut t = Transcript::new(HashKind::Sha3_256, b"x");
    let c: Vec<Gl2> = (0..4).map(|_| t.challenge(b"same label")).collect();
    assert!(c.windows(2).all(|w| w[0] != w[1]));
    assert_eq!(
        HashKind::from_id(HashKind::Sha3_256.id()),
        Some(HashKind::Sha3_256)
    );
    assert_eq!(HashKind::from_id(0), None);
    // `verify` alone returns the point and the claim to check.
    let mut r = rng(10);
    let tables: Vec<Vec<Fr>> = (0..5).map(|_| random_vec(&mut r, 8)).collect();
    let g = spartan_like::<Fr>();
    let out = run(&tables, &g);
    let mut tr = Transcript::new(HashKind::Blake3, b"test");
    let (point, last) = verify(out.claim, 3, 3, &out.proof, &mut tr).unwrap();
    assert_eq!(point, out.point);
    assert_eq!(last, g.evaluate(&out.values).unwrap());
}

#[test]
fn a_known_claim_skips_the_summing_pass() {
    use fastzk_multilinear::sumcheck::prove_claimed;
    let mut r = rng(11);
    let n = 5;
    let g = spartan_like::<Fr>();
    let tables: Vec<Vec<Fr>> = (0..5).map(|_| random_vec(&mut r, 1 << n)).collect();
    let dense = |t: &[Vec<Fr>]| {
        t.iter()
            .map(|v| Table::Dense(Mle::new(v.clone()).unwrap()))
            .collect::<Vec<_>>()
    };
    let full = run(&tables, &g);
    let claim = hypercube_sum(&tables, &g);
    let mut tp = Transcript::new(HashKind::Blake3, b"test");
    let known = prove_claimed(dense(&tables), &g, claim, &mut tp).unwrap();
    assert_eq!(known.proof, full.proof);
    // A wrong claim yields a proof that does not verify.
    let mut tp = Transcript::new(HashKind::Blake3, b"test");
    let wrong = prove_claimed(dense(&tables), &g, claim + Fr::ONE, &mut tp).unwrap();
    let mut tv = Transcript::new(HashKind::Blake3, b"test");
    assert_eq!(
        verify_with_values(wrong.claim, n, &g, &wrong.proof, &wrong.values, &mut tv),
        Err(SumcheckError::FinalCheck)
    );
}

/// The masking polynomial against the hypercube: its sum, its value, and each round's
/// message (the sum over the remaining variables with the earlier ones bound).
#[test]
fn univariate_mask_matches_brute_force() {
    let mut r = rng(41);
    for degrees in [vec![3], vec![3, 3, 5], vec![2, 2, 2, 2, 2]] {
        let n = degrees.len();
        let p = UnivariateMask::<Gl2>::random(&degrees, &mut r);
        let at = |x: &[Gl2]| p.evaluate(x);
        let total: Gl2 = (0..1usize << n).map(|i| at(&bits(i, n))).sum();
        assert_eq!(p.sum(), total);
        let point: Vec<Gl2> = random_vec(&mut r, n);
        let direct: Gl2 = p.constant
            + (0..n)
                .map(|i| {
                    let mut pw = Gl2::ONE;
                    p.coeffs[i]
                        .iter()
                        .map(|c| {
                            pw *= point[i];
                            *c * pw
                        })
                        .sum::<Gl2>()
                })
                .sum::<Gl2>();
        assert_eq!(at(&point), direct);
        for i in 0..n {
            let len = degrees[i];
            let msg = p.round_message(&point[..i], len);
            let xs: Vec<u64> = std::iter::once(0).chain(2..=len as u64).collect();
            for (m, &x) in msg.iter().zip(&xs) {
                let rest = n - i - 1;
                let expect: Gl2 = (0..1usize << rest)
                    .map(|k| {
                        let mut pt = point[..i].to_vec();
                        pt.push(Gl2::from_u64(x));
                        pt.extend(bits::<Gl2>(k, rest));
                        at(&pt)
                    })
                    .sum();
                assert_eq!(*m, expect, "degrees {degrees:?} round {i} X={x}");
            }
        }
    }
}

/// A masked sumcheck proves `Σ (g + ρ·p) = H + ρ·P` and ends at `g(f(r)) + ρ·p(r)`;
/// its messages differ from the unmasked ones; a wrong mask sum is rejected.
#[test]
fn masked_sumcheck_verifies_and_hides_the_messages() {
    let mut r = rng(43);
    let n = 6;
    let g = spartan_like::<Gl2>();
    let tables: Vec<Vec<Gl2>> = (0..5).map(|_| random_vec(&mut r, 1 << n)).collect();
    let h = hypercube_sum(&tables, &g);
    let p = UnivariateMask::<Gl2>::random(&vec![g.degree(); n], &mut r);
    let rho = Gl2::random(&mut r);
    let claim = h + rho * p.sum();
    let dense = || {
        tables
            .iter()
            .map(|t| Table::Dense(Mle::new(t.clone()).unwrap()))
            .collect::<Vec<_>>()
    };
    let masking = Masking {
        mask: &p,
        rho,
        earlier: vec![],
    };
    let mut tp = Transcript::new(HashKind::Blake3, b"masked");
    tp.append_elements(b"sumcheck claim", &[claim]);
    let run = run_rounds(dense(), &g, claim, n, Some(&masking), &mut tp).unwrap();
    let values: Vec<Gl2> = run.tables.iter().map(|t| t.evals()[0]).collect();
    let proof = SumcheckProof { rounds: run.rounds };
    let mut tv = Transcript::new(HashKind::Blake3, b"masked");
    let (point, last) = verify_lens(claim, &vec![g.message_len(); n], &proof, &mut tv).unwrap();
    assert_eq!(point, run.point);
    assert_eq!(
        last,
        g.evaluate(&values).unwrap() + rho * p.evaluate(&point)
    );
    let mut tu = Transcript::new(HashKind::Blake3, b"masked");
    let plain = run_rounds(dense(), &g, h, n, None, &mut tu).unwrap();
    assert_ne!(plain.rounds[0], proof.rounds[0]);
    // A mask sum one off: the verifier's final check fails.
    let mut tv = Transcript::new(HashKind::Blake3, b"masked");
    let (point, last) =
        verify_lens(claim + Gl2::ONE, &vec![g.message_len(); n], &proof, &mut tv).unwrap();
    let values_there: Gl2 = g.evaluate(&values).unwrap() + rho * p.evaluate(&point);
    assert_ne!(last, values_there);
    // Rounds of the wrong length are refused.
    let mut tv = Transcript::new(HashKind::Blake3, b"masked");
    let mut lens = vec![g.message_len(); n];
    lens[n - 1] += 1;
    assert!(verify_lens(claim, &lens, &proof, &mut tv).is_err());
}

/// The fused rounds give the same messages, challenges and bound tables as the general
/// ones, masked or not, for every number of rounds.
#[test]
fn fused_rounds_match_the_general_ones() {
    let mut r = rng(47);
    // 2^15 values: the fused pass splits its quarters into several chunks.
    let n = 15;
    let g = SumOfProducts::new(4)
        .term(Gl2::ONE, &[0, 1, 2])
        .unwrap()
        .term(-Gl2::ONE, &[0, 3])
        .unwrap();
    let tables: Vec<Vec<Gl2>> = (0..4).map(|_| random_vec(&mut r, 1 << n)).collect();
    let p = UnivariateMask::<Gl2>::random(&vec![3; n], &mut r);
    let rho = Gl2::random(&mut r);
    let claim = Gl2::random(&mut r);
    for count in [0, 1, 2, n - 1, n] {
        for masked in [false, true] {
            let masking = Masking {
                mask: &p,
                rho,
                earlier: vec![],
            };
            let m = masked.then_some(&masking);
            let dense = tables
                .iter()
                .map(|t| Table::Dense(Mle::new(t.clone()).unwrap()))
                .collect();
            let mut ta = Transcript::new(HashKind::Blake3, b"fused");
            let general = run_rounds(dense, &g, claim, count, m, &mut ta).unwrap();
            let arr: [Vec<Gl2>; 4] = std::array::from_fn(|k| tables[k].clone());
            let mut tb = Transcript::new(HashKind::Blake3, b"fused");
            let (rounds, point, running, bound) = run_fused(
                arr,
                3,
                |v: &[Gl2; 4]| v[0] * (v[1] * v[2] - v[3]),
                claim,
                count,
                m,
                &mut tb,
            )
            .unwrap();
            assert_eq!(rounds, general.rounds, "count {count} masked {masked}");
            assert_eq!(point, general.point);
            assert_eq!(running, general.running);
            for (b, t) in bound.iter().zip(&general.tables) {
                assert_eq!(b, t.evals());
            }
        }
    }
    let uneven: [Vec<Gl2>; 2] = [random_vec(&mut r, 8), random_vec(&mut r, 4)];
    let mut t = Transcript::new(HashKind::Blake3, b"fused");
    assert!(run_fused(uneven, 2, |v| v[0] * v[1], claim, 1, None, &mut t).is_err());
}

/// With `eq` factored out (Gruen) the prover sends the very messages of the sumcheck
/// of `α·eq(q, ·)·g` over an `eq` table, masked or not, and binds the tables alike;
/// a zero coordinate of `q` takes the path that sums `t(1)`.
#[test]
fn eq_factored_rounds_match_the_eq_table_ones() {
    use fastzk_multilinear::sumcheck::run_fused_eq;
    let mut r = rng(53);
    let n = 13;
    let g = |v: &[Gl2; 3]| v[0] * v[1] - v[2];
    let tables: Vec<Vec<Gl2>> = (0..3).map(|_| random_vec(&mut r, 1 << n)).collect();
    let p = UnivariateMask::<Gl2>::random(&vec![3; n], &mut r);
    let rho = Gl2::random(&mut r);
    let alpha = Gl2::random(&mut r);
    for zero_at in [None, Some(0), Some(5), Some(n - 1)] {
        let mut q: Vec<Gl2> = random_vec(&mut r, n);
        if let Some(z) = zero_at {
            q[z] = Gl2::ZERO;
        }
        let eq: Vec<Gl2> = eq_table(&q).into_iter().map(|e| alpha * e).collect();
        let sum: Gl2 = (0..1 << n)
            .map(|x| eq[x] * g(&[tables[0][x], tables[1][x], tables[2][x]]))
            .sum();
        for count in [0, 1, n - 1, n] {
            for masked in [false, true] {
                let masking = Masking {
                    mask: &p,
                    rho,
                    earlier: vec![],
                };
                let m = masked.then_some(&masking);
                let claim = if masked { sum + rho * p.sum() } else { sum };
                let with_table: [Vec<Gl2>; 4] = [
                    eq.clone(),
                    tables[0].clone(),
                    tables[1].clone(),
                    tables[2].clone(),
                ];
                let mut ta = Transcript::new(HashKind::Blake3, b"gruen");
                let (rounds, point, running, bound) = run_fused(
                    with_table,
                    3,
                    |v: &[Gl2; 4]| v[0] * (v[1] * v[2] - v[3]),
                    claim,
                    count,
                    m,
                    &mut ta,
                )
                .unwrap();
                let arr: [Vec<Gl2>; 3] = std::array::from_fn(|k| tables[k].clone());
                let mut tb = Transcript::new(HashKind::Blake3, b"gruen");
                let (rounds2, point2, running2, bound2, alpha2) =
                    run_fused_eq(arr, &q, alpha, 2, g, claim, count, m, &mut tb).unwrap();
                let what = format!("zero at {zero_at:?}, count {count}, masked {masked}");
                assert_eq!(rounds2, rounds, "{what}");
                assert_eq!((point2, running2), (point.clone(), running), "{what}");
                assert_eq!(&bound2[..], &bound[1..], "{what}");
                // α now carries eq of the bound variables.
                let bound_eq = alpha * eq_eval(&q[..count], &point).unwrap();
                assert_eq!(alpha2, bound_eq, "{what}");
            }
        }
    }
    let mut t = Transcript::new(HashKind::Blake3, b"gruen");
    let short = [random_vec::<Gl2>(&mut r, 8)];
    assert!(run_fused_eq(
        short,
        &[Gl2::ONE; 2],
        Gl2::ONE,
        1,
        |v| v[0],
        Gl2::ONE,
        1,
        None,
        &mut t
    )
    .is_err());
}
