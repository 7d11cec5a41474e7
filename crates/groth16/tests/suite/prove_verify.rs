//! Setup → prove → verify on synthetic circuits, tampering, unsatisfied witnesses, and
//! arkworks' verifier as a second opinion on our proofs.

use ark_ec::pairing::Pairing;
use fastzk_curve::Jacobian;
use fastzk_field::Field;
use fastzk_groth16::{
    prove, prove_with, prove_with_rng, setup_random, verify, Proof, ProveError, ProveOptions,
    ProvingKey, VerifyingKey,
};
use fastzk_pairing::{Bls12_381, Bn254, Fr, PairingCurve};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_r1cs::{R1cs, R1csError};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn instance<E: PairingCurve>(log: u32, n_public: usize, seed: u64) -> (R1cs<Fr<E>>, Vec<Fr<E>>) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let params = SynthParams {
        n_public,
        ..SynthParams::new(log)
    };
    synthesize(&params, &mut rng).unwrap()
}

fn key<E: PairingCurve>(r1cs: &R1cs<Fr<E>>, seed: u64) -> ProvingKey<E> {
    setup_random::<E>(r1cs, &mut ChaCha20Rng::seed_from_u64(seed)).unwrap()
}

fn round_trip<E: PairingCurve>() {
    for (log, n_public) in [(3, 1), (6, 3), (10, 5)] {
        let (r1cs, z) = instance::<E>(log, n_public, log as u64);
        r1cs.check(&z).unwrap();
        let pk = key::<E>(&r1cs, 7);
        assert_eq!(pk.log_domain, log);
        let proof = prove(&pk, &z).unwrap();
        let public = &z[1..=n_public];
        assert!(verify(&pk.vk, public, &proof).unwrap());

        // Tampered public input, proof elements, or swapped elements: rejected.
        let mut bad = public.to_vec();
        bad[0] += Fr::<E>::ONE;
        assert!(!verify(&pk.vk, &bad, &proof).unwrap());
        let g1 = fastzk_curve::Affine::<E::G1>::generator();
        let g2 = fastzk_curve::Affine::<E::G2>::generator();
        for tampered in [
            Proof {
                a: (Jacobian::from(proof.a) + g1).to_affine(),
                ..proof
            },
            Proof {
                c: (Jacobian::from(proof.c) + g1).to_affine(),
                ..proof
            },
            Proof {
                b: (Jacobian::from(proof.b) + g2).to_affine(),
                ..proof
            },
            Proof {
                a: proof.c,
                c: proof.a,
                ..proof
            },
            Proof {
                a: -proof.a,
                ..proof
            },
        ] {
            assert!(!verify(&pk.vk, public, &tampered).unwrap());
        }
        // Wrong number of public inputs: an error, not a verdict.
        assert!(verify(&pk.vk, &public[1..], &proof).is_err());
        // Two proofs of the same statement differ (fresh r, s) and both verify.
        let again = prove(&pk, &z).unwrap();
        assert_ne!(again, proof);
        assert!(verify(&pk.vk, public, &again).unwrap());
    }
}

#[test]
fn bn254_round_trip() {
    round_trip::<Bn254>();
}

#[test]
fn bls12_381_round_trip() {
    round_trip::<Bls12_381>();
}

