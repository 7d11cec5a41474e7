//! The Groth16 files against what circom and snarkjs made (`crates/testing/data`; its
//! README says how): snarkjs' keys read and written back byte for byte, its proofs and
//! verification keys, the setup from its powers of tau, and proving with both keys.

use fastzk_field::{Field, PrimeField};
use fastzk_formats::{read_public_json, read_wtns, Ptau, R1csFile, Validate};
use fastzk_groth16::setup_ptau::{setup_from_ptau_file, setup_from_ptau_file_without_contribution};
use fastzk_groth16::{read_proof_json, read_vk_json, verify, ProvingKey, Zkey};
use fastzk_pairing::{Bls12_381, Bn254, Fr, PairingCurve, G1, G2};
use fastzk_r1cs::{first_unsatisfied, spmv, Csr, R1cs};
use fastzk_testing::fixtures::{bytes, path as data};

type BnFr = fastzk_field::bn254::Fr;

struct Fixture<E: PairingCurve> {
    r1cs: R1csFile<Fr<E>>,
    witness: Vec<Fr<E>>,
    zkey: Zkey<E>,
    zkey0: Zkey<E>,
}

fn load<E: PairingCurve>(dir: &str, name: &str) -> Fixture<E> {
    let p = |s: &str| data(&format!("{dir}/{name}{s}"));
    Fixture {
        r1cs: R1csFile::open(p(".r1cs")).unwrap(),
        witness: read_wtns(p(".wtns")).unwrap(),
        zkey: Zkey::open(p("_final.zkey"), Validate::Yes).unwrap(),
        zkey0: Zkey::open(p("_0000.zkey"), Validate::Yes).unwrap(),
    }
}

/// The r1cs' A with snarkjs' public rows, padded to `n` rows.
fn a_with_public_rows<F: PrimeField>(r: &R1cs<F>, n: usize) -> Csr<F> {
    let rows = (0..r.n_constraints())
        .map(|i| {
            let (c, v) = r.a().row(i);
            c.iter().copied().zip(v.iter().copied()).collect::<Vec<_>>()
        })
        .chain((0..=r.n_public()).map(|i| vec![(i as u32, F::ONE)]));
    Csr::from_rows(r.n_vars(), rows)
        .unwrap()
        .with_empty_rows(n - r.n_constraints() - r.n_public() - 1)
}

