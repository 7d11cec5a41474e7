//! The Plonk files against what snarkjs made (`crates/testing/data`; its README says
//! how): snarkjs' zkeys read and written back byte for byte, its proofs verified, and
//! fastzk's proofs on its keys verified, with every tampered field rejected.

use fastzk_field::Field;
use fastzk_formats::{read_public_json, read_wtns, PointCheck};
use fastzk_pairing::{Bls12_381, Bn254, Fr, PairingCurve};
use fastzk_plonk::{
    proof_from_json, proof_to_json, prove_with_rng, read_proof_json, read_vk_json, setup, verify,
    vk_from_json, vk_to_json, PlonkCircuit, Powers, ProveError, ProveOptions, ProvingKey,
};
use fastzk_runtime::LayerPairing;
use fastzk_testing::fixtures::{bytes, path as data};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

struct Fixture<E: LayerPairing> {
    pk: ProvingKey<E>,
    witness: Vec<Fr<E>>,
}

fn load<E: LayerPairing>(dir: &str, name: &str) -> Fixture<E> {
    let p = |s: &str| data(&format!("{dir}/{name}{s}"));
    Fixture {
        pk: ProvingKey::open(p("_plonk.zkey"), PointCheck::Subgroup).unwrap(),
        witness: read_wtns(p(".wtns")).unwrap(),
    }
}

/// JSON text as a value: snarkjs indents with one space, fastzk with two.
fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap()
}

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// Every check one fixture supports.
fn check_fixture<E: LayerPairing>(dir: &str, name: &str) {
    let p = |s: &str| format!("{dir}/{name}{s}");
    let f = load::<E>(dir, name);

    // The key written back is the file snarkjs wrote, byte for byte; the same from
    // memory.
    let file = bytes(&p("_plonk.zkey"));
    assert_eq!(f.pk.to_bytes().unwrap(), file);
    let in_memory = ProvingKey::<E>::from_bytes(file.clone(), "mem", PointCheck::Subgroup).unwrap();
    assert_eq!(in_memory.to_bytes().unwrap(), file);

    // The verification key snarkjs exported is the key's, and is written back as is.
    let vk_text = String::from_utf8(bytes(&p("_plonk_vk.json"))).unwrap();
    let vk = vk_from_json::<E>(&vk_text, "vk").unwrap();
    assert_eq!(vk, f.pk.vk);
    assert_eq!(json(&vk_to_json(&vk)), json(&vk_text));

    // snarkjs' proof verifies here, and is written back as is.
    let public: Vec<Fr<E>> = read_public_json(data(&p("_plonk_public.json"))).unwrap();
    let proof = read_proof_json::<E>(data(&p("_plonk_proof.json"))).unwrap();
    assert!(verify(&vk, &public, &proof).unwrap());
    let proof_text = String::from_utf8(bytes(&p("_plonk_proof.json"))).unwrap();
    assert_eq!(json(&proof_to_json(&proof)), json(&proof_text));
    assert_eq!(proof_from_json::<E>(&proof_text, "p").unwrap(), proof);

    // fastzk's proof on snarkjs' key verifies, with the same public signals.
    let (mine, my_public, _) = prove_with_rng(
        &f.pk,
        &f.witness,
        &ProveOptions {
            self_check: false,
            on_phase: None,
            chunk_points: None,
            context: None,
        },
        &mut rng(1),
    )
    .unwrap();
    assert_eq!(my_public, public);
    assert!(verify(&vk, &public, &mine).unwrap());
    // Fresh blinding gives another proof of the same statement.
    let (other, _, _) =
        prove_with_rng(&f.pk, &f.witness, &ProveOptions::default(), &mut rng(2)).unwrap();
    assert_ne!(other, mine);
    assert!(verify(&vk, &public, &other).unwrap());

    // Tampering: each commitment, each evaluation, each public input.
    let g = fastzk_curve::Affine::<E::G1>::generator();
    for k in 0..9 {
        let mut bad = mine;
        let slot = match k {
            0 => &mut bad.a,
            1 => &mut bad.b,
            2 => &mut bad.c,
            3 => &mut bad.z,
            4 => &mut bad.t1,
            5 => &mut bad.t2,
            6 => &mut bad.t3,
            7 => &mut bad.wxi,
            _ => &mut bad.wxiw,
        };
        *slot = (fastzk_curve::Jacobian::from(*slot) + g).to_affine();
        assert!(
            !verify(&vk, &public, &bad).unwrap(),
            "commitment {k} tampered"
        );
    }
    for k in 0..6 {
        let mut bad = mine;
        let slot = match k {
            0 => &mut bad.eval_a,
            1 => &mut bad.eval_b,
            2 => &mut bad.eval_c,
            3 => &mut bad.eval_s1,
            4 => &mut bad.eval_s2,
            _ => &mut bad.eval_zw,
        };
        *slot += Fr::<E>::ONE;
        assert!(
            !verify(&vk, &public, &bad).unwrap(),
            "evaluation {k} tampered"
        );
    }
    for k in 0..public.len() {
        let mut bad = public.clone();
        bad[k] += Fr::<E>::ONE;
        assert!(
            !verify(&vk, &bad, &mine).unwrap(),
            "public input {k} tampered"
        );
    }
    assert!(verify(&vk, &public[1..], &mine).is_err());

    // A witness that breaks a gate is refused, naming it.
    let mut bad = f.witness.clone();
    let last = bad.len() - 1;
    bad[last] += Fr::<E>::ONE;
    match prove_with_rng(&f.pk, &bad, &ProveOptions::default(), &mut rng(3)) {
        Err(ProveError::GateUnsatisfied { gate, .. }) => assert!(gate < f.pk.n_constraints),
        other => panic!("expected a broken gate, got {:?}", other.map(|_| ())),
    }
    let short = &f.witness[..f.witness.len() - 1];
    assert!(matches!(
        prove_with_rng(&f.pk, short, &ProveOptions::default(), &mut rng(4)),
        Err(ProveError::WitnessLength { .. })
    ));
}