#[test]
fn unsatisfied_witness_is_refused() {
    let (r1cs, mut z) = instance::<Bn254>(8, 2, 3);
    let pk = key::<Bn254>(&r1cs, 1);
    // Changing a private variable breaks the constraints that use it.
    let victim = 100;
    z[victim] += Fr::<Bn254>::ONE;
    let first_bad = (0..r1cs.n_constraints())
        .find(|&i| {
            let row = |m: &fastzk_r1cs::Csr<Fr<Bn254>>| {
                let (c, v) = m.row(i);
                c.iter()
                    .zip(v)
                    .map(|(&c, &v)| v * z[c as usize])
                    .sum::<Fr<Bn254>>()
            };
            row(r1cs.a()) * row(r1cs.b()) != row(r1cs.c())
        })
        .expect("some constraint uses the variable");

    // Without the R1CS, the self-check refuses the proof.
    assert!(matches!(prove(&pk, &z), Err(ProveError::SelfCheckFailed)));
    // With it, the first failing constraint is named.
    let opts = ProveOptions {
        r1cs: Some(&r1cs),
        ..ProveOptions::default()
    };
    match prove_with(&pk, &z, &opts) {
        Err(ProveError::Unsatisfied(R1csError::Unsatisfied { index })) => {
            assert_eq!(index, first_bad)
        }
        other => panic!("expected an unsatisfied-constraint error, got {other:?}"),
    }
    // Opting out of the self-check gives a proof that does not verify.
    let opts = ProveOptions {
        self_check: false,
        ..ProveOptions::default()
    };
    let (proof, _) = prove_with(&pk, &z, &opts).unwrap();
    assert!(!verify(&pk.vk, &z[1..=2], &proof).unwrap());
}

#[test]
fn bad_witness_shapes_are_errors() {
    let (r1cs, z) = instance::<Bn254>(5, 1, 4);
    let pk = key::<Bn254>(&r1cs, 2);
    assert!(matches!(
        prove(&pk, &z[1..]),
        Err(ProveError::WitnessLength { .. })
    ));
    let mut z2 = z.clone();
    z2[0] = Fr::<Bn254>::from_u64(2);
    assert!(matches!(prove(&pk, &z2), Err(ProveError::WitnessConstant)));
}

#[test]
fn all_zero_private_witness_and_zero_public_inputs() {
    // x·y = 0 with everything zero: the witness is all zeros but z[0].
    let z: Vec<Fr<Bn254>> = (0..6)
        .map(|i| {
            if i == 0 {
                Fr::<Bn254>::ONE
            } else {
                Fr::<Bn254>::ZERO
            }
        })
        .collect();
    let one = Fr::<Bn254>::ONE;
    let a = fastzk_r1cs::Csr::from_rows(6, [vec![(2u32, one)], vec![(3, one)]]).unwrap();
    let b = fastzk_r1cs::Csr::from_rows(6, [vec![(3u32, one)], vec![(4, one)]]).unwrap();
    let c = fastzk_r1cs::Csr::from_rows(6, [vec![(1u32, one)], vec![(5, one)]]).unwrap();
    let r1cs = R1cs::new(1, a, b, c).unwrap();
    r1cs.check(&z).unwrap();
    let pk = key::<Bn254>(&r1cs, 5);
    let proof = prove(&pk, &z).unwrap();
    assert!(verify(&pk.vk, &z[1..2], &proof).unwrap());
    assert!(!verify(&pk.vk, &[one], &proof).unwrap());
}

fn ark_verify<E, A>(vk: &VerifyingKey<E>, public: &[Fr<E>], proof: &Proof<E>) -> bool
where
    E: PairingCurve,
    A: Pairing,
    A::G1Affine: From<fastzk_curve::Affine<E::G1>>,
    A::G2Affine: From<fastzk_curve::Affine<E::G2>>,
    A::ScalarField: From<Fr<E>>,
{
    let vk = ark_groth16::VerifyingKey::<A> {
        alpha_g1: vk.alpha_g1.into(),
        beta_g2: vk.beta_g2.into(),
        gamma_g2: vk.gamma_g2.into(),
        delta_g2: vk.delta_g2.into(),
        gamma_abc_g1: vk.ic.iter().map(|p| (*p).into()).collect(),
    };
    let proof = ark_groth16::Proof::<A> {
        a: proof.a.into(),
        b: proof.b.into(),
        c: proof.c.into(),
    };
    let public: Vec<A::ScalarField> = public.iter().map(|x| (*x).into()).collect();
    let pvk = ark_groth16::prepare_verifying_key(&vk);
    ark_groth16::Groth16::<A>::verify_proof(&pvk, &proof, &public).unwrap()
}

