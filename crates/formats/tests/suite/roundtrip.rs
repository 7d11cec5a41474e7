//! Write → read gives back what was written: `.r1cs`, `.wtns`, `public.json`.

use fastzk_field::{bls12_381, bn254, PrimeField};
use fastzk_formats::r1cs::R1csFile;
use fastzk_formats::{public_from_json, public_to_json, wtns_from_bytes, wtns_to_bytes};
use fastzk_r1cs::spmv;
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_testing::fixtures::text;
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
            plonk_gates: false,
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
        // For checking by hand that snarkjs accepts our files (crates/testing/data/README.md).
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

/// Values of every kind, snarkjs' own files included, read back as written.
fn public_roundtrip<F: PrimeField>() {
    let mut rng = rng();
    let public: Vec<F> = (0..5)
        .map(|_| F::random(&mut rng))
        .chain([F::ZERO, -F::ONE])
        .collect();
    assert_eq!(
        public_from_json::<F>(&public_to_json(&public), "public.json").unwrap(),
        public
    );
}

#[test]
fn public_json_roundtrip() {
    public_roundtrip::<bn254::Fr>();
    public_roundtrip::<bls12_381::Fr>();
    // Our JSON for snarkjs' public.json equals snarkjs' (as values).
    for (dir, name) in [
        ("bn254", "multiplier"),
        ("bn254", "poly"),
        ("bls12_381", "multiplier"),
    ] {
        let t = text(&format!("{dir}/{name}_public.json"));
        let val = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        let ours = if dir == "bn254" {
            public_to_json(&public_from_json::<bn254::Fr>(&t, "public.json").unwrap())
        } else {
            public_to_json(&public_from_json::<bls12_381::Fr>(&t, "public.json").unwrap())
        };
        assert_eq!(val(&ours), val(&t));
    }
}
