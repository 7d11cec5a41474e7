//! Write → read gives back what was written: the Groth16 `.zkey` (with every point check
//! level), `proof.json` and `verification_key.json`, snarkjs' own files included.

use fastzk_curve::serialize::{Coordinate, PointEncoding, SnarkjsLem};
use fastzk_curve::Affine;
use fastzk_formats::{PointCheck, Ptau, Validate};
use fastzk_groth16::setup_ptau::setup_from_ptau_file;
use fastzk_groth16::{
    proof_from_json, proof_to_json, vk_from_json, vk_to_json, Proof, VerifyingKey, Zkey,
};
use fastzk_pairing::{Bls12_381, Bn254, Fr, PairingCurve, G1, G2};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_testing::fixtures::{path as data, text};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::Value;

fn rng() -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(7)
}

fn zkey_roundtrip<E: PairingCurve>(ptau_file: &str) {
    let ptau = Ptau::<E>::open(data(ptau_file), Validate::Yes).unwrap();
    let params = SynthParams {
        n_vars: Some(9),
        ..SynthParams::new(ptau.power())
    };
    let (r1cs, _) = synthesize::<Fr<E>>(&params, &mut rng()).unwrap();
    let pk = setup_from_ptau_file(&ptau, &r1cs).unwrap();
    let z = Zkey::new(pk);
    let bytes = z.to_bytes().unwrap();
    for v in [Validate::Yes, Validate::No] {
        let back = Zkey::<E>::from_bytes(&bytes, "synth.zkey", v).unwrap();
        assert_eq!(back, z);
        assert_eq!(back.to_bytes().unwrap(), bytes);
    }
    // The prevalidated fast path reads the same key from the same bytes...
    let fast = Zkey::<E>::from_bytes_with(&bytes, "synth.zkey", PointCheck::Prevalidated).unwrap();
    assert_eq!(fast, z);
    // ...and still refuses a coordinate ≥ p (all 0xff in the last H point's x).
    let mut bad = bytes.clone();
    let h = z.proving_key.h_query.len();
    let point = 2 * <E::G1 as fastzk_curve::CurveConfig>::Base::COMPONENT_BYTES;
    let at = bytes.len() - 68 - 12 - point; // section 10 (12-byte header, 68 bytes) follows H
    let last_h = &z.proving_key.h_query[h - 1];
    assert_eq!(&bytes[at..at + point], &SnarkjsLem::encode(last_h)[..]);
    bad[at..at + point / 2].fill(0xff);
    assert!(Zkey::<E>::from_bytes_with(&bad, "bad.zkey", PointCheck::Prevalidated).is_err());
    assert!(Zkey::<E>::from_bytes_with(&bad, "bad.zkey", PointCheck::Subgroup).is_err());
}

#[test]
fn zkey_bn254() {
    zkey_roundtrip::<Bn254>("bn254/pot5_final.ptau");
}

#[test]
fn zkey_bls12_381() {
    zkey_roundtrip::<Bls12_381>("bls12_381/pot4_final.ptau");
}

fn json_roundtrip<E: PairingCurve>() {
    let mut rng = rng();
    let g1 = |r: &mut ChaCha20Rng| G1::<E>::random(r);
    let g2 = |r: &mut ChaCha20Rng| G2::<E>::random(r);
    let proofs = [
        Proof::<E> {
            a: g1(&mut rng),
            b: g2(&mut rng),
            c: g1(&mut rng),
        },
        Proof::<E> {
            a: Affine::identity(),
            b: Affine::identity(),
            c: g1(&mut rng),
        },
    ];
    for p in proofs {
        assert_eq!(
            proof_from_json::<E>(&proof_to_json(&p), "proof.json").unwrap(),
            p
        );
    }
    let vk = VerifyingKey::<E> {
        alpha_g1: g1(&mut rng),
        beta_g2: g2(&mut rng),
        gamma_g2: g2(&mut rng),
        delta_g2: g2(&mut rng),
        ic: vec![g1(&mut rng), Affine::identity(), g1(&mut rng)],
    };
    assert_eq!(vk_from_json::<E>(&vk_to_json(&vk), "vk.json").unwrap(), vk);
}

#[test]
fn json_bn254() {
    json_roundtrip::<Bn254>();
}

#[test]
fn json_bls12_381() {
    json_roundtrip::<Bls12_381>();
}

/// Our JSON for snarkjs' objects equals snarkjs' JSON (as values: whitespace aside),
/// `vk_alphabeta_12` included.
fn snarkjs_json_same<E: PairingCurve>(dir: &str, name: &str) {
    let text = |s: &str| text(&format!("{dir}/{name}{s}"));
    let val = |s: &str| serde_json::from_str::<Value>(s).unwrap();
    let proof = text("_proof.json");
    let ours = proof_to_json(&proof_from_json::<E>(&proof, "proof.json").unwrap());
    assert_eq!(val(&ours), val(&proof));
    let vk = text("_vk.json");
    let ours = vk_to_json(&vk_from_json::<E>(&vk, "vk.json").unwrap());
    assert_eq!(val(&ours), val(&vk));
}

#[test]
fn snarkjs_json_bn254() {
    snarkjs_json_same::<Bn254>("bn254", "multiplier");
    snarkjs_json_same::<Bn254>("bn254", "poly");
}

#[test]
fn snarkjs_json_bls12_381() {
    snarkjs_json_same::<Bls12_381>("bls12_381", "multiplier");
}
