//! Facts about the two curves that no generic suite states: the BN and BLS parameters
//! and the integer identities the subgroup tests' correctness proofs rest on, the
//! endomorphisms behind them, which groups have GLV, the type aliases, and known-answer
//! encodings. The laws, arkworks agreement, subgroup checks and encodings of every group
//! are in the shared suites (`conformance.rs`).
#![cfg(feature = "ark")]

use ark_ec::short_weierstrass::SWCurveConfig;
use ark_ec::{AffineRepr, PrimeGroup};
use ark_serialize::CanonicalSerialize;
use fastzk_curve::serialize::{ArkCompressed, PointEncoding};
use fastzk_curve::subgroup::{mul_by_digits, Naf};
use fastzk_curve::{bls12_381, bn254, Affine, CurveConfig, Jacobian};
use fastzk_field::{Field, PrimeField};
use fastzk_testing::gen::{on_curve, rng};
use fastzk_testing::group::cofactor;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};

fn mul_big<C: CurveConfig>(p: &Affine<C>, k: &BigUint) -> Jacobian<C> {
    if k.is_zero() {
        Jacobian::identity()
    } else {
        p.mul_bigint(&k.to_u64_digits())
    }
}

fn hex_decode(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

// ---------------------------------------------------------------------------------------
// The constants and integer facts behind the tests
// ---------------------------------------------------------------------------------------

fn big(v: u64) -> BigUint {
    BigUint::from(v)
}

#[test]
fn bn254_parameters() {
    let x = big(bn254::X);
    let q = fastzk_field::bn254::Fq::modulus();
    let r = fastzk_field::bn254::Fr::modulus();
    let x2 = &x * &x;
    let x3 = &x2 * &x;
    let x4 = &x3 * &x;
    assert_eq!(
        q,
        big(36) * &x4 + big(36) * &x3 + big(24) * &x2 + big(6) * &x + 1u32
    );
    assert_eq!(
        r,
        big(36) * &x4 + big(36) * &x3 + big(18) * &x2 + big(6) * &x + 1u32
    );
    let h2 = cofactor::<bn254::G2Config>();
    assert_eq!(h2, big(2) * &q - &r);

    // α = (x+1) + xψ + xψ² − 2xψ³ reduced modulo ψ² − tψ + q to a + bψ (as signed
    // integers), then its norm a² + abt + b²q.
    use num_bigint::BigInt;
    let (xi, qi) = (BigInt::from(x.clone()), BigInt::from(q.clone()));
    let t = BigInt::from(big(6) * &x2 + 1u32);
    let mut c = [&xi + 1, xi.clone(), xi.clone(), BigInt::from(-2) * &xi];
    for i in (2..4).rev() {
        let a = std::mem::take(&mut c[i]);
        c[i - 1] += &a * &t;
        c[i - 2] -= &a * &qi;
    }
    let (a, b) = (c[0].clone(), c[1].clone());
    let norm = &a * &a + &a * &b * &t + &b * &b * &qi;
    let ri = BigInt::from(r.clone());
    assert!((&norm % &ri).is_zero());
    let m = (&norm / &ri).magnitude().clone();
    assert!(
        m.gcd(&h2).is_one(),
        "norm/r shares a factor with the cofactor"
    );
    // α kills G2: its eigenvalue (ψ ↦ q mod r) is 0.
    let qr = &q % &r;
    let eig = (&x + 1u32) + &x * &qr + &x * &qr * &qr + &x * &qr * &qr * &qr * (&r - 2u32);
    assert!((eig % &r).is_zero());
}

#[test]
fn bls12_381_parameters() {
    let xa = big(bls12_381::X_ABS);
    const { assert!(bls12_381::X_IS_NEGATIVE) };
    let q = fastzk_field::bls12_381::Fq::modulus();
    let r = fastzk_field::bls12_381::Fr::modulus();
    let x2 = &xa * &xa;
    assert_eq!(r, &x2 * &x2 - &x2 + 1u32);
    // (x − 1)² = (|x| + 1)² for x < 0; q = (x−1)²/3 · r + x.
    let h1 = (&xa + 1u32) * (&xa + 1u32) / 3u32;
    assert_eq!(h1, cofactor::<bls12_381::G1Config>());
    assert_eq!(q, &h1 * &r - &xa);
    // ψ − [x] has norm q − x = h1·r; the test is exact because gcd(h1, h2) = 1.
    assert_eq!(&q + &xa, &h1 * &r);
    assert!(h1.gcd(&cofactor::<bls12_381::G2Config>()).is_one());
}

#[test]
fn bls12_381_g1_endomorphism() {
    type C = bls12_381::G1Config;
    let beta = C::subgroup_beta();
    assert!(!beta.is_one() && (beta.square() * beta).is_one());
    let xa = big(bls12_381::X_ABS);
    let r = fastzk_field::bls12_381::Fr::modulus();
    let minus_x2 = &r - &xa * &xa;
    let sigma = |p: &Affine<C>| Affine::<C>::new_unchecked(p.x * beta, p.y);
    let mut rr = rng(5);
    for _ in 0..10 {
        let p = Affine::<C>::random(&mut rr);
        assert_eq!(mul_big(&p, &minus_x2).to_affine(), sigma(&p));
    }
    // σ is an automorphism of the whole curve: σ² + σ + 1 = 0 on arbitrary points.
    for _ in 0..10 {
        let p = on_curve::<C>(&mut rr);
        let s = sigma(&p);
        assert!(s.is_on_curve());
        assert!((sigma(&s).to_jacobian() + s + p).is_zero());
    }
}

/// `ψ` maps the curve to itself, satisfies `ψ² − tψ + q = 0` on arbitrary points of
/// `E'(Fq2)` (so it is the Frobenius of the untwisted curve, not some other map), and
/// acts as `[q mod r]` on the subgroup.
fn check_psi<C: CurveConfig>(
    psi: impl Fn(&Affine<C>) -> Affine<C>,
    q: BigUint,
    t_abs: BigUint,
    t_negative: bool,
    seed: u64,
) {
    let mut rr = rng(seed);
    let r = C::Scalar::modulus();
    for _ in 0..10 {
        let p = on_curve::<C>(&mut rr);
        let pp = psi(&p);
        assert!(pp.is_on_curve());
        let tpp = mul_big(&pp, &t_abs);
        let tpp = if t_negative { -tpp } else { tpp };
        let lhs = psi(&pp).to_jacobian() - tpp + mul_big(&p, &q);
        assert!(lhs.is_zero(), "{}: ψ² − tψ + q ≠ 0", C::NAME);
    }
    let qr = &q % &r;
    for _ in 0..10 {
        let p = Affine::<C>::random(&mut rr);
        assert_eq!(psi(&p), mul_big(&p, &qr).to_affine());
    }
}

#[test]
fn bn254_psi() {
    let x = big(bn254::X);
    let psi = bn254::G2Config::psi();
    check_psi::<bn254::G2Config>(
        |p| psi.apply(p),
        fastzk_field::bn254::Fq::modulus(),
        big(6) * &x * &x + 1u32,
        false,
        6,
    );
    // Jacobian form agrees with the affine one.
    let p = Affine::<bn254::G2Config>::random(&mut rng(7));
    let j = p.to_jacobian().double();
    assert_eq!(
        psi.apply_jacobian(&j).to_affine(),
        psi.apply(&j.to_affine())
    );
}

#[test]
fn bls12_381_psi() {
    let psi = bls12_381::G2Config::psi();
    // t = x + 1 = −(|x| − 1).
    check_psi::<bls12_381::G2Config>(
        |p| psi.apply(p),
        fastzk_field::bls12_381::Fq::modulus(),
        big(bls12_381::X_ABS) - 1u32,
        true,
        8,
    );
    let p = Affine::<bls12_381::G2Config>::random(&mut rng(9));
    let j = p.to_jacobian().double();
    assert_eq!(
        psi.apply_jacobian(&j).to_affine(),
        psi.apply(&j.to_affine())
    );
}

#[test]
fn fixed_chains_match_generic_multiplication() {
    let mut rr = rng(10);
    for k in [1u64, 2, 3, 5, bn254::X, bls12_381::X_ABS, u64::MAX] {
        let digits = Naf::new(k);
        assert_eq!(digits.value(), k as i128);
        let p = on_curve::<bls12_381::G2Config>(&mut rr);
        assert_eq!(mul_by_digits(&p, &digits), p.mul_bigint(&[k]));
        let p = on_curve::<bn254::G2Config>(&mut rr);
        assert_eq!(mul_by_digits(&p, &digits), p.mul_bigint(&[k]));
    }
}

#[test]
fn glv_available_on_every_group() {
    // G2's β is a cube root of unity of Fq inside Fq2 (both twists have j = 0); the
    // conformance suites check φ = [λ] and the decomposition on random points.
    assert!(bn254::G1Config::glv().is_some());
    assert!(bls12_381::G1Config::glv().is_some());
    let g2 = bn254::G2Config::glv().expect("BN254 G2 has GLV");
    assert!(g2.beta.c1.is_zero() && !g2.beta.is_one());
    let g2 = bls12_381::G2Config::glv().expect("BLS12-381 G2 has GLV");
    assert!(g2.beta.c1.is_zero() && !g2.beta.is_one());
}

#[test]
fn type_aliases_line_up() {
    let g: bn254::G1Projective = bn254::G1Affine::generator().into();
    let h: ark_bn254::G1Projective = g.into();
    assert_eq!(h, ark_bn254::G1Projective::generator());
    let g2: bls12_381::G2Affine = ark_bls12_381::G2Affine::generator().into();
    assert_eq!(g2, bls12_381::G2Affine::generator());
    let x: bls12_381::G1Xyzz = ark_bls12_381::G1Projective::generator().into();
    assert_eq!(x, bls12_381::G1Xyzz::generator());
}

/// The SWFlags arkworks writes on BN254 are checked against arkworks' own generator
/// encodings, as a fixed known-answer test independent of the random ones.
#[test]
fn arkworks_generator_known_answers() {
    let g = bn254::G1Affine::generator();
    let bytes = ArkCompressed::encode(&g);
    let mut want = vec![0u8; 32];
    want[0] = 1; // x = 1, y = 2 is the smaller root: no flag.
    assert_eq!(bytes, want);
    let ark_g = ark_bn254::g1::Config::GENERATOR;
    let mut c = Vec::new();
    ark_g.serialize_compressed(&mut c).unwrap();
    assert_eq!(c, want);

    // BLS12-381 G1 generator, Zcash format: the well-known 0x97f1d3… encoding.
    let g = bls12_381::G1Affine::generator();
    let bytes = ArkCompressed::encode(&g);
    assert_eq!(
        bytes,
        hex_decode(
            "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
        )
    );
}