pub fn bn254_multiplier() {
    check_fixture::<Bn254>("bn254", "multiplier");
}

pub fn bn254_poly() {
    check_fixture::<Bn254>("bn254", "poly");
}

pub fn bls12_381_multiplier() {
    check_fixture::<Bls12_381>("bls12_381", "multiplier");
}

pub fn the_verification_key_file_is_read_as_snarkjs_wrote_it() {
    let vk = read_vk_json::<Bn254>(data("bn254/poly_plonk_vk.json")).unwrap();
    assert_eq!(vk.n_public, 2);
    assert_eq!(vk.power, 4);
    assert_eq!(vk.k1, Fr::<Bn254>::from_u64(2));
    assert_eq!(vk.k2, Fr::<Bn254>::from_u64(3));
}

/// `plonk setup` from snarkjs' r1cs and ptau is snarkjs' zkey, byte for byte.
fn check_setup<E: PairingCurve>(dir: &str, name: &str, ptau: &str) {
    let r1cs = fastzk_formats::R1csFile::<Fr<E>>::open(data(&format!("{dir}/{name}.r1cs")))
        .unwrap()
        .r1cs;
    let ptau = fastzk_formats::Ptau::<E>::open(
        data(&format!("{dir}/{ptau}")),
        fastzk_formats::Validate::Yes,
    )
    .unwrap();
    let circuit = PlonkCircuit::from_r1cs(&r1cs);
    let powers = Powers::from_ptau(&ptau, circuit.log_domain()).unwrap();
    let pk = setup(&circuit, &powers).unwrap();
    assert_eq!(
        pk.to_bytes().unwrap(),
        bytes(&format!("{dir}/{name}_plonk.zkey"))
    );
    // Every constraint has its gate, in order.
    assert_eq!(circuit.constraint_gate.len(), r1cs.n_constraints());
    assert!(circuit.constraint_gate.windows(2).all(|w| w[0] < w[1]));
}

pub fn setup_is_snarkjs_setup_byte_for_byte() {
    check_setup::<Bn254>("bn254", "multiplier", "pot5_final.ptau");
    check_setup::<Bn254>("bn254", "poly", "pot5_final.ptau");
    check_setup::<Bls12_381>("bls12_381", "multiplier", "pot4_final.ptau");
}
