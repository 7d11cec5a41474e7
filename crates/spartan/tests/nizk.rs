//! Spartan NIZK: honest proofs verify over Goldilocks (challenges in its extension) and
//! BN254; an unsatisfied witness is refused by name; every part of a proof, the public
//! inputs and the statement are bound.

use fastzk_field::{bn254, Field, Goldilocks, GoldilocksExt2, NttField};
use fastzk_pcs::ExtensionOf;
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_r1cs::{R1cs, R1csError};
use fastzk_spartan::{prove, verify, Proof, SpartanError, SpartanParams};
use fastzk_testing::gen::rng;

type Gl = Goldilocks;
type Gl2 = GoldilocksExt2;

fn instance<F: NttField>(log: u32, n_public: usize, seed: u64) -> (R1cs<F>, Vec<F>) {
    let mut p = SynthParams::new(log);
    p.n_public = n_public;
    synthesize(&p, &mut rng(seed)).unwrap()
}

fn roundtrip<F: NttField, E: ExtensionOf<F>>(log: u32, n_public: usize, seed: u64) {
    let params = SpartanParams::default();
    let (r1cs, z) = instance::<F>(log, n_public, seed);
    let proof: Proof<F, E> = prove(&params, &r1cs, &z).unwrap();
    verify(&params, &r1cs, &z[1..=n_public], &proof).unwrap();
}

#[test]
fn honest_proofs_verify() {
    for (log, n_public) in [(2, 1), (4, 3), (7, 1), (10, 5), (12, 2)] {
        roundtrip::<Gl, Gl2>(log, n_public, log as u64);
        roundtrip::<bn254::Fr, bn254::Fr>(log, n_public, 50 + log as u64);
    }
    // More variables than constraints, and fewer.
    let params = SpartanParams::default();
    for n_vars in [40, 3000] {
        let mut p = SynthParams::new(9);
        p.n_vars = Some(n_vars);
        let (r1cs, z) = synthesize::<Gl>(&p, &mut rng(n_vars as u64)).unwrap();
        let proof: Proof<Gl, Gl2> = prove(&params, &r1cs, &z).unwrap();
        verify(&params, &r1cs, &z[1..2], &proof).unwrap();
    }
}

#[test]
fn an_unsatisfied_witness_is_refused_by_name() {
    let (r1cs, mut z) = instance::<Gl>(8, 1, 3);
    // Find a variable that some constraint uses, and break it.
    z[7] += Gl::ONE;
    let err = prove::<Gl, Gl2>(&SpartanParams::default(), &r1cs, &z).unwrap_err();
    assert!(
        matches!(err, SpartanError::R1cs(R1csError::Unsatisfied { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("constraint"), "{err}");
}

#[test]
fn every_part_of_a_proof_is_bound() {
    let params = SpartanParams::default();
    let (r1cs, z) = instance::<Gl>(10, 2, 9);
    let public = &z[1..=2];
    let proof: Proof<Gl, Gl2> = prove(&params, &r1cs, &z).unwrap();
    let rejects = |p: &Proof<Gl, Gl2>| verify(&params, &r1cs, public, p).is_err();
    let one = Gl2::ONE;
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
    for k in 0..3 {
        let mut p = proof.clone();
        p.abc[k] += one;
        assert!(rejects(&p), "claim {k}");
    }
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
    let mut p = proof.clone();
    p.opening.columns[0][0] += Gl::ONE;
    assert!(rejects(&p));
    let mut p = proof.clone();
    p.opening.combos[1][3] += one;
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

#[test]
fn a_false_statement_is_rejected() {
    // A prover that skips the satisfiability check: one constraint broken.
    let params = SpartanParams::default();
    for (log, seed) in [(6, 11), (10, 12)] {
        let (r1cs, mut z) = instance::<Gl>(log, 1, seed);
        let last = z.len() - 1;
        z[last] += Gl::ONE;
        assert!(r1cs.check(&z).is_err());
        let proof: Proof<Gl, Gl2> = fastzk_spartan::prove_unchecked(&params, &r1cs, &z).unwrap();
        assert_eq!(
            verify(&params, &r1cs, &z[1..2], &proof),
            Err(SpartanError::Rejected("outer sumcheck's final check"))
        );
    }
}
