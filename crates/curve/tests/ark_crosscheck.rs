//! Every operation of every group cross-checked against arkworks 0.5 on random points,
//! plus the special cases the formulas must route explicitly.
#![cfg(feature = "ark")]

use ark_ec::short_weierstrass::{Affine as ArkAffine, Projective as ArkProjective, SWCurveConfig};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::{AdditiveGroup, Field as ArkField, PrimeField as ArkPrimeField, UniformRand};
use ark_std::Zero;
use fastzk_curve::batch::{
    batch_add_affine_assign, batch_add_affine_into, batch_normalize_into, batch_normalize_xyzz_into,
};
use fastzk_curve::{
    batch_add_affine, batch_normalize, batch_normalize_xyzz, Affine, CurveConfig, CurveError,
    Jacobian, Xyzz,
};
use fastzk_field::{Field, PrimeField};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

macro_rules! group_suite {
    ($name:ident, $cfg:ty, $ark_cfg:ty, $has_cofactor:expr) => {
        mod $name {
            use super::*;

            type C = $cfg;
            type A = Affine<C>;
            type J = Jacobian<C>;
            type X = Xyzz<C>;
            type AA = ArkAffine<$ark_cfg>;
            type AP = ArkProjective<$ark_cfg>;
            type Fr = <C as CurveConfig>::Scalar;
            type ArkFr = <$ark_cfg as ark_ec::CurveConfig>::ScalarField;
            type Base = <C as CurveConfig>::Base;

            fn rng(seed: u64) -> ChaCha20Rng {
                ChaCha20Rng::seed_from_u64(seed)
            }

            /// A random scalar in both libraries (same value).
            fn scalar(rng: &mut ChaCha20Rng) -> (Fr, ArkFr) {
                let a = ArkFr::rand(rng);
                (Fr::from(a), a)
            }

            /// A random subgroup point in Jacobian form with a random-looking `Z`.
            fn point(rng: &mut ChaCha20Rng) -> J {
                J::random(rng)
            }

            fn ap(p: J) -> AP {
                AP::from(p)
            }

            fn aa(p: A) -> AA {
                AA::from(p)
            }

            /// Assert `ours == theirs` both in arkworks' and in our equality, and that
            /// normalization agrees.
            fn same(ours: J, theirs: AP) {
                assert_eq!(ap(ours), theirs);
                assert_eq!(ours, J::from(theirs));
                assert_eq!(aa(ours.to_affine()), theirs.into_affine());
            }

            fn same_xyzz(ours: X, theirs: AP) {
                assert_eq!(AP::from(ours), theirs);
                assert_eq!(ours, X::from(theirs));
                assert_eq!(aa(ours.to_affine()), theirs.into_affine());
            }

            #[test]
            fn constants_match_arkworks() {
                assert_eq!(aa(A::generator()), <$ark_cfg as SWCurveConfig>::GENERATOR);
                assert_eq!(ap(J::generator()), AP::generator());
                let b: <$ark_cfg as ark_ec::CurveConfig>::BaseField = C::COEFF_B.into();
                assert_eq!(b, <$ark_cfg as SWCurveConfig>::COEFF_B);
                assert!(<$ark_cfg as SWCurveConfig>::COEFF_A.is_zero());
                let ark_h = <$ark_cfg as ark_ec::CurveConfig>::COFACTOR;
                let mut h = C::COFACTOR.to_vec();
                let mut ark_h = ark_h.to_vec();
                while h.last() == Some(&0) { h.pop(); }
                while ark_h.last() == Some(&0) { ark_h.pop(); }
                assert_eq!(h, ark_h);
                assert!(A::generator().is_on_curve());
                assert!(A::generator().is_in_correct_subgroup());
                assert_eq!(A::new(C::GENERATOR_X, C::GENERATOR_Y), Ok(A::generator()));
                assert!(J::generator().is_on_curve());
                assert!(X::generator().is_on_curve());
            }

            #[test]
            fn identity_behaviour() {
                let mut r = rng(7);
                let p = point(&mut r);
                let pa = p.to_affine();
                let o = J::identity();
                let oa = A::identity();
                let ox = X::identity();
                assert!(o.is_zero() && oa.is_zero() && ox.is_zero());
                assert_eq!(o + p, p);
                assert_eq!(p + o, p);
                assert_eq!(o + pa, p);
                assert_eq!(p + oa, p);
                assert_eq!(o + oa, o);
                assert_eq!(o + o, o);
                assert_eq!(o.double(), o);
                assert_eq!(-o, o);
                assert_eq!(ox + p.to_xyzz(), p.to_xyzz());
                assert_eq!(p.to_xyzz() + ox, p.to_xyzz());
                assert_eq!(ox + pa, p.to_xyzz());
                assert_eq!(p.to_xyzz() + oa, p.to_xyzz());
                assert_eq!(ox.double(), ox);
                assert_eq!(X::double_affine(&oa), ox);
                assert_eq!(oa.to_jacobian(), o);
                assert_eq!(o.to_affine(), oa);
                assert_eq!(ox.to_affine(), oa);
                assert_eq!(J::from(ox), o);
                assert_eq!(X::from(o), ox);
                assert_eq!(ap(o), AP::zero());
                assert_eq!(aa(oa), AA::zero());
                assert_eq!(A::from(AA::zero()), oa);
                assert_eq!(J::from(AP::zero()), o);
                assert_ne!(p, o);
                assert_ne!(pa, oa);
                assert_eq!(o.mul(&Fr::from_u64(5)), o);
                assert!(oa.is_on_curve() && oa.is_in_correct_subgroup());
                let sum: J = [p, -p].iter().sum();
                assert_eq!(sum, o);
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(1000))]

                #[test]
                fn add_jacobian(seed in any::<u64>()) {
                    let mut r = rng(seed);
                    let (p, q) = (point(&mut r), point(&mut r));
                    same(p + q, ap(p) + ap(q));
                    same(p - q, ap(p) - ap(q));
                    // P + P through the addition formula, with distinct Z for the same point.
                    let p_rescaled = J::from(p.to_affine());
                    same(p + p_rescaled, ap(p).double());
                    same(p + p, ap(p).double());
                    same(p + (-p_rescaled), AP::zero());
                    assert!((p - p).is_zero());
                    let mut acc = p;
                    acc += q;
                    acc -= p;
                    assert_eq!(acc, q);
                }

                #[test]
                fn add_mixed_jacobian(seed in any::<u64>()) {
                    let mut r = rng(seed);
                    let (p, q) = (point(&mut r), point(&mut r));
                    let (pa, qa) = (p.to_affine(), q.to_affine());
                    same(p + qa, ap(p) + aa(qa));
                    same(p - qa, ap(p) - aa(qa));
                    same(p + pa, ap(p).double());
                    same(p + (-pa), AP::zero());
                    same(pa + qa, aa(pa) + aa(qa));
                    same(pa - qa, aa(pa) - aa(qa));
                    same(pa + pa, aa(pa) + aa(pa));
                }

                #[test]
                fn xyzz_add_mixed_double(seed in any::<u64>()) {
                    let mut r = rng(seed);
                    let (p, q) = (point(&mut r), point(&mut r));
                    // Build XYZZ points with ZZ/ZZZ not derived from a Jacobian Z.
                    let px = X::from(p.to_affine()).double().add_affine(&q.to_affine());
                    let qx = q.to_xyzz();
                    let ppx = ap(p).double() + ap(q);
                    assert!(px.is_on_curve());
                    same_xyzz(px, ppx);
                    same_xyzz(px + qx, ppx + ap(q));
                    same_xyzz(px - qx, ppx - ap(q));
                    same_xyzz(px.double(), ppx.double());
                    same_xyzz(px + px.to_affine(), ppx.double());
                    same_xyzz(px + px.to_jacobian().to_xyzz(), ppx.double());
                    same_xyzz(px + (-px.to_affine()), AP::zero());
                    same_xyzz(px + (-px), AP::zero());
                    let qa = q.to_affine();
                    same_xyzz(px + qa, ppx + aa(qa));
                    same_xyzz(px - qa, ppx - aa(qa));
                    same_xyzz(X::double_affine(&qa), aa(qa).into_group().double());
                    same_xyzz(X::from(qa) + qa, ap(q).double());
                    same_xyzz(X::from(qa).add_affine(&-qa), AP::zero());
                }

                #[test]
                fn double_neg_sub(seed in any::<u64>()) {
                    let mut r = rng(seed);
                    let (p, q) = (point(&mut r), point(&mut r));
                    same(p.double(), ap(p).double());
                    same(-p, -ap(p));
                    same(p - q, ap(p) - ap(q));
                    assert_eq!(aa(-p.to_affine()), -aa(p.to_affine()));
                    same(p.to_affine().double(), ap(p).double());
                    let mut d = p;
                    d.double_in_place();
                    assert_eq!(d, p + p);
                    assert_eq!(-(-p), p);
                }

                #[test]
                fn conversions_round_trip(seed in any::<u64>()) {
                    let mut r = rng(seed);
                    let p = point(&mut r);
                    let pa = p.to_affine();
                    let px = p.to_xyzz();
                    assert!(p.is_on_curve() && pa.is_on_curve() && px.is_on_curve());
                    assert_eq!(px.to_affine(), pa);
                    assert_eq!(px.to_jacobian(), p);
                    assert_eq!(A::from(px.to_jacobian()), pa);
                    assert_eq!(J::from(pa), p);
                    assert_eq!(X::from(pa), px);
                    assert_eq!(A::from(aa(pa)), pa);
                    assert_eq!(J::from(ap(p)), p);
                    assert_eq!(X::from(AP::from(px)), px);
                    assert!(aa(pa).is_on_curve());
                    assert_eq!(p, pa);
                }

                #[test]
                fn on_curve_checks(seed in any::<u64>()) {
                    let mut r = rng(seed);
                    let pa = point(&mut r).to_affine();
                    assert!(pa.is_on_curve());
                    // Perturbing y (or x) leaves the curve; both libraries agree.
                    let bad = A::new_unchecked(pa.x, pa.y + Base::ONE);
                    assert!(!bad.is_on_curve());
                    assert!(!aa(bad).is_on_curve());
                    assert_eq!(A::new(bad.x, bad.y), Err(CurveError::NotOnCurve));
                    let bad_x = A::new_unchecked(pa.x + Base::ONE, pa.y);
                    assert_eq!(bad_x.is_on_curve(), aa(bad_x).is_on_curve());
                    let bad_j = J::new_unchecked(pa.x, pa.y + Base::ONE, Base::ONE);
                    assert!(!bad_j.is_on_curve());
                    let bad_x4 = X::new_unchecked(pa.x, pa.y + Base::ONE, Base::ONE, Base::ONE);
                    assert!(!bad_x4.is_on_curve());
                    // A random (x, y) is almost surely off the curve.
                    let rx = Base::random(&mut r);
                    let ry = Base::random(&mut r);
                    let rp = A::new_unchecked(rx, ry);
                    assert_eq!(rp.is_on_curve(), aa(rp).is_on_curve());
                }

                #[test]
                fn batch_normalize_matches(seed in any::<u64>(), n in 0usize..24) {
                    let mut r = rng(seed);
                    let pts: Vec<J> = (0..n)
                        .map(|_| if r.gen_ratio(1, 5) { J::identity() } else { point(&mut r) })
                        .collect();
                    let ours = batch_normalize(&pts);
                    let theirs = AP::normalize_batch(&pts.iter().map(|p| ap(*p)).collect::<Vec<_>>());
                    assert_eq!(ours.len(), n);
                    for ((o, t), p) in ours.iter().zip(&theirs).zip(&pts) {
                        assert_eq!(aa(*o), *t);
                        assert_eq!(*o, p.to_affine());
                    }
                    let xs: Vec<X> = pts.iter().map(|p| {
                        // re-scale so ZZ/ZZZ are not squares/cubes of the Jacobian Z
                        let x = p.to_xyzz();
                        if x.is_zero() { x } else { X::from(p.to_affine()).double().add_xyzz(&-x) }
                    }).collect();
                    let ours_x = batch_normalize_xyzz(&xs);
                    for (o, t) in ours_x.iter().zip(&theirs) {
                        assert_eq!(aa(*o), *t);
                    }
                    let mut out = vec![A::identity(); n];
                    let mut scratch = Vec::new();
                    batch_normalize_into(&pts, &mut out, &mut scratch).unwrap();
                    assert_eq!(out, ours);
                    batch_normalize_xyzz_into(&xs, &mut out, &mut scratch).unwrap();
                    assert_eq!(out, ours);
                }

                #[test]
                fn batch_add_affine_matches(seed in any::<u64>(), n in 0usize..24) {
                    let mut r = rng(seed);
                    let mut lhs = Vec::with_capacity(n);
                    let mut rhs = Vec::with_capacity(n);
                    for _ in 0..n {
                        let p = point(&mut r).to_affine();
                        let q = point(&mut r).to_affine();
                        let (a, b) = match r.gen_range(0..7) {
                            0 => (A::identity(), q),
                            1 => (p, A::identity()),
                            2 => (A::identity(), A::identity()),
                            3 => (p, p),
                            4 => (p, -p),
                            _ => (p, q),
                        };
                        lhs.push(a);
                        rhs.push(b);
                    }
                    let pairs: Vec<(A, A)> = lhs.iter().copied().zip(rhs.iter().copied()).collect();
                    let sums = batch_add_affine(&pairs);
                    assert_eq!(sums.len(), n);
                    for ((s, a), b) in sums.iter().zip(&lhs).zip(&rhs) {
                        let expect = (aa(*a) + aa(*b)).into_affine();
                        assert_eq!(aa(*s), expect);
                        assert!(s.is_on_curve());
                    }
                    let mut acc = lhs.clone();
                    let mut scratch = Vec::new();
                    batch_add_affine_assign(&mut acc, &rhs, &mut scratch).unwrap();
                    assert_eq!(acc, sums);
                    let mut out = vec![A::identity(); n];
                    batch_add_affine_into(&lhs, &rhs, &mut out, &mut scratch).unwrap();
                    assert_eq!(out, sums);
                }

                #[test]
                fn sum_matches(seed in any::<u64>(), n in 0usize..8) {
                    let mut r = rng(seed);
                    let pts: Vec<J> = (0..n).map(|_| point(&mut r)).collect();
                    let theirs: AP = pts.iter().map(|p| ap(*p)).sum();
                    let ours: J = pts.iter().sum();
                    same(ours, theirs);
                    let ours_aff: J = batch_normalize(&pts).into_iter().sum();
                    same(ours_aff, theirs);
                    let ours_x: X = pts.iter().map(|p| p.to_xyzz()).sum();
                    same_xyzz(ours_x, theirs);
                }
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(1000))]

                #[test]
                fn scalar_mul_matches(seed in any::<u64>()) {
                    let mut r = rng(seed);
                    let p = point(&mut r);
                    let (s, sa) = scalar(&mut r);
                    let expect = ap(p) * sa;
                    same(p.mul(&s), expect);
                    same(p.mul_wnaf(&s), expect);
                    same(p.to_affine().mul(&s), expect);
                    same(p * s, expect);
                    same(p.to_affine() * s, expect);
                    same_xyzz(p.to_xyzz().mul(&s), expect);
                    same_xyzz(p.to_xyzz() * s, expect);
                    if let Some(g) = p.mul_glv(&s) {
                        same(g, expect);
                    }
                    // Arbitrary-length integers (not reduced mod r) through mul_bigint.
                    let k: Vec<u64> = (0..r.gen_range(0..9)).map(|_| r.gen()).collect();
                    let mut k_bytes: Vec<u8> = k.iter().flat_map(|l| l.to_le_bytes()).collect();
                    k_bytes.push(0);
                    let k_mod_r = ArkFr::from_le_bytes_mod_order(&k_bytes);
                    same(p.mul_bigint(&k), ap(p) * k_mod_r);
                    // The generator path used by `random`.
                    same(J::generator().mul(&s), AP::generator() * sa);
                }

                #[test]
                fn glv_decomposition(seed in any::<u64>()) {
                    let Some(glv) = C::glv() else { return Ok(()); };
                    let mut r = rng(seed);
                    let p = point(&mut r).to_affine();
                    // φ(P) = [λ]P on the subgroup.
                    let lam = glv.lambda.to_u64_digits();
                    assert_eq!(glv.endomorphism(&p).to_jacobian(), p.mul_bigint(&lam));
                    assert_eq!(aa(glv.endomorphism(&p)), aa(p).mul_bigint(&lam).into_affine());
                    // β is a nontrivial cube root of unity.
                    assert!(!glv.beta.is_one());
                    assert!(glv.beta.pow_u64(3).is_one());
                    // k ≡ k1 + k2·λ (mod r) with both halves short.
                    let (s, sa) = scalar(&mut r);
                    let limbs: Vec<u64> = sa.into_bigint().as_ref().to_vec();
                    let ((n1, k1), (n2, k2)) = glv.decompose(&limbs);
                    let to_fr = |neg: bool, k: &[u64]| {
                        let mut bytes: Vec<u8> = k.iter().flat_map(|l| l.to_le_bytes()).collect();
                        bytes.resize(64, 0);
                        let v = <Fr as PrimeField>::from_le_bytes_mod_order(&bytes);
                        if neg { -v } else { v }
                    };
                    let lam_fr = to_fr(false, &lam);
                    assert_eq!(to_fr(n1, &k1) + to_fr(n2, &k2) * lam_fr, s);
                    let bits = |k: &[u64]| k.len() as u32 * 64 - k.last().map_or(64, |l| l.leading_zeros());
                    assert!(bits(&k1) <= 130 && bits(&k2) <= 130, "k1 {} k2 {}", bits(&k1), bits(&k2));
                }

                #[test]
                fn random_points_valid(seed in any::<u64>()) {
                    let mut r = rng(seed);
                    let p = A::random(&mut r);
                    assert!(p.is_on_curve());
                    assert!(p.is_in_correct_subgroup());
                    assert!(aa(p).is_in_correct_subgroup_assuming_on_curve());
                    assert_eq!(A::new(p.x, p.y), Ok(p));
                }
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(1000))]

                #[test]
                fn subgroup_check_rejects_off_subgroup_points(seed in any::<u64>()) {
                    let mut r = rng(seed);
                    // Find a curve point by picking x until x^3 + b is a square; nothing
                    // multiplies it by the cofactor, so it is (almost surely) outside G.
                    let p = loop {
                        let x = Base::random(&mut r);
                        if let Some(y) = (x.square() * x + C::COEFF_B).sqrt() {
                            break A::new_unchecked(x, y);
                        }
                    };
                    assert!(p.is_on_curve());
                    assert!(aa(p).is_on_curve());
                    let ark_in = aa(p).is_in_correct_subgroup_assuming_on_curve();
                    assert_eq!(p.is_in_correct_subgroup(), ark_in);
                    if $has_cofactor {
                        assert!(!ark_in);
                        assert_eq!(A::new(p.x, p.y), Err(CurveError::NotInSubgroup));
                    } else {
                        assert!(ark_in);
                        assert_eq!(A::new(p.x, p.y), Ok(p));
                    }
                    // Clearing the cofactor lands in the subgroup, as in arkworks.
                    let c = p.clear_cofactor();
                    same(c, aa(p).mul_bigint(C::COFACTOR));
                    assert!(c.to_affine().is_in_correct_subgroup());
                    // Plain wNAF works off the subgroup too.
                    let k: Vec<u64> = vec![r.gen(), r.gen(), r.gen()];
                    same(p.mul_bigint(&k), aa(p).mul_bigint(&k));
                }
            }

            #[test]
            fn edge_scalars() {
                let mut r = rng(99);
                let p = point(&mut r);
                let zero = Fr::ZERO;
                let one = Fr::ONE;
                let minus_one = -Fr::ONE; // r − 1
                assert!(p.mul(&zero).is_zero());
                assert!(p.mul_wnaf(&zero).is_zero());
                assert_eq!(p.mul(&one), p);
                assert_eq!(p.mul_wnaf(&one), p);
                assert_eq!(p.mul(&minus_one), -p);
                assert_eq!(p.mul_wnaf(&minus_one), -p);
                assert_eq!(p.mul(&Fr::from_u64(2)), p.double());
                same(p.mul(&minus_one), ap(p) * (-ArkFr::ONE));
                if let Some(g) = p.mul_glv(&minus_one) {
                    assert_eq!(g, -p);
                    assert!(p.mul_glv(&zero).unwrap().is_zero());
                    assert_eq!(p.mul_glv(&one).unwrap(), p);
                }
                let r_limbs = <Fr as PrimeField>::modulus().to_u64_digits();
                assert!(p.mul_bigint(&r_limbs).is_zero());
                assert!(p.mul_bigint(&[]).is_zero());
                assert!(p.mul_bigint(&[0, 0]).is_zero());
                let mut r_plus_1 = <Fr as PrimeField>::modulus();
                r_plus_1 += 1u32;
                assert_eq!(p.mul_bigint(&r_plus_1.to_u64_digits()), p);
                // λ-sized and ~√r-sized scalars exercise short GLV halves.
                let small = Fr::from_u64(u64::MAX);
                same(p.mul(&small), ap(p) * ArkFr::from(u64::MAX));
            }

            #[test]
            fn batch_length_mismatch_is_an_error() {
                let mut scratch = Vec::new();
                let mut acc = vec![A::generator(); 3];
                let rhs = vec![A::generator(); 2];
                assert_eq!(
                    batch_add_affine_assign(&mut acc, &rhs, &mut scratch),
                    Err(CurveError::LengthMismatch { expected: 3, got: 2 })
                );
                let mut out = vec![A::identity(); 1];
                assert!(batch_normalize_into(&[J::generator(); 2], &mut out, &mut scratch).is_err());
                assert!(batch_normalize_xyzz_into(&[X::generator(); 2], &mut out, &mut scratch).is_err());
                assert!(batch_add_affine_into(&acc, &acc, &mut out, &mut scratch).is_err());
                assert!(batch_normalize::<C>(&[]).is_empty());
                assert!(batch_add_affine::<C>(&[]).is_empty());
            }

            #[test]
            fn batch_add_long_chain_accumulates() {
                // Repeated batch additions, as in MSM bucket accumulation, reusing scratch.
                let mut r = rng(3);
                let n = 64;
                let pts: Vec<A> = batch_normalize(&(0..n).map(|_| point(&mut r)).collect::<Vec<_>>());
                let mut acc = vec![A::identity(); n];
                let mut scratch = Vec::new();
                let mut expect = vec![AP::zero(); n];
                for round in 0..4 {
                    let rhs: Vec<A> = (0..n).map(|i| pts[(i * 7 + round) % n]).collect();
                    batch_add_affine_assign(&mut acc, &rhs, &mut scratch).unwrap();
                    for (e, q) in expect.iter_mut().zip(&rhs) {
                        *e += aa(*q);
                    }
                }
                for (a, e) in acc.iter().zip(&expect) {
                    assert_eq!(aa(*a), e.into_affine());
                }
            }
        }
    };
}

