//! Spartan NIZK: honest proofs verify over Goldilocks (challenges in its extension) and
//! BN254; an unsatisfied witness is refused by name; every part of a proof, the public
//! inputs and the statement are bound.

use fastzk_field::{bn254, Field, Goldilocks, GoldilocksExt2, GoldilocksExt3, NttField};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_r1cs::{R1cs, R1csError};
use fastzk_spartan::{prove, verify, Proof, SpartanError, SpartanParams};
use fastzk_spartan::{LayerExtension, LayerField};
use fastzk_testing::gen::rng;

type Gl = Goldilocks;
type Gl3 = GoldilocksExt3;

fn instance<F: NttField>(log: u32, n_public: usize, seed: u64) -> (R1cs<F>, Vec<F>) {
    let mut p = SynthParams::new(log);
    p.n_public = n_public;
    synthesize(&p, &mut rng(seed)).unwrap()
}

fn roundtrip<F: LayerField, E: LayerExtension<F>>(log: u32, n_public: usize, seed: u64) {
    let params = SpartanParams::default();
    let (r1cs, z) = instance::<F>(log, n_public, seed);
    let proof: Proof<F, E> = prove(&params, &r1cs, &z).unwrap();
    verify(&params, &r1cs, &z[1..=n_public], &proof).unwrap();
}

pub fn honest_proofs_verify() {
    for (log, n_public) in [(2, 1), (4, 3), (7, 1), (10, 5), (12, 2)] {
        roundtrip::<Gl, Gl3>(log, n_public, log as u64);
        roundtrip::<bn254::Fr, bn254::Fr>(log, n_public, 50 + log as u64);
    }
    // More variables than constraints, and fewer.
    let params = SpartanParams::default();
    for n_vars in [40, 3000] {
        let mut p = SynthParams::new(9);
        p.n_vars = Some(n_vars);
        let (r1cs, z) = synthesize::<Gl>(&p, &mut rng(n_vars as u64)).unwrap();
        let proof: Proof<Gl, Gl3> = prove(&params, &r1cs, &z).unwrap();
        verify(&params, &r1cs, &z[1..2], &proof).unwrap();
    }
}