fn check_fixture<E: PairingCurve>(dir: &str, name: &str, n_constraints: usize, n_public: usize) {
    let f = load::<E>(dir, name);
    let (r, pk) = (&f.r1cs.r1cs, &f.zkey.proving_key);
    assert_eq!(r.n_constraints(), n_constraints);
    assert_eq!(r.n_public(), n_public);
    assert_eq!(f.r1cs.header.n_pub_out, 1);
    assert_eq!(f.r1cs.header.n_pub_in, 1);
    assert_eq!(f.r1cs.header.n_prv_in, 1);
    assert_eq!(f.r1cs.wire_to_label.as_ref().unwrap().len(), r.n_vars());
    // The witness satisfies the circuit.
    r.check(&f.witness).unwrap();

    // The key's shape and matrices.
    pk.check_shape().unwrap();
    assert_eq!(pk.n_vars(), r.n_vars());
    assert_eq!(pk.n_public(), n_public);
    let n = pk.domain_size();
    assert!(n > n_constraints + n_public && n / 2 <= n_constraints + n_public);
    assert_eq!(pk.a_matrix, a_with_public_rows(r, n));
    assert_eq!(
        pk.b_matrix,
        r.b().clone().with_empty_rows(n - n_constraints)
    );
    // A·z ∘ B·z = C·z with C from the r1cs (zero on the public and padding rows).
    let az = spmv(&pk.a_matrix, &f.witness);
    let bz = spmv(&pk.b_matrix, &f.witness);
    let mut cz = spmv(r.c(), &f.witness);
    cz.resize(n, Fr::<E>::ZERO);
    assert_eq!(first_unsatisfied(&az, &bz, &cz), None);

    // The fresh key and the contributed one differ only in δ, C and H.
    let pk0 = &f.zkey0.proving_key;
    assert_eq!(pk0.delta_g1, G1::<E>::generator());
    assert_eq!(pk0.vk.delta_g2, G2::<E>::generator());
    assert_eq!(pk0.vk.gamma_g2, G2::<E>::generator());
    assert_eq!(pk0.a_query, pk.a_query);
    assert_eq!(pk0.b_g2_query, pk.b_g2_query);
    assert_eq!(pk0.vk.ic, pk.vk.ic);
    assert_eq!(pk0.a_matrix, pk.a_matrix);
    assert_ne!(pk0.c_query, pk.c_query);
    assert_eq!(
        f.zkey0.contributions.len(),
        68,
        "hash + count 0 in a fresh key"
    );
    assert_eq!(&f.zkey0.contributions[64..], &[0, 0, 0, 0]);

    // snarkjs' proof verifies with snarkjs' vk and public inputs; a changed input fails.
    let vk = read_vk_json::<E>(data(&format!("{dir}/{name}_vk.json"))).unwrap();
    assert_eq!(vk, pk.vk, "verification_key.json is the zkey's vk");
    let proof = read_proof_json::<E>(data(&format!("{dir}/{name}_proof.json"))).unwrap();
    let public = read_public_json::<Fr<E>>(data(&format!("{dir}/{name}_public.json"))).unwrap();
    assert_eq!(public, f.witness[1..=n_public]);
    assert!(verify(&vk, &public, &proof).unwrap());
    let mut bad = public.clone();
    bad[0] += Fr::<E>::ONE;
    assert!(!verify(&vk, &bad, &proof).unwrap());

    // Writing gives back snarkjs' bytes exactly.
    for file in ["_final.zkey", "_0000.zkey"] {
        let orig = bytes(&format!("{dir}/{name}{file}"));
        let z = Zkey::<E>::from_bytes(&orig, file, Validate::Yes).unwrap();
        if file == "_final.zkey" {
            assert_eq!(
                z.to_bytes().unwrap(),
                orig,
                "{file} written back byte for byte"
            );
        } else {
            // `zkey new` orders its sections differently; the content is the same.
            let again = Zkey::<E>::from_bytes(&z.to_bytes().unwrap(), file, Validate::Yes).unwrap();
            assert_eq!(again, z);
        }
    }
}

#[test]
fn bn254_multiplier() {
    check_fixture::<Bn254>("bn254", "multiplier", 1, 2);
}

#[test]
fn bn254_poly() {
    check_fixture::<Bn254>("bn254", "poly", 5, 2);
}

#[test]
fn bls12_381_multiplier() {
    check_fixture::<Bls12_381>("bls12_381", "multiplier", 1, 2);
}

#[test]
fn zkey_of_the_wrong_curve_is_named() {
    let e =
        Zkey::<Bn254>::open(data("bls12_381/multiplier_final.zkey"), Validate::Yes).unwrap_err();
    assert!(e.to_string().contains("BLS12-381"), "{e}");
}

// ------------------------------------------------------------------------------------
// The setup from powers of tau
// ------------------------------------------------------------------------------------

