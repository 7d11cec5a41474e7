//! The readers against files circom and snarkjs made (`crates/testing/data`; its README
//! says how). The Groth16 `.zkey` and JSON files are read by `fastzk-groth16`, whose tests
//! cover them.

use fastzk_curve::Affine;
use fastzk_field::{Field, PrimeField};
use fastzk_formats::{
    read_public_json, read_wtns, snarkjs, sniff_curve, sniff_curve_file, wtns_to_bytes, Ptau,
    R1csFile, Validate,
};
use fastzk_pairing::{Bls12_381, Bn254, CurveId, Fr, PairingCurve, G1, G2};
use fastzk_testing::fixtures::{bytes, path as data};

type BnFr = fastzk_field::bn254::Fr;

/// A circuit's `.r1cs` and `.wtns`: sizes, the header, the witness satisfies every
/// constraint and matches `public.json`, and both files are written back byte for byte.
fn check_r1cs_and_witness<E: PairingCurve>(
    dir: &str,
    name: &str,
    n_constraints: usize,
    n_public: usize,
) {
    let p = |s: &str| data(&format!("{dir}/{name}{s}"));
    let f = R1csFile::<Fr<E>>::open(p(".r1cs")).unwrap();
    let witness: Vec<Fr<E>> = read_wtns(p(".wtns")).unwrap();
    let r = &f.r1cs;
    assert_eq!(r.n_constraints(), n_constraints);
    assert_eq!(r.n_public(), n_public);
    assert_eq!(f.header.n_pub_out, 1);
    assert_eq!(f.header.n_pub_in, 1);
    assert_eq!(f.header.n_prv_in, 1);
    assert_eq!(f.wire_to_label.as_ref().unwrap().len(), r.n_vars());
    assert_eq!(f.header.curve(), Some(E::ID));
    r.check(&witness).unwrap();
    let public = read_public_json::<Fr<E>>(p("_public.json")).unwrap();
    assert_eq!(public, witness[1..=n_public]);
    assert_eq!(
        f.to_bytes(),
        bytes(&format!("{dir}/{name}.r1cs")),
        "r1cs written back"
    );
    assert_eq!(
        wtns_to_bytes(&witness),
        bytes(&format!("{dir}/{name}.wtns"))
    );
}

#[test]
fn bn254_multiplier() {
    check_r1cs_and_witness::<Bn254>("bn254", "multiplier", 1, 2);
}

#[test]
fn bn254_poly() {
    check_r1cs_and_witness::<Bn254>("bn254", "poly", 5, 2);
}

#[test]
fn bls12_381_multiplier() {
    check_r1cs_and_witness::<Bls12_381>("bls12_381", "multiplier", 1, 2);
}

#[test]
fn sniffs_curves() {
    for f in [
        "multiplier.r1cs",
        "multiplier.wtns",
        "multiplier_final.zkey",
    ] {
        assert_eq!(
            sniff_curve_file(data(&format!("bn254/{f}"))).unwrap(),
            CurveId::Bn254
        );
        assert_eq!(
            sniff_curve(&bytes(&format!("bls12_381/{f}")), f).unwrap(),
            CurveId::Bls12_381
        );
    }
    assert_eq!(
        sniff_curve_file(data("bn254/pot5_final.ptau")).unwrap(),
        CurveId::Bn254
    );
    assert_eq!(
        sniff_curve_file(data("bls12_381/pot4_final.ptau")).unwrap(),
        CurveId::Bls12_381
    );
    assert!(sniff_curve(b"nope", "x").is_err());
}

#[test]
fn wrong_curve_is_named() {
    let e = R1csFile::<BnFr>::open(data("bls12_381/multiplier.r1cs")).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("file uses BLS12-381 but BN254 was expected"),
        "{msg}"
    );
    assert!(msg.contains("multiplier.r1cs"), "{msg}");
    let e = read_wtns::<BnFr>(data("bls12_381/multiplier.wtns")).unwrap_err();
    assert!(e.to_string().contains("BLS12-381"), "{e}");
    let e = Ptau::<Bn254>::open(data("bls12_381/pot4_final.ptau"), Validate::Yes).unwrap_err();
    assert!(e.to_string().contains("BLS12-381"), "{e}");
}

// ------------------------------------------------------------------------------------
// Powers of tau
// ------------------------------------------------------------------------------------

fn sum<C: fastzk_curve::CurveConfig>(ps: &[Affine<C>]) -> Affine<C> {
    ps.iter().sum::<fastzk_curve::Jacobian<C>>().to_affine()
}

