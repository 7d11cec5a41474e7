//! Endomorphism-based subgroup membership tests (BN254 G2, BLS12-381 G1 and G2) against
//! the slow reference `[r]P = 0`, on subgroup points, random on-curve points (no cofactor
//! clearing), points with small-order components, and the identity; the endomorphism
//! constants and the integer facts the tests' correctness proofs rest on; and the
//! parallel batch validator / decoder.

use fastzk_curve::serialize::{
    ArkCompressed, PointEncoding, SerializableCurve, SerializeError, SnarkjsLem, Validate,
};
use fastzk_curve::subgroup::{mul_by_digits, Naf};
use fastzk_curve::validate::{check_points, check_points_serial, is_in_subgroup_reference};
use fastzk_curve::{bls12_381, bn254, Affine, CurveConfig, CurveError, Jacobian};
use fastzk_field::{Field, PrimeField};
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// A uniformly random point of `E(Base)`, *not* cofactor-cleared: random `x` until
/// `x³ + b` is a square, random sign of `y`.
fn random_on_curve<C: CurveConfig>(rng: &mut ChaCha20Rng) -> Affine<C> {
    loop {
        let x = C::Base::random(rng);
        let rhs = x.square() * x + C::COEFF_B;
        if let Some(y) = rhs.sqrt().filter(|y| y.square() == rhs) {
            let y = if rng.gen::<bool>() { -y } else { y };
            let p = Affine::<C>::new_unchecked(x, y);
            assert!(p.is_on_curve());
            return p;
        }
    }
}

fn limbs(v: &BigUint) -> Vec<u64> {
    v.to_u64_digits()
}

fn mul_big<C: CurveConfig>(p: &Affine<C>, k: &BigUint) -> Jacobian<C> {
    if k.is_zero() {
        Jacobian::identity()
    } else {
        p.mul_bigint(&limbs(k))
    }
}

fn order_r<C: CurveConfig>() -> BigUint {
    C::Scalar::modulus()
}

fn cofactor<C: CurveConfig>() -> BigUint {
    let mut h = BigUint::zero();
    for &l in C::COFACTOR.iter().rev() {
        h = (h << 64u32) + BigUint::from(l);
    }
    h
}

/// A point of order exactly `ell` (a prime dividing the cofactor): clear everything but
/// the `ell`-part of a random point, then multiply by `ell` until one more would give the
/// identity.
fn point_of_order<C: CurveConfig>(ell: u64, rng: &mut ChaCha20Rng) -> Affine<C> {
    let h = cofactor::<C>();
    let ell_big = BigUint::from(ell);
    let mut rest = h.clone();
    while (&rest % &ell_big).is_zero() {
        rest /= &ell_big;
    }
    assert!(rest != h, "{ell} does not divide the cofactor");
    let k = rest * order_r::<C>();
    loop {
        let mut t = mul_big(&random_on_curve::<C>(rng), &k).to_affine();
        if t.is_zero() {
            continue;
        }
        loop {
            let next = mul_big(&t, &ell_big).to_affine();
            if next.is_zero() {
                return t;
            }
            t = next;
        }
    }
}

fn fast<C: CurveConfig>(p: &Affine<C>) -> bool {
    p.is_in_correct_subgroup()
}