/// Pairing checks that tie a key from the ptau to the fresh (δ = 1) key: same A and B
/// queries, C and H scaled by 1/δ.
fn check_setup<E: PairingCurve>(dir: &str, name: &str, ptau_file: &str) {
    let ptau = Ptau::<E>::open(data(ptau_file), Validate::Yes).unwrap();
    let f = load::<E>(dir, name);
    let r1cs = &f.r1cs.r1cs;

    // δ = 1 is exactly snarkjs' `zkey new`.
    let fresh = setup_from_ptau_file_without_contribution(&ptau, r1cs).unwrap();
    assert_eq!(fresh, f.zkey0.proving_key, "same key as snarkjs zkey new");

    let pk: ProvingKey<E> = setup_from_ptau_file(&ptau, r1cs).unwrap();
    pk.check_shape().unwrap();
    let (g1, g2) = (G1::<E>::generator(), G2::<E>::generator());
    assert_eq!(pk.a_query, fresh.a_query);
    assert_eq!(pk.b_g1_query, fresh.b_g1_query);
    assert_eq!(pk.b_g2_query, fresh.b_g2_query);
    assert_eq!(pk.vk.ic, fresh.vk.ic);
    assert_eq!(pk.a_matrix, fresh.a_matrix);
    assert_eq!(pk.b_matrix, fresh.b_matrix);
    assert_ne!(pk.delta_g1, g1, "δ is random");
    // e(δ₁, G2) = e(G1, δ₂).
    assert!(E::pairing_product_is_one(&[
        (-pk.delta_g1, g2),
        (g1, pk.vk.delta_g2)
    ]));
    // e(C_i, δ₂) = e(C_i⁰, G2) and the same for H.
    for (c, c0) in pk
        .c_query
        .iter()
        .zip(&fresh.c_query)
        .chain(pk.h_query.iter().zip(&fresh.h_query))
    {
        assert!(E::pairing_product_is_one(&[
            (-*c, pk.vk.delta_g2),
            (*c0, g2)
        ]));
    }
    // B in G1 and G2 agree.
    for (b1, b2) in pk.b_g1_query.iter().zip(&pk.b_g2_query) {
        assert!(E::pairing_product_is_one(&[(-*b1, g2), (g1, *b2)]));
    }
    // Written and read back unchanged; the file goes to FASTZK_EXPORT_DIR if set, for
    // running snarkjs on it by hand.
    let z = Zkey::new(pk.clone());
    let bytes = z.to_bytes().unwrap();
    let back = Zkey::<E>::from_bytes(&bytes, "setup", Validate::Yes).unwrap();
    assert_eq!(back.proving_key, pk);
    if let Ok(dir) = std::env::var("FASTZK_EXPORT_DIR") {
        let path =
            std::path::Path::new(&dir).join(format!("{name}_{}_fastzk.zkey", E::ID.snarkjs_name()));
        z.save(path).unwrap();
    }
}

#[test]
fn setup_from_ptau_bn254() {
    check_setup::<Bn254>("bn254", "multiplier", "bn254/pot5_final.ptau");
    check_setup::<Bn254>("bn254", "poly", "bn254/pot5_final.ptau");
}

#[test]
fn setup_from_ptau_bls12_381() {
    check_setup::<Bls12_381>("bls12_381", "multiplier", "bls12_381/pot4_final.ptau");
}

#[test]
fn setup_refuses_too_small_ptau() {
    let ptau = Ptau::<Bn254>::open(data("bn254/pot5_final.ptau"), Validate::Yes).unwrap();
    let (r1cs, _) = fastzk_r1cs::synth::synthesize::<BnFr>(
        &fastzk_r1cs::synth::SynthParams::new(6),
        &mut rand::thread_rng(),
    )
    .unwrap();
    let e = setup_from_ptau_file(&ptau, &r1cs).unwrap_err();
    assert!(e.to_string().contains("power 5"), "{e}");
}

// ------------------------------------------------------------------------------------
// The fastzk prover on these keys
// ------------------------------------------------------------------------------------

/// fastzk proves with snarkjs' key and with the key `setup_from_ptau` makes, and the
/// proofs verify with the keys' verification keys.
fn prove_with_keys<E: PairingCurve>(dir: &str, name: &str, ptau_file: &str) {
    let f = load::<E>(dir, name);
    let n_public = f.r1cs.r1cs.n_public();
    let ptau = Ptau::<E>::open(data(ptau_file), Validate::Yes).unwrap();
    let ours = setup_from_ptau_file(&ptau, &f.r1cs.r1cs).unwrap();
    for pk in [&f.zkey.proving_key, &ours] {
        let proof = fastzk_groth16::prove(pk, &f.witness).unwrap();
        assert!(verify(&pk.vk, &f.witness[1..=n_public], &proof).unwrap());
    }
}

#[test]
fn fastzk_proves_bn254() {
    prove_with_keys::<Bn254>("bn254", "multiplier", "bn254/pot5_final.ptau");
    prove_with_keys::<Bn254>("bn254", "poly", "bn254/pot5_final.ptau");
}

/// BLS12-381 keys are built on snarkjs' ω = 5^((r−1)/n), not the field's own root
/// (7^((r−1)/n)); the key carries its generator and the prover uses it.
#[test]
fn fastzk_proves_bls12_381() {
    prove_with_keys::<Bls12_381>("bls12_381", "multiplier", "bls12_381/pot4_final.ptau");
}