pub fn an_unsatisfied_witness_is_refused_by_name() {
    let (r1cs, mut z) = instance::<Gl>(8, 1, 3);
    // Find a variable that some constraint uses, and break it.
    z[7] += Gl::ONE;
    let err = prove::<Gl, Gl3>(&SpartanParams::default(), &r1cs, &z).unwrap_err();
    assert!(
        matches!(err, SpartanError::R1cs(R1csError::Unsatisfied { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("constraint"), "{err}");
}

pub fn every_part_of_a_proof_is_bound() {
    let params = SpartanParams::default();
    let (r1cs, z) = instance::<Gl>(10, 2, 9);
    let public = &z[1..=2];
    let proof: Proof<Gl, Gl3> = prove(&params, &r1cs, &z).unwrap();
    let rejects = |p: &Proof<Gl, Gl3>| verify(&params, &r1cs, public, p).is_err();
    let one = Gl3::ONE;
    for i in 0..proof.outer.rounds.len() {
        for k in 0..proof.outer.rounds[i].len() {
            let mut p = proof.clone();
            p.outer.rounds[i][k] += one;
            assert!(rejects(&p), "outer round {i} value {k}");
        }
    }
    for i in 0..proof.inner.rounds.len() {
        for k in 0..proof.inner.rounds[i].len() {
            let mut p = proof.clone();
            p.inner.rounds[i][k] += one;
            assert!(rejects(&p), "inner round {i} value {k}");
        }
    }
    for k in 0..4 {
        let mut p = proof.clone();
        p.claims[k] += one;
        assert!(rejects(&p), "claim {k}");
    }
    let mut p = proof.clone();
    p.outer_mask_sum += one;
    assert!(rejects(&p));
    let mut p = proof.clone();
    p.inner_mask_sum += one;
    assert!(rejects(&p));
    let mut p = proof.clone();
    p.opening.salts[0][0] ^= 1;
    assert!(rejects(&p));
    let mut p = proof.clone();
    let last = p.opening.row_eval.len() - 1;
    p.opening.row_eval[last] += one;
    assert!(rejects(&p), "the row combination's random tail");
    let mut p = proof.clone();
    p.witness_eval += one;
    assert!(rejects(&p));
    let mut p = proof.clone();
    p.witness.root[0] ^= 1;
    assert!(rejects(&p));
    let mut p = proof.clone();
    p.witness.num_vars += 1;
    assert!(rejects(&p));
    let mut p = proof.clone();
    p.opening.row_eval[0] += one;
    assert!(rejects(&p));
    for i in [0, proof.opening.columns[0].len() - 1] {
        let mut p = proof.clone();
        p.opening.columns[0][i] += Gl::ONE;
        assert!(rejects(&p), "opened column entry {i}");
    }
    let mut p = proof.clone();
    p.opening.combos[0][3] += one;
    assert!(rejects(&p));
    let mut p = proof.clone();
    p.opening.merkle.siblings[0][0] ^= 1;
    assert!(rejects(&p));
    // Other public inputs, another circuit, the wrong number of inputs.
    let mut other = public.to_vec();
    other[1] += Gl::ONE;
    assert!(verify(&params, &r1cs, &other, &proof).is_err());
    let (r1cs2, _) = instance::<Gl>(10, 2, 10);
    assert!(verify(&params, &r1cs2, public, &proof).is_err());
    assert!(matches!(
        verify(&params, &r1cs, &public[..1], &proof),
        Err(SpartanError::PublicCount(1, 2))
    ));
    verify(&params, &r1cs, public, &proof).unwrap();
}

pub fn a_false_statement_is_rejected() {
    // A prover that skips the satisfiability check: one constraint broken.
    let params = SpartanParams::default();
    for (log, seed) in [(6, 11), (10, 12)] {
        let (r1cs, mut z) = instance::<Gl>(log, 1, seed);
        let last = z.len() - 1;
        z[last] += Gl::ONE;
        assert!(r1cs.check(&z).is_err());
        let proof: Proof<Gl, Gl3> = fastzk_spartan::prove_unchecked(&params, &r1cs, &z).unwrap();
        assert_eq!(
            verify(&params, &r1cs, &z[1..2], &proof),
            Err(SpartanError::Rejected("outer sumcheck's final check"))
        );
    }
}

pub fn the_calculator_against_hand_computed_values() {
    use fastzk_spartan::soundness;
    let params = SpartanParams::default();
    // Goldilocks^3 at 2^20 × 2^21: |E| = p^3 with log2 p = 64 − 2^−32·…; the sumcheck
    // terms are 3·log2 p − log2(3·19 + 5) and 3·log2 p − log2(2·21).
    let s = soundness::<Gl, Gl3>(&params, 20, 21);
    let log_p = (18446744069414584321f64).log2();
    let part = |name: &str| s.parts.iter().find(|(n, _)| n.starts_with(name)).unwrap().1;
    assert!((part("outer sumcheck") - (3.0 * log_p - 62f64.log2())).abs() < 1e-9);
    assert!((part("inner sumcheck") - (3.0 * log_p - 42f64.log2())).abs() < 1e-9);
    assert!((part("outer mask") - 3.0 * log_p).abs() < 1e-9);
    // 2^20 witness values in 128 rows of 8192, each encoded with 196 random coefficients:
    // dimension 8388, 2^15 symbols. 196 queries: −196·log2(1 − δ/2), δ = 1 − 8388/2^15.
    let rate = 8388.0 / 32768.0;
    let queries = -196.0 * (1.0 - (1.0 - rate) / 2.0f64).log2();
    assert!((part("column queries") - queries).abs() < 1e-9);
    assert!((part("column queries") - 131.553).abs() < 1e-3);
    assert!((part("proximity") - (3.0 * log_p - 15.0)).abs() < 1e-9);
    assert!(s.meets_target(), "{s:?}");
    assert!(s.bits > 131.5 && s.bits < 131.56, "{}", s.bits);
    // Goldilocks^2 falls short (a sumcheck round's error is d/2^128).
    let weak = soundness::<Gl, GoldilocksExt2>(&params, 20, 21);
    assert!(!weak.meets_target() && weak.bits < 122.0, "{}", weak.bits);
    // Fewer queries fall short too.
    let mut few = params;
    few.pcs.queries = 150;
    assert!(!soundness::<Gl, Gl3>(&few, 20, 21).meets_target());
    // BN254: the queries are the limit.
    let bn = soundness::<bn254::Fr, bn254::Fr>(&params, 20, 21);
    assert!(bn.meets_target() && (bn.bits - 131.553).abs() < 1e-2);
    // Every size from 2 to 2^26 constraints meets the target with the defaults.
    for log in 1..=26 {
        let s = soundness::<Gl, Gl3>(&params, log, log + 1);
        assert!(s.meets_target(), "2^{log}: {:.2} bits", s.bits);
    }
}

/// What depends on the witness is masked afresh in every proof: two proofs of the same
/// statement with the same witness share no claim, evaluation, row combination or
/// opened column.
pub fn proofs_are_randomised() {
    use fastzk_spartan::prove_with_rng;
    let params = SpartanParams::default();
    let (r1cs, z) = instance::<Gl>(10, 2, 21);
    let a: Proof<Gl, Gl3> = prove_with_rng(&params, &r1cs, &z, &mut rng(1)).unwrap();
    let b: Proof<Gl, Gl3> = prove_with_rng(&params, &r1cs, &z, &mut rng(2)).unwrap();
    for p in [&a, &b] {
        verify(&params, &r1cs, &z[1..=2], p).unwrap();
    }
    for k in 0..4 {
        assert_ne!(a.claims[k], b.claims[k], "claim {k}");
    }
    assert_ne!(a.witness_eval, b.witness_eval);
    assert_ne!(a.outer.rounds[0], b.outer.rounds[0]);
    assert_ne!(a.inner.rounds[0], b.inner.rounds[0]);
    let shared = a
        .opening
        .row_eval
        .iter()
        .filter(|x| b.opening.row_eval.contains(x))
        .count();
    assert_eq!(shared, 0);
    let entries = |p: &Proof<Gl, Gl3>| {
        p.opening
            .columns
            .iter()
            .flatten()
            .copied()
            .collect::<Vec<_>>()
    };
    let (ea, eb) = (entries(&a), entries(&b));
    assert!(ea.iter().filter(|x| eb.contains(x)).count() < 4);
    // The same randomness gives the same proof (the prover is a function of it).
    let a2: Proof<Gl, Gl3> = prove_with_rng(&params, &r1cs, &z, &mut rng(1)).unwrap();
    assert_eq!(a, a2);
}

pub fn weak_parameters_are_refused() {
    let (r1cs, z) = instance::<Gl>(8, 1, 4);
    let err = prove::<Gl, GoldilocksExt2>(&SpartanParams::default(), &r1cs, &z).unwrap_err();
    assert!(matches!(err, SpartanError::WeakParameters { .. }), "{err}");
    let proof: Proof<Gl, Gl3> = prove(&SpartanParams::default(), &r1cs, &z).unwrap();
    let mut weak = SpartanParams::default();
    weak.pcs.queries = 100;
    assert!(matches!(
        verify(&weak, &r1cs, &z[1..2], &proof),
        Err(SpartanError::WeakParameters { .. })
    ));
}