/// The shared checks for a group with a nontrivial cofactor; `small_primes` are prime
/// factors of the cofactor small enough to build torsion points of that order.
fn subgroup_suite<C: CurveConfig>(seed: u64, small_primes: &[u64]) {
    let mut r = rng(seed);

    // The identity passes.
    assert!(fast(&Affine::<C>::identity()));
    assert!(C::is_in_correct_subgroup(&Affine::<C>::identity()));

    // Generator multiples pass (random scalars, the generator, its negation, small
    // multiples).
    let g = Affine::<C>::generator();
    assert!(fast(&g) && fast(&-g));
    let mut acc = g.to_jacobian();
    for _ in 0..20 {
        assert!(fast(&acc.to_affine()));
        acc += g;
    }
    for _ in 0..100 {
        let p = Affine::<C>::random(&mut r);
        assert!(fast(&p), "{}: random subgroup point rejected", C::NAME);
    }

    // Random on-curve points (not cofactor-cleared) fail; after clearing they pass.
    for _ in 0..100 {
        let p = random_on_curve::<C>(&mut r);
        assert!(!fast(&p), "{}: random curve point accepted", C::NAME);
        assert!(!is_in_subgroup_reference(&p));
        let cleared = p.clear_cofactor().to_affine();
        assert!(
            fast(&cleared),
            "{}: cofactor-cleared point rejected",
            C::NAME
        );
    }

    // Points with a small-order component are rejected: T of order ℓ alone, P + T for
    // P in the subgroup, and the cleared part [r]Q of a random Q (order dividing h).
    for &ell in small_primes {
        let t = point_of_order::<C>(ell, &mut r);
        assert!(
            !fast(&t),
            "{}: torsion point of order {ell} accepted",
            C::NAME
        );
        assert!(!is_in_subgroup_reference(&t));
        for _ in 0..5 {
            let p = Affine::<C>::random(&mut r);
            let pt = (p.to_jacobian() + t).to_affine();
            assert!(!fast(&pt), "{}: P + T (ord T = {ell}) accepted", C::NAME);
            assert!(!fast(&(p.to_jacobian() - t).to_affine()));
        }
    }
    for _ in 0..10 {
        let t = mul_big(&random_on_curve::<C>(&mut r), &order_r::<C>()).to_affine();
        assert!(!t.is_zero());
        assert!(!fast(&t), "{}: [r]Q accepted", C::NAME);
        assert!(!fast(
            &(Affine::<C>::random(&mut r).to_jacobian() + t).to_affine()
        ));
    }

    // Agreement with the reference on a few hundred random points, in and out.
    let torsion: Vec<Affine<C>> = small_primes
        .iter()
        .map(|&ell| point_of_order::<C>(ell, &mut r))
        .collect();
    let (mut ins, mut outs) = (0, 0);
    for i in 0..300 {
        let q = random_on_curve::<C>(&mut r);
        let p = match i % 4 {
            0 => q,
            1 => q.clear_cofactor().to_affine(),
            2 if !torsion.is_empty() => {
                (q.clear_cofactor() + torsion[i % torsion.len()]).to_affine()
            }
            _ => Affine::<C>::random(&mut r),
        };
        let expect = is_in_subgroup_reference(&p);
        assert_eq!(
            fast(&p),
            expect,
            "{}: disagrees with [r]P = 0 on {p:?}",
            C::NAME
        );
        if expect {
            ins += 1;
        } else {
            outs += 1;
        }
    }
    assert!(ins >= 100 && outs >= 100, "ins {ins} outs {outs}");
}

#[test]
fn bn254_g2_subgroup() {
    subgroup_suite::<bn254::G2Config>(1, &[10069]);
}

#[test]
fn bls12_381_g1_subgroup() {
    subgroup_suite::<bls12_381::G1Config>(2, &[3, 11, 10177]);
}

#[test]
fn bls12_381_g2_subgroup() {
    subgroup_suite::<bls12_381::G2Config>(3, &[13, 23, 2713, 11953]);
}

#[test]
fn bn254_g1_cofactor_one() {
    // Every curve point is in the group; the shortcut agrees with [r]P = 0.
    let mut r = rng(4);
    for _ in 0..50 {
        let p = random_on_curve::<bn254::G1Config>(&mut r);
        assert!(fast(&p));
        assert!(is_in_subgroup_reference(&p));
    }
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
        let p = random_on_curve::<C>(&mut rr);
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
    let r = order_r::<C>();
    for _ in 0..10 {
        let p = random_on_curve::<C>(&mut rr);
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
        let p = random_on_curve::<bls12_381::G2Config>(&mut rr);
        assert_eq!(mul_by_digits(&p, &digits), p.mul_bigint(&[k]));
        let p = random_on_curve::<bn254::G2Config>(&mut rr);
        assert_eq!(mul_by_digits(&p, &digits), p.mul_bigint(&[k]));
    }
}

// ---------------------------------------------------------------------------------------
// Batch validation and parallel decoding
// ---------------------------------------------------------------------------------------