group_suite!(
    bn254_g1,
    fastzk_curve::bn254::G1Config,
    ark_bn254::g1::Config,
    false
);
group_suite!(
    bn254_g2,
    fastzk_curve::bn254::G2Config,
    ark_bn254::g2::Config,
    true
);
group_suite!(
    bls12_381_g1,
    fastzk_curve::bls12_381::G1Config,
    ark_bls12_381::g1::Config,
    true
);
group_suite!(
    bls12_381_g2,
    fastzk_curve::bls12_381::G2Config,
    ark_bls12_381::g2::Config,
    true
);

#[test]
fn glv_available_exactly_on_g1() {
    assert!(fastzk_curve::bn254::G1Config::glv().is_some());
    assert!(fastzk_curve::bls12_381::G1Config::glv().is_some());
    assert!(fastzk_curve::bn254::G2Config::glv().is_none());
    assert!(fastzk_curve::bls12_381::G2Config::glv().is_none());
}

#[test]
fn type_aliases_line_up() {
    let g: fastzk_curve::bn254::G1Projective = fastzk_curve::bn254::G1Affine::generator().into();
    let h: ark_bn254::G1Projective = g.into();
    assert_eq!(h, ark_bn254::G1Projective::generator());
    let g2: fastzk_curve::bls12_381::G2Affine = ark_bls12_381::G2Affine::generator().into();
    assert_eq!(g2, fastzk_curve::bls12_381::G2Affine::generator());
    let x: fastzk_curve::bls12_381::G1Xyzz = ark_bls12_381::G1Projective::generator().into();
    assert_eq!(x, fastzk_curve::bls12_381::G1Xyzz::generator());
}