fn check_ptau<E: PairingCurve>(file: &str, power: u32) {
    let ptau = Ptau::<E>::open(data(file), Validate::Yes).unwrap();
    assert_eq!(ptau.power(), power);
    assert!(ptau.is_prepared());
    let g1 = G1::<E>::generator();
    let g2 = G2::<E>::generator();
    let tau = ptau.tau_g1(2).unwrap();
    assert_eq!(tau[0], g1);
    assert_eq!(ptau.tau_g2(1).unwrap()[0], g2);
    let (alpha, beta1, beta2) = (
        ptau.alpha_g1().unwrap(),
        ptau.beta_g1().unwrap(),
        ptau.beta_g2().unwrap(),
    );
    // e(β₁, G2) = e(G1, β₂).
    assert!(E::pairing_product_is_one(&[(-beta1, g2), (g1, beta2)]));
    for log_n in 0..=power {
        // Σ_j L_j(τ) = 1, in every Lagrange section.
        assert_eq!(sum(&ptau.lagrange_g1(log_n).unwrap()), g1, "size 2^{log_n}");
        assert_eq!(sum(&ptau.lagrange_g2(log_n).unwrap()), g2);
        assert_eq!(sum(&ptau.alpha_lagrange_g1(log_n).unwrap()), alpha);
        assert_eq!(sum(&ptau.beta_lagrange_g1(log_n).unwrap()), beta1);
    }
    // Σ_j ω^j L_j(τ) = τ: the bases are in natural order, for snarkjs' ω, which is
    // 5^((r−1)/n) on both curves (ffjavascript takes the smallest non-residue, 5). For
    // BLS12-381 that is not fastzk's `root_of_unity` (7^((r−1)/n)) but its fifth power.
    let log_n = 3;
    let l = ptau.lagrange_g1(log_n).unwrap();
    let w = snarkjs_root_of_unity::<Fr<E>>(log_n);
    let mut acc = fastzk_curve::Jacobian::from(Affine::<E::G1>::identity());
    let mut wj = Fr::<E>::ONE;
    for p in &l {
        acc += &p.mul(&wj);
        wj *= w;
    }
    assert_eq!(acc.to_affine(), tau[1]);
    // Section 12 goes one size further than the others.
    assert_eq!(ptau.lagrange_g1(power + 1).unwrap().len(), 1 << (power + 1));
    assert!(ptau.lagrange_g2(power + 1).is_err());
    // G1 and G2 bases agree: e(L_j₁, G2) = e(G1, L_j₂).
    let l2 = ptau.lagrange_g2(2).unwrap();
    for (a, b) in ptau.lagrange_g1(2).unwrap().iter().zip(&l2) {
        assert!(E::pairing_product_is_one(&[(-*a, g2), (g1, *b)]));
    }
}

fn snarkjs_root_of_unity<F: PrimeField>(log_n: u32) -> F {
    snarkjs::root_of_unity(log_n).expect("within the two-adicity")
}

#[test]
fn snarkjs_roots_of_unity() {
    use fastzk_field::{bls12_381, bn254};
    assert_eq!(
        snarkjs_root_of_unity::<bn254::Fr>(5),
        bn254::Fr::root_of_unity(5).unwrap()
    );
    // BLS12-381: a different primitive root (at n = 8 it is fastzk's ω⁵).
    let w = bls12_381::Fr::root_of_unity(3).unwrap();
    assert_ne!(snarkjs_root_of_unity::<bls12_381::Fr>(3), w);
    assert_eq!(snarkjs_root_of_unity::<bls12_381::Fr>(3), w.pow_u64(5));
}

#[test]
fn ptau_bn254() {
    check_ptau::<Bn254>("bn254/pot5_final.ptau", 5);
}

#[test]
fn ptau_bls12_381() {
    check_ptau::<Bls12_381>("bls12_381/pot4_final.ptau", 4);
}

#[test]
fn ptau_from_bytes_matches_open() {
    let a = Ptau::<Bn254>::open(data("bn254/pot5_final.ptau"), Validate::Yes).unwrap();
    let b = Ptau::<Bn254>::from_bytes(bytes("bn254/pot5_final.ptau"), "mem", Validate::No).unwrap();
    assert_eq!(a.lagrange_g1(4).unwrap(), b.lagrange_g1(4).unwrap());
    assert_eq!(a.beta_g2().unwrap(), b.beta_g2().unwrap());
}
