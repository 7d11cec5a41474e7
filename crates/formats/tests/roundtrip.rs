//! Write → read gives back what was written, for every format.

mod common;

use common::{bytes, data};
use fastzk_curve::serialize::{Coordinate, PointEncoding, SnarkjsLem};
use fastzk_curve::Affine;
use fastzk_field::{bls12_381, bn254, Field, PrimeField};
use fastzk_formats::r1cs::R1csFile;
use fastzk_formats::{
    proof_from_json, proof_to_json, public_from_json, public_to_json, vk_from_json, vk_to_json,
    wtns_from_bytes, wtns_to_bytes, PointCheck, Ptau, Validate, Zkey,
};
use fastzk_groth16::{Bls12_381, Bn254, Fr, PairingCurve, Proof, VerifyingKey, G1, G2};
use fastzk_r1cs::spmv;
use fastzk_r1cs::synth::{synthesize, SynthParams};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::Value;

fn rng() -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(7)
}

fn r1cs_roundtrip<F: PrimeField>() {
    let mut rng = rng();
    for (log, n_public, terms) in [(3, 1, 2), (5, 3, 4), (6, 0, 1)] {
        let params = SynthParams {
            log_size: log,
            n_vars: Some(20),
            n_public,
            terms,
        };
        let (r1cs, z) = synthesize::<F>(&params, &mut rng).unwrap();
        let file = R1csFile::from_r1cs(r1cs);
        let bytes = file.to_bytes();
        let back = R1csFile::<F>::from_bytes(&bytes, "synth.r1cs").unwrap();
        assert_eq!(back.header, file.header);
        assert_eq!(back.wire_to_label, file.wire_to_label);
        // Repeated wires in a row are merged on writing, so compare what the matrices do.
        let x: Vec<F> = (0..file.r1cs.n_vars())
            .map(|_| F::random(&mut rng))
            .collect();
        for (m, m2) in [
            (file.r1cs.a(), back.r1cs.a()),
            (file.r1cs.b(), back.r1cs.b()),
            (file.r1cs.c(), back.r1cs.c()),
        ] {
            assert_eq!(spmv(m, &x), spmv(m2, &x));
        }
        back.r1cs.check(&z).unwrap();
        assert_eq!(back.to_bytes(), bytes);
        // Without repeats the matrices come back exactly.
        let again = R1csFile::<F>::from_bytes(&back.to_bytes(), "again.r1cs").unwrap();
        assert_eq!(again, back);

        let w = wtns_to_bytes(&z);
        assert_eq!(wtns_from_bytes::<F>(&w, "synth.wtns").unwrap(), z);
        // For checking by hand that snarkjs accepts our files (tests/data/README.md).
        if let Ok(dir) = std::env::var("FASTZK_EXPORT_DIR") {
            let name = format!("synth{log}_{}", F::MODULUS_BITS);
            let dir = std::path::Path::new(&dir);
            std::fs::write(dir.join(format!("{name}.r1cs")), &bytes).unwrap();
            std::fs::write(dir.join(format!("{name}.wtns")), &w).unwrap();
        }
    }
}

#[test]
fn r1cs_and_wtns_bn254() {
    r1cs_roundtrip::<bn254::Fr>();
}

#[test]
fn r1cs_and_wtns_bls12_381() {
    r1cs_roundtrip::<bls12_381::Fr>();
}

#[test]
fn r1cs_save_and_open() {
    let (r1cs, _) = synthesize::<bn254::Fr>(&SynthParams::new(4), &mut rng()).unwrap();
    let file = R1csFile::from_r1cs(r1cs);
    let dir = std::env::temp_dir().join(format!("fastzk-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("synth.r1cs");
    file.save(&path).unwrap();
    assert_eq!(
        R1csFile::<bn254::Fr>::open(&path).unwrap().to_bytes(),
        file.to_bytes()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn zkey_roundtrip<E: PairingCurve>(ptau_file: &str) {
    let ptau = Ptau::<E>::open(data(ptau_file), Validate::Yes).unwrap();
    let params = SynthParams {
        n_vars: Some(9),
        ..SynthParams::new(ptau.power())
    };
    let (r1cs, _) = synthesize::<Fr<E>>(&params, &mut rng()).unwrap();
    let pk = ptau.groth16_setup(&r1cs).unwrap();
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
    let public: Vec<Fr<E>> = (0..5)
        .map(|_| Fr::<E>::random(&mut rng))
        .chain([Fr::<E>::ZERO, -Fr::<E>::ONE])
        .collect();
    assert_eq!(
        public_from_json::<Fr<E>>(&public_to_json(&public), "public.json").unwrap(),
        public
    );
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
    let text = |s: &str| String::from_utf8(bytes(&format!("{dir}/{name}{s}"))).unwrap();
    let val = |s: &str| serde_json::from_str::<Value>(s).unwrap();
    let proof = text("_proof.json");
    let ours = proof_to_json(&proof_from_json::<E>(&proof, "proof.json").unwrap());
    assert_eq!(val(&ours), val(&proof));
    let public = text("_public.json");
    let ours = public_to_json(&public_from_json::<Fr<E>>(&public, "public.json").unwrap());
    assert_eq!(val(&ours), val(&public));
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