#[test]
fn arkworks_verifier_agrees() {
    let (r1cs, z) = instance::<Bn254>(9, 4, 9);
    let pk = key::<Bn254>(&r1cs, 3);
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let (proof, timings) = prove_with_rng(&pk, &z, &ProveOptions::default(), &mut rng).unwrap();
    assert!(!timings.phases.is_empty());
    assert!(ark_verify::<Bn254, ark_bn254::Bn254>(
        &pk.vk,
        &z[1..=4],
        &proof
    ));
    let mut bad = z[1..=4].to_vec();
    bad[3] = bad[3].double();
    assert!(!ark_verify::<Bn254, ark_bn254::Bn254>(&pk.vk, &bad, &proof));

    let (r1cs, z) = instance::<Bls12_381>(7, 2, 10);
    let pk = key::<Bls12_381>(&r1cs, 4);
    let proof = prove(&pk, &z).unwrap();
    assert!(ark_verify::<Bls12_381, ark_bls12_381::Bls12_381>(
        &pk.vk,
        &z[1..=2],
        &proof
    ));
}

#[test]
fn h_query_size_matches_domain_and_public_rows_are_bound() {
    // A circuit whose public variable appears in no constraint: only snarkjs' extra
    // A row binds it, so changing it must still break verification.
    let one = Fr::<Bn254>::ONE;
    let three = Fr::<Bn254>::from_u64(3);
    let z = vec![
        one,
        Fr::<Bn254>::from_u64(42),
        three,
        Fr::<Bn254>::from_u64(9),
    ];
    let a = fastzk_r1cs::Csr::from_rows(4, [vec![(2u32, one)]]).unwrap();
    let b = a.clone();
    let c = fastzk_r1cs::Csr::from_rows(4, [vec![(3u32, one)]]).unwrap();
    let r1cs = R1cs::new(1, a, b, c).unwrap();
    let pk = key::<Bn254>(&r1cs, 6);
    assert_eq!(pk.h_query.len(), pk.domain_size());
    let proof = prove(&pk, &z).unwrap();
    assert!(verify(&pk.vk, &z[1..2], &proof).unwrap());
    assert!(!verify(&pk.vk, &[Fr::<Bn254>::from_u64(43)], &proof).unwrap());
}

/// The key's domain generator is checked (order exactly `2n`) and is the one the prover
/// uses: a key claiming another valid root proves nothing, and cannot be written as a
/// snarkjs zkey.
#[test]
fn key_domain_generator_is_checked_and_used() {
    let (r1cs, z) = instance::<Bn254>(4, 1, 5);
    let pk = key::<Bn254>(&r1cs, 3);
    assert!(pk.check_shape().is_ok());
    assert!(fastzk_groth16::Zkey::new(pk.clone()).to_bytes().is_ok());

    // Order n (a root of the domain itself, not of the 2n one): refused everywhere.
    let short = ProvingKey {
        omega_2n: pk.omega_2n.square(),
        ..pk.clone()
    };
    assert!(short.check_shape().unwrap_err().contains("order below"));
    assert!(matches!(prove(&short, &z), Err(ProveError::Key(_))));
    assert!(fastzk_groth16::Zkey::new(short).to_bytes().is_err());
    let not_root = ProvingKey {
        omega_2n: Fr::<Bn254>::from_u64(3),
        ..pk.clone()
    };
    assert!(not_root.check_shape().is_err());

    // Another primitive 2n-th root: a valid shape, but not the basis the key's H query was
    // built on, so the odd-coset quotient is wrong and the self-check refuses the proof;
    // and snarkjs could not use it, so it is not written as a zkey.
    let other = ProvingKey {
        omega_2n: pk.omega_2n.pow_u64(3),
        ..pk.clone()
    };
    assert!(other.check_shape().is_ok());
    assert!(matches!(
        prove(&other, &z),
        Err(ProveError::SelfCheckFailed)
    ));
    assert!(fastzk_groth16::Zkey::new(other).to_bytes().is_err());
}