fn batch_suite<C: SerializableCurve>(seed: u64) {
    let mut rr = rng(seed);
    let n = 1500;
    let mut pts: Vec<Affine<C>> = (0..n)
        .map(|i| {
            if i % 97 == 0 {
                Affine::identity()
            } else {
                Affine::<C>::random(&mut rr)
            }
        })
        .collect();
    assert_eq!(check_points(&pts, true), Ok(()));
    assert_eq!(check_points(&[] as &[Affine<C>], true), Ok(()));

    // Round trip through the parallel decoder.
    let lem = <SnarkjsLem as PointEncoding<C>>::encode_many(&pts);
    let decoded = <SnarkjsLem as PointEncoding<C>>::decode_many(&lem, Validate::Yes).unwrap();
    assert_eq!(decoded, pts);
    assert_eq!(
        <SnarkjsLem as PointEncoding<C>>::decode_many_serial(&lem, Validate::Yes).unwrap(),
        pts
    );
    let comp = <ArkCompressed as PointEncoding<C>>::encode_many(&pts);
    assert_eq!(
        <ArkCompressed as PointEncoding<C>>::decode_many_par(&comp, Validate::Yes).unwrap(),
        pts
    );

    // Failures: a non-subgroup point at 1200 and 700, an off-curve one at 1300.
    let bad = random_on_curve::<C>(&mut rr);
    pts[1200] = bad;
    pts[700] = random_on_curve::<C>(&mut rr);
    let mut off = Affine::<C>::random(&mut rr);
    off.y += C::Base::ONE;
    pts[1300] = off;
    // (BN254 G1 has cofactor 1: every curve point is in the group.)
    let sub = !cofactor::<C>().is_one();
    let first_yes = if sub {
        (700, CurveError::NotInSubgroup)
    } else {
        (1300, CurveError::NotOnCurve)
    };
    assert_eq!(check_points(&pts, true), Err(first_yes.clone()));
    assert_eq!(check_points_serial(&pts, true), check_points(&pts, true));
    assert_eq!(
        check_points(&pts, false),
        Err((1300, CurveError::NotOnCurve))
    );

    let lem = <SnarkjsLem as PointEncoding<C>>::encode_many(&pts);
    match <SnarkjsLem as PointEncoding<C>>::decode_many(&lem, Validate::Yes) {
        Err(SerializeError::AtIndex { index, source }) => {
            assert_eq!(index, first_yes.0);
            if sub {
                assert!(matches!(*source, SerializeError::NotInSubgroup { .. }));
            }
        }
        other => panic!("expected an error at {}, got {other:?}", first_yes.0),
    }
    match <SnarkjsLem as PointEncoding<C>>::decode_many(&lem, Validate::No) {
        Err(SerializeError::AtIndex { index, source }) => {
            assert_eq!(index, 1300);
            assert!(matches!(*source, SerializeError::NotOnCurve { .. }));
        }
        other => panic!("expected an error at 1300, got {other:?}"),
    }
    pts[1300] = Affine::identity();
    let lem = <SnarkjsLem as PointEncoding<C>>::encode_many(&pts);
    assert_eq!(
        <SnarkjsLem as PointEncoding<C>>::decode_many(&lem, Validate::No).unwrap(),
        pts
    );
    // Compressed: the subgroup failure at 700 is found, non-canonical x after it too.
    let mut comp = <ArkCompressed as PointEncoding<C>>::encode_many(&pts);
    let len = <ArkCompressed as PointEncoding<C>>::ENCODED_LEN;
    for b in &mut comp[1400 * len..1401 * len] {
        *b = 0xff;
    }
    match <ArkCompressed as PointEncoding<C>>::decode_many(&comp, Validate::Yes) {
        Err(SerializeError::AtIndex { index, .. }) => {
            assert_eq!(index, if sub { 700 } else { 1400 })
        }
        other => panic!("expected an error, got {other:?}"),
    }
    match <ArkCompressed as PointEncoding<C>>::decode_many(&comp, Validate::No) {
        Err(SerializeError::AtIndex { index, .. }) => assert_eq!(index, 1400),
        other => panic!("expected an error at 1400, got {other:?}"),
    }
    // Length errors.
    assert!(matches!(
        <SnarkjsLem as PointEncoding<C>>::decode_many(&lem[..lem.len() - 1], Validate::No),
        Err(SerializeError::WrongLength { .. })
    ));
    let mut out = vec![Affine::<C>::identity(); 3];
    assert!(
        <SnarkjsLem as PointEncoding<C>>::decode_many_into(&lem, &mut out, Validate::No).is_err()
    );
}

#[test]
fn batch_bn254_g1() {
    batch_suite::<bn254::G1Config>(11);
}

#[test]
fn batch_bn254_g2() {
    batch_suite::<bn254::G2Config>(12);
}

#[test]
fn batch_bls12_381_g1() {
    batch_suite::<bls12_381::G1Config>(13);
}

#[test]
fn batch_bls12_381_g2() {
    batch_suite::<bls12_381::G2Config>(14);
}
