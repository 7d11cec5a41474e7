//! Spartan's SNARK mode: `setup` commits to the matrices (Spark), the verifier holds only
//! the verifying key. Honest proofs verify in both fields; the statement, the public
//! inputs and the key are bound; a key that does not add up is refused, not a panic.
//! (Every part of a Spark proof tampered in turn: `spark::tests`; of the rest of the
//! proof: `nizk.rs`, the same code.)

use fastzk_field::{bn254, Field, Goldilocks, GoldilocksExt3, NttField};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_r1cs::{R1cs, R1csError};
use fastzk_spartan::{
    prove_snark, setup, soundness, soundness_snark, verify_snark, SnarkProof, SpartanError,
    SpartanParams,
};
use fastzk_spartan::{LayerExtension, LayerField};
use fastzk_testing::gen::rng;

type Gl = Goldilocks;
type Gl3 = GoldilocksExt3;

fn instance<F: NttField>(
    log: u32,
    n_public: usize,
    n_vars: Option<usize>,
    seed: u64,
) -> (R1cs<F>, Vec<F>) {
    let mut p = SynthParams::new(log);
    p.n_public = n_public;
    p.n_vars = n_vars;
    synthesize(&p, &mut rng(seed)).unwrap()
}

fn roundtrip<F: LayerField, E: LayerExtension<F>>(
    log: u32,
    n_public: usize,
    n_vars: Option<usize>,
    seed: u64,
) {
    let params = SpartanParams::default();
    let (r1cs, z) = instance::<F>(log, n_public, n_vars, seed);
    let pk = setup::<F, E>(&params, r1cs).unwrap();
    let proof: SnarkProof<F, E> = prove_snark(&params, &pk, &z).unwrap();
    verify_snark(&params, &pk.vk, &z[1..=n_public], &proof).unwrap();
}

pub fn honest_snark_proofs_verify() {
    for (log, n_public) in [(2, 1), (4, 3), (7, 1), (10, 5)] {
        roundtrip::<Gl, Gl3>(log, n_public, None, log as u64);
        roundtrip::<bn254::Fr, bn254::Fr>(log, n_public, None, 50 + log as u64);
    }
    for n_vars in [40, 3000] {
        roundtrip::<Gl, Gl3>(9, 1, Some(n_vars), n_vars as u64);
    }
}

pub fn the_statement_inputs_and_key_are_bound() {
    let params = SpartanParams::default();
    let (r1cs, z) = instance::<Gl>(8, 2, None, 5);
    let pk = setup::<Gl, Gl3>(&params, r1cs).unwrap();
    let public = &z[1..=2];
    let proof: SnarkProof<Gl, Gl3> = prove_snark(&params, &pk, &z).unwrap();
    verify_snark(&params, &pk.vk, public, &proof).unwrap();
    let mut other = public.to_vec();
    other[0] += Gl::ONE;
    assert!(verify_snark(&params, &pk.vk, &other, &proof).is_err());
    // Another circuit of the same shape.
    let (r1cs2, _) = instance::<Gl>(8, 2, None, 6);
    let pk2 = setup::<Gl, Gl3>(&params, r1cs2).unwrap();
    assert_eq!(pk2.vk.spark.shape, pk.vk.spark.shape);
    assert!(verify_snark(&params, &pk2.vk, public, &proof).is_err());
    // Keys that do not add up: refused by name, no panic.
    let mut vk = pk.vk;
    vk.spark.shape.log_mem = 1;
    assert_eq!(
        verify_snark(&params, &vk, public, &proof),
        Err(SpartanError::Rejected("verifying key of the wrong shape"))
    );
    let mut vk = pk.vk;
    vk.spark.shape.log_n += 1;
    assert!(verify_snark(&params, &vk, public, &proof).is_err());
    let mut vk = pk.vk;
    vk.spark.entries.root[3] ^= 1;
    assert!(verify_snark(&params, &vk, public, &proof).is_err());
    let mut vk = pk.vk;
    vk.n_constraints += 1000;
    assert!(verify_snark(&params, &vk, public, &proof).is_err());
    // The NIZK part of the proof is bound too.
    let mut p = proof.clone();
    p.proof.claims[0] += Gl3::ONE;
    assert!(verify_snark(&params, &pk.vk, public, &p).is_err());
    let mut p = proof.clone();
    p.spark.value += Gl3::ONE;
    assert!(verify_snark(&params, &pk.vk, public, &p).is_err());
}

pub fn an_unsatisfied_witness_is_refused_by_name() {
    let params = SpartanParams::default();
    let (r1cs, mut z) = instance::<Gl>(8, 1, None, 3);
    z[7] += Gl::ONE;
    let pk = setup::<Gl, Gl3>(&params, r1cs).unwrap();
    let err = prove_snark::<Gl, Gl3>(&params, &pk, &z).unwrap_err();
    assert!(
        matches!(err, SpartanError::R1cs(R1csError::Unsatisfied { .. })),
        "{err}"
    );
}

pub fn the_snark_calculator_against_hand_computed_values() {
    let params = SpartanParams::default();
    let (r1cs, _) = instance::<Gl>(10, 1, None, 8);
    let pk = setup::<Gl, Gl3>(&params, r1cs).unwrap();
    let shape = pk.vk.spark.shape;
    let s = soundness_snark::<Gl, Gl3>(&params, &shape);
    let log_e = 3.0 * (18446744069414584321f64).log2();
    let part = |name: &str| s.parts.iter().find(|(n, _)| n.starts_with(name)).unwrap().1;
    let (n, m) = (shape.log_n as f64, shape.log_mem as f64);
    let hashes = 4.0 * (2.0 * n.exp2() + 2.0 * m.exp2());
    assert!((part("Spark multiset") - (log_e - hashes.log2())).abs() < 1e-9);
    let products = 1.5 * n * (n - 1.0) + 2.0 * n + 1.5 * m * (m - 1.0) + 2.0 * m;
    assert!((part("Spark grand products") - (log_e - products.log2())).abs() < 1e-9);
    assert!((part("Spark evaluation") - (log_e - (3.0 * n).log2())).abs() < 1e-9);
    // No hiding: rate exactly 1/4, δ = 3/4, each query 1 − 3/8.
    let queries = -196.0 * (0.625f64).log2();
    assert!((part("Spark entries: column") - queries).abs() < 1e-9);
    // Every NIZK component is there too, and the total meets the target.
    let nizk = soundness::<Gl, Gl3>(&params, shape.log_rows, shape.log_cols);
    assert!(nizk.parts.iter().all(|p| s.parts.contains(p)));
    assert!(s.meets_target() && s.bits <= nizk.bits, "{s:?}");
    // 2^26 constraints with 2^28 entries still meets it.
    let mut big = shape;
    (big.log_rows, big.log_cols, big.log_mem, big.log_n) = (26, 27, 27, 28);
    assert!(soundness_snark::<Gl, Gl3>(&params, &big).meets_target());
}
