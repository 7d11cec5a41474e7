//! Proofs with 0 to 9 public inputs on both sides of the prover's switch between
//! evaluating `PI(X)` point by point and interpolating it; each verifies (a wrong `PI` on
//! `H` fails a public-input gate, off `H` the quotient), each public input is bound, and
//! a witness with a public value changed is refused at a gate.

use fastzk_pairing::{Bn254, Fr};
use fastzk_plonk::prover::ProveOptions;
use fastzk_plonk::{prove_with_rng, setup, verify, PlonkCircuit, Powers, ProveError};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

type F = Fr<Bn254>;

pub fn every_count_of_public_inputs_proves_and_binds() {
    for n_public in [0usize, 1, 2, 4, 5, 9] {
        let mut rng = ChaCha20Rng::seed_from_u64(n_public as u64);
        let params = SynthParams {
            n_public,
            ..SynthParams::plonk(6)
        };
        let (r1cs, witness) = synthesize::<F>(&params, &mut rng).unwrap();
        let circuit = PlonkCircuit::from_r1cs(&r1cs);
        let powers = Powers::<Bn254>::random(circuit.log_domain(), &mut rng);
        let pk = setup(&circuit, &powers).unwrap();
        let opts = ProveOptions::default();
        let (proof, public, _) = prove_with_rng(&pk, &witness, &opts, &mut rng).unwrap();
        assert_eq!(public, witness[1..=n_public], "{n_public} public inputs");
        assert!(
            verify(&pk.vk, &public, &proof).unwrap(),
            "{n_public} public inputs"
        );
        for k in 0..n_public {
            let mut other = public.clone();
            other[k] += F::ONE;
            assert!(
                !verify(&pk.vk, &other, &proof).unwrap(),
                "public input {k} of {n_public}"
            );
            let mut bad = witness.clone();
            bad[1 + k] += F::ONE;
            let refused = prove_with_rng(&pk, &bad, &opts, &mut rng);
            assert!(
                matches!(refused, Err(ProveError::GateUnsatisfied { .. })),
                "public input {k} of {n_public}: {:?}",
                refused.map(|_| ())
            );
        }
    }
}
