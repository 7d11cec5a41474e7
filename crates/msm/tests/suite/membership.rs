//! The batched subgroup test against the exact per-point one: the same verdict and the
//! same lowest failing index, on keys with the hardest bad points (a torsion component
//! of the cofactor's smallest prime order) hidden among thousands of good ones.

use fastzk_curve::validate::check_points as check_points_exact;
use fastzk_curve::{bls12_381, bn254, Affine, CurveError};
use fastzk_field::{Field, PrimeField};
use fastzk_msm::membership::{check_points, check_points_seeded, strategy, Strategy};
use fastzk_msm::MsmCurve;
use fastzk_testing::gen;
use num_bigint::BigUint;

type G2 = bn254::G2Config;

/// `count` subgroup points with the shapes a key has: identities, repeats, negations.
fn key_like<C: MsmCurve>(count: usize, seed: u64) -> Vec<Affine<C>> {
    let base = gen::points::<C>(64, seed);
    (0..count)
        .map(|i| match i % 17 {
            0 => Affine::identity(),
            5 => -base[i % 64],
            _ => base[(i * 7 + i / 64) % 64],
        })
        .collect()
}

/// A curve point whose component outside the subgroup has order exactly `ell` (a prime
/// factor of the cofactor), plus a subgroup point so that it is not a pure torsion
/// point.
fn with_torsion<C: MsmCurve>(ell: u64, seed: u64) -> Affine<C> {
    let r = BigUint::from_bytes_le(&C::Scalar::modulus().to_bytes_le());
    let h = BigUint::from_slice(
        &C::COFACTOR
            .iter()
            .flat_map(|l| [*l as u32, (*l >> 32) as u32])
            .collect::<Vec<_>>(),
    );
    assert_eq!(&h % ell, BigUint::from(0u8), "{ell} divides the cofactor");
    let k = (r * &h / ell).to_u64_digits();
    let mut rng = gen::rng(seed);
    loop {
        let t = gen::on_curve::<C>(&mut rng).mul_bigint(&k).to_affine();
        if t.is_zero() {
            continue;
        }
        assert!(t.mul_bigint(&[ell]).is_zero(), "order {ell}");
        let p = (t.to_jacobian() + gen::points::<C>(1, seed)[0].to_jacobian()).to_affine();
        assert!(p.is_on_curve() && !p.is_in_correct_subgroup());
        return p;
    }
}

#[test]
fn bn254_g2_is_batched() {
    assert_eq!(
        strategy::<G2>(1 << 20),
        Strategy::Batched {
            bits: 13,
            trials: 10
        }
    );
}

#[test]
fn good_points_pass() {
    let pts = key_like::<G2>(5000, 1);
    assert_eq!(check_points(&pts), Ok(()));
    for seed in 0..4u8 {
        assert_eq!(check_points_seeded(&pts, [seed; 32]), Ok(()));
    }
    // All identities, all one point.
    let ids = vec![Affine::<G2>::identity(); 4096];
    assert_eq!(check_points(&ids), Ok(()));
    let same = vec![gen::points::<G2>(1, 9)[0]; 4096];
    assert_eq!(check_points(&same), Ok(()));
}

#[test]
fn a_point_with_small_order_torsion_is_found() {
    // 10 069 and 5 864 401 are the two smallest primes of BN254's G2 cofactor.
    for (ell, at, seed) in [(10069, 0, 2), (10069, 4095, 3), (5864401, 2500, 4)] {
        let mut pts = key_like::<G2>(4096, seed);
        pts[at] = with_torsion::<G2>(ell, seed);
        for s in 0..3u8 {
            assert_eq!(
                check_points_seeded(&pts, [s; 32]),
                Err((at, CurveError::NotInSubgroup)),
                "order {ell} at {at}, seed {s}"
            );
        }
        assert_eq!(check_points(&pts), Err((at, CurveError::NotInSubgroup)));
    }
}

#[test]
fn torsion_that_could_cancel_is_found() {
    // The same torsion point at many indices, and its negation: equal digits would make
    // them cancel, independent ones do not.
    let bad = with_torsion::<G2>(10069, 5);
    let mut pts = key_like::<G2>(4096, 5);
    for i in (100..4096).step_by(97) {
        pts[i] = if i % 2 == 0 { bad } else { -bad };
    }
    assert_eq!(check_points(&pts), Err((100, CurveError::NotInSubgroup)));
}

#[test]
fn the_lowest_failing_index_wins() {
    let mut pts = key_like::<G2>(4096, 6);
    pts[3000] = with_torsion::<G2>(10069, 6);
    let mut off = pts[1000];
    off.y += <G2 as fastzk_curve::CurveConfig>::Base::ONE;
    pts[1000] = off;
    assert_eq!(check_points(&pts), Err((1000, CurveError::NotOnCurve)));
    assert_eq!(check_points(&pts), check_points_exact(&pts, true));
    pts[10] = with_torsion::<G2>(5864401, 7);
    assert_eq!(check_points(&pts), Err((10, CurveError::NotInSubgroup)));
}

#[test]
fn per_point_groups_agree_with_the_exact_test() {
    // BLS12-381 (cofactor primes 3 and 13) and BN254 G1 (cofactor 1) keep the exact
    // test; small slices too.
    assert_eq!(strategy::<bls12_381::G1Config>(1 << 20), Strategy::PerPoint);
    let mut g1 = key_like::<bls12_381::G1Config>(300, 8);
    assert_eq!(check_points(&g1), Ok(()));
    g1[7] = with_torsion::<bls12_381::G1Config>(3, 8);
    assert_eq!(check_points(&g1), Err((7, CurveError::NotInSubgroup)));
    let mut small = key_like::<G2>(100, 9);
    small[50] = with_torsion::<G2>(10069, 9);
    assert_eq!(check_points(&small), Err((50, CurveError::NotInSubgroup)));
    let empty: Vec<Affine<G2>> = Vec::new();
    assert_eq!(check_points(&empty), Ok(()));
    assert_eq!(check_points(&key_like::<bn254::G1Config>(3000, 10)), Ok(()));
}

#[test]
fn subgroup_only_agrees_on_points_already_on_the_curve() {
    use fastzk_msm::membership::check_subgroup;
    let mut g2 = key_like::<G2>(4096, 11);
    assert_eq!(check_subgroup(&g2), Ok(()));
    g2[3333] = with_torsion::<G2>(10069, 11);
    assert_eq!(check_subgroup(&g2), Err((3333, CurveError::NotInSubgroup)));
    let mut small = key_like::<bls12_381::G1Config>(300, 12);
    assert_eq!(check_subgroup(&small), Ok(()));
    small[9] = with_torsion::<bls12_381::G1Config>(3, 12);
    small[200] = with_torsion::<bls12_381::G1Config>(3, 13);
    assert_eq!(check_subgroup(&small), Err((9, CurveError::NotInSubgroup)));
    assert_eq!(check_subgroup::<G2>(&[]), Ok(()));
}
