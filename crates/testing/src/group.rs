//! Groups: the group laws across the three point forms, every operation against
//! arkworks (the special cases included), batch normalisation and batch affine addition,
//! scalar multiplication (plain, wNAF, GLV, big integers), and subgroup membership
//! against the slow reference `[r]P = 0` on subgroup points, random curve points and
//! points with small-order components.
//!
//! [`group_tests!`](crate::group_tests) instantiates this suite and the encoding suite
//! ([`crate::serialize`]) for one group.

use ark_ec::short_weierstrass::{Affine as ArkAffine, Projective as ArkProjective, SWCurveConfig};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::{AdditiveGroup, Field as ArkFieldOps, PrimeField as ArkPrimeField, UniformRand};
use ark_std::Zero;
use fastzk_curve::ark::ArkCurve;
use fastzk_curve::batch::{
    batch_add_affine_assign, batch_add_affine_into, batch_normalize_into, batch_normalize_xyzz_into,
};
use fastzk_curve::validate::is_in_subgroup_reference;
use fastzk_curve::{
    batch_add_affine, batch_normalize, batch_normalize_xyzz, Affine, CurveConfig, CurveError,
    Jacobian, Xyzz,
};
use fastzk_field::ark::ArkField;
use fastzk_field::{Field, PrimeField};
use num_bigint::BigUint;
use proptest::prelude::*;
use rand::Rng;
use rand_chacha::ChaCha20Rng;

use crate::check;
use crate::gen::{on_curve, rng};

const CASES: u32 = 1000;

type AA<C> = ArkAffine<<C as ArkCurve>::Ark>;
type AP<C> = ArkProjective<<C as ArkCurve>::Ark>;
type ArkFr<C> = <<C as ArkCurve>::Ark as ark_ec::CurveConfig>::ScalarField;

/// The cofactor as an integer.
pub fn cofactor<C: CurveConfig>() -> BigUint {
    let mut h = BigUint::from(0u8);
    for &l in C::COFACTOR.iter().rev() {
        h = (h << 64u32) + BigUint::from(l);
    }
    h
}

fn ap<C: ArkCurve>(p: Jacobian<C>) -> AP<C> {
    C::to_ark_projective(&p)
}
fn aa<C: ArkCurve>(p: Affine<C>) -> AA<C> {
    C::to_ark(&p)
}
fn scalar<C: ArkCurve>(rng: &mut ChaCha20Rng) -> (C::Scalar, ArkFr<C>) {
    let a = ArkFr::<C>::rand(rng);
    (C::Scalar::from_ark(a), a)
}

/// `ours == theirs` in arkworks' equality and ours, and normalisation agrees.
fn same<C: ArkCurve>(ours: Jacobian<C>, theirs: AP<C>) {
    assert_eq!(ap(ours), theirs);
    assert_eq!(ours, C::from_ark_projective(&theirs));
    assert_eq!(aa(ours.to_affine()), theirs.into_affine());
}

fn same_xyzz<C: ArkCurve>(ours: Xyzz<C>, theirs: AP<C>) {
    assert_eq!(ap(ours.to_jacobian()), theirs);
    assert_eq!(ours, C::from_ark_projective(&theirs).to_xyzz());
    assert_eq!(aa(ours.to_affine()), theirs.into_affine());
}

// ---------------------------------------------------------------------------------------
// Laws (no reference library)
// ---------------------------------------------------------------------------------------

pub fn abelian_group<C: CurveConfig>() {
    check(CASES, None, any::<u64>(), |seed| {
        let mut r = rng(seed);
        let (p, q, s) = (
            Jacobian::<C>::random(&mut r),
            Jacobian::<C>::random(&mut r),
            Jacobian::<C>::random(&mut r),
        );
        prop_assert_eq!(p + q, q + p);
        prop_assert_eq!((p + q) + s, p + (q + s));
        #[allow(clippy::eq_op)] // P − P = O is the law under test
        let zero = p - p;
        prop_assert!(zero.is_zero());
        prop_assert_eq!(p + Jacobian::identity(), p);
        // The three forms compute the same sums.
        let (px, qa) = (p.to_xyzz(), q.to_affine());
        prop_assert_eq!((px + qa).to_affine(), (p + qa).to_affine());
        prop_assert_eq!((px + q.to_xyzz()).to_affine(), (p + q).to_affine());
        prop_assert_eq!(px.double().to_affine(), p.double().to_affine());
        let ab = batch_add_affine(&[(p.to_affine(), qa)]);
        prop_assert_eq!(ab[0], (p + q).to_affine());
        prop_assert_eq!(batch_normalize(&[p, q]), vec![p.to_affine(), qa]);
        let all: Xyzz<C> = [p, q, s].iter().map(|v| v.to_xyzz()).sum();
        prop_assert_eq!(all.to_jacobian(), p + q + s);
        Ok(())
    });
}

pub fn scalar_mul_is_a_homomorphism<C: CurveConfig>() {
    check(CASES, None, any::<u64>(), |seed| {
        let mut r = rng(seed);
        let p = Affine::<C>::random(&mut r);
        let a = C::Scalar::random(&mut r);
        let b = C::Scalar::random(&mut r);
        prop_assert_eq!(p.mul(&a) + p.mul(&b), p.mul(&(a + b)));
        prop_assert_eq!(p.mul(&a).mul(&b), p.mul(&(a * b)));
        prop_assert_eq!(p.mul(&a), p.mul_wnaf(&a));
        if let Some(g) = p.mul_glv(&a) {
            prop_assert_eq!(g, p.mul_wnaf(&a));
        }
        let r_limbs = C::Scalar::modulus().to_u64_digits();
        prop_assert!(p.mul_bigint(&r_limbs).is_zero());
        Ok(())
    });
}

/// Subgroup membership (the curve's fast check) against `[r]P = 0`: the identity and
/// subgroup points pass; random curve points fail unless the cofactor is one, and pass
/// once cleared; points with a component of small order `ℓ` fail for every prime
/// `ℓ < 20000` dividing the cofactor.
pub fn subgroup_check_matches_reference<C: CurveConfig>() {
    let mut r = rng(C::COFACTOR[0]);
    let fast = |p: &Affine<C>| p.is_in_correct_subgroup();
    let h = cofactor::<C>();
    let order = C::Scalar::modulus();
    assert!(fast(&Affine::identity()));
    let g = Affine::<C>::generator();
    assert!(fast(&g) && fast(&-g));
    let mut acc = g.to_jacobian();
    for _ in 0..20 {
        assert!(fast(&acc.to_affine()));
        acc += g;
    }
    for _ in 0..100 {
        assert!(
            fast(&Affine::random(&mut r)),
            "{}: random subgroup point rejected",
            C::NAME
        );
    }
    if h == BigUint::from(1u8) {
        for _ in 0..50 {
            let p = on_curve::<C>(&mut r);
            assert!(fast(&p) && is_in_subgroup_reference(&p));
        }
        return;
    }
    for _ in 0..100 {
        let p = on_curve::<C>(&mut r);
        assert!(!fast(&p), "{}: random curve point accepted", C::NAME);
        assert!(!is_in_subgroup_reference(&p));
        assert!(
            fast(&p.clear_cofactor().to_affine()),
            "{}: cleared point rejected",
            C::NAME
        );
    }
    let mul = |p: &Affine<C>, k: &BigUint| p.mul_bigint(&k.to_u64_digits());
    // Points of order exactly ℓ for the small primes ℓ dividing h.
    let small: Vec<u64> = (2..20_000u64)
        .filter(|&l| (2..l).take_while(|d| d * d <= l).all(|d| l % d != 0))
        .filter(|&l| (&h % l) == BigUint::from(0u8))
        .collect();
    assert!(
        !small.is_empty(),
        "{}: no small factor of the cofactor",
        C::NAME
    );
    let point_of_order = |ell: u64, r: &mut ChaCha20Rng| -> Affine<C> {
        let mut rest = h.clone();
        while (&rest % ell) == BigUint::from(0u8) {
            rest /= ell;
        }
        let k = rest * &order;
        loop {
            let mut t = mul(&on_curve::<C>(r), &k).to_affine();
            if t.is_zero() {
                continue;
            }
            loop {
                let next = mul(&t, &BigUint::from(ell)).to_affine();
                if next.is_zero() {
                    return t;
                }
                t = next;
            }
        }
    };
    let torsion: Vec<Affine<C>> = small.iter().map(|&l| point_of_order(l, &mut r)).collect();
    for (t, ell) in torsion.iter().zip(&small) {
        assert!(
            !fast(t),
            "{}: torsion point of order {ell} accepted",
            C::NAME
        );
        assert!(!is_in_subgroup_reference(t));
        for _ in 0..5 {
            let p = Affine::<C>::random(&mut r);
            assert!(
                !fast(&(p.to_jacobian() + *t).to_affine()),
                "{}: P + T accepted",
                C::NAME
            );
            assert!(!fast(&(p.to_jacobian() - *t).to_affine()));
        }
    }
    for _ in 0..10 {
        let t = mul(&on_curve::<C>(&mut r), &order).to_affine();
        assert!(!t.is_zero() && !fast(&t), "{}: [r]Q accepted", C::NAME);
    }
    let (mut ins, mut outs) = (0, 0);
    for i in 0..300 {
        let q = on_curve::<C>(&mut r);
        let p = match i % 4 {
            0 => q,
            1 => q.clear_cofactor().to_affine(),
            2 => (q.clear_cofactor() + torsion[i % torsion.len()]).to_affine(),
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

// ---------------------------------------------------------------------------------------
// Against arkworks
// ---------------------------------------------------------------------------------------

pub fn constants_match_arkworks<C: ArkCurve>() {
    assert_eq!(aa(Affine::<C>::generator()), C::Ark::GENERATOR);
    assert_eq!(ap(Jacobian::<C>::generator()), AP::<C>::generator());
    assert_eq!(C::COEFF_B.to_ark(), C::Ark::COEFF_B);
    assert!(C::Ark::COEFF_A.is_zero());
    let trim = |v: &[u64]| {
        let mut v = v.to_vec();
        while v.last() == Some(&0) {
            v.pop();
        }
        v
    };
    assert_eq!(
        trim(C::COFACTOR),
        trim(<C::Ark as ark_ec::CurveConfig>::COFACTOR)
    );
    assert!(Affine::<C>::generator().is_on_curve());
    assert!(Affine::<C>::generator().is_in_correct_subgroup());
    assert_eq!(
        Affine::<C>::new(C::GENERATOR_X, C::GENERATOR_Y),
        Ok(Affine::generator())
    );
    assert!(Jacobian::<C>::generator().is_on_curve());
    assert!(Xyzz::<C>::generator().is_on_curve());
}

pub fn identity_behaviour<C: ArkCurve>() {
    let mut r = rng(7);
    let p = Jacobian::<C>::random(&mut r);
    let pa = p.to_affine();
    let (o, oa, ox) = (
        Jacobian::<C>::identity(),
        Affine::<C>::identity(),
        Xyzz::<C>::identity(),
    );
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
    assert_eq!(Xyzz::double_affine(&oa), ox);
    assert_eq!(oa.to_jacobian(), o);
    assert_eq!(o.to_affine(), oa);
    assert_eq!(ox.to_affine(), oa);
    assert_eq!(Jacobian::from(ox), o);
    assert_eq!(Xyzz::from(o), ox);
    assert_eq!(ap(o), AP::<C>::zero());
    assert_eq!(aa(oa), AA::<C>::zero());
    assert_eq!(C::from_ark(&AA::<C>::zero()), oa);
    assert_eq!(C::from_ark_projective(&AP::<C>::zero()), o);
    assert_ne!(p, o);
    assert_ne!(pa, oa);
    assert_eq!(o.mul(&C::Scalar::from_u64(5)), o);
    assert!(oa.is_on_curve() && oa.is_in_correct_subgroup());
    let sum: Jacobian<C> = [p, -p].iter().sum();
    assert_eq!(sum, o);
}

pub fn add_jacobian<C: ArkCurve>() {
    check(CASES, None, any::<u64>(), |seed| {
        let mut r = rng(seed);
        let (p, q) = (Jacobian::<C>::random(&mut r), Jacobian::<C>::random(&mut r));
        same(p + q, ap(p) + ap(q));
        same(p - q, ap(p) - ap(q));
        // P + P through the addition formula, with distinct Z for the same point.
        let p_rescaled = Jacobian::from(p.to_affine());
        same(p + p_rescaled, ap(p).double());
        same(p + p, ap(p).double());
        same(p + (-p_rescaled), AP::<C>::zero());
        #[allow(clippy::eq_op)] // P − P = O is the law under test
        let zero = p - p;
        prop_assert!(zero.is_zero());
        let mut acc = p;
        acc += q;
        acc -= p;
        prop_assert_eq!(acc, q);
        Ok(())
    });
}

pub fn add_mixed_jacobian<C: ArkCurve>() {
    check(CASES, None, any::<u64>(), |seed| {
        let mut r = rng(seed);
        let (p, q) = (Jacobian::<C>::random(&mut r), Jacobian::<C>::random(&mut r));
        let (pa, qa) = (p.to_affine(), q.to_affine());
        same(p + qa, ap(p) + aa(qa));
        same(p - qa, ap(p) - aa(qa));
        same(p + pa, ap(p).double());
        same(p + (-pa), AP::<C>::zero());
        same(pa + qa, aa(pa) + aa(qa));
        same(pa - qa, aa(pa) - aa(qa));
        same(pa + pa, aa(pa) + aa(pa));
        Ok(())
    });
}

pub fn xyzz_add_mixed_double<C: ArkCurve>() {
    check(CASES, None, any::<u64>(), |seed| {
        let mut r = rng(seed);
        let (p, q) = (Jacobian::<C>::random(&mut r), Jacobian::<C>::random(&mut r));
        // XYZZ points with ZZ/ZZZ not derived from a Jacobian Z.
        let px = Xyzz::from(p.to_affine())
            .double()
            .add_affine(&q.to_affine());
        let qx = q.to_xyzz();
        let ppx = ap(p).double() + ap(q);
        prop_assert!(px.is_on_curve());
        same_xyzz(px, ppx);
        same_xyzz(px + qx, ppx + ap(q));
        same_xyzz(px - qx, ppx - ap(q));
        same_xyzz(px.double(), ppx.double());
        same_xyzz(px + px.to_affine(), ppx.double());
        same_xyzz(px + px.to_jacobian().to_xyzz(), ppx.double());
        same_xyzz(px + (-px.to_affine()), AP::<C>::zero());
        same_xyzz(px + (-px), AP::<C>::zero());
        let qa = q.to_affine();
        same_xyzz(px + qa, ppx + aa(qa));
        same_xyzz(px - qa, ppx - aa(qa));
        same_xyzz(Xyzz::double_affine(&qa), aa(qa).into_group().double());
        same_xyzz(Xyzz::from(qa) + qa, ap(q).double());
        same_xyzz(Xyzz::from(qa).add_affine(&-qa), AP::<C>::zero());
        Ok(())
    });
}

pub fn double_neg_sub<C: ArkCurve>() {
    check(CASES, None, any::<u64>(), |seed| {
        let mut r = rng(seed);
        let (p, q) = (Jacobian::<C>::random(&mut r), Jacobian::<C>::random(&mut r));
        same(p.double(), ap(p).double());
        same(-p, -ap(p));
        same(p - q, ap(p) - ap(q));
        prop_assert_eq!(aa(-p.to_affine()), -aa(p.to_affine()));
        same(p.to_affine().double(), ap(p).double());
        let mut d = p;
        d.double_in_place();
        prop_assert_eq!(d, p + p);
        prop_assert_eq!(-(-p), p);
        Ok(())
    });
}

pub fn conversions_round_trip<C: ArkCurve>() {
    check(CASES, None, any::<u64>(), |seed| {
        let mut r = rng(seed);
        let p = Jacobian::<C>::random(&mut r);
        let pa = p.to_affine();
        let px = p.to_xyzz();
        prop_assert!(p.is_on_curve() && pa.is_on_curve() && px.is_on_curve());
        prop_assert_eq!(px.to_affine(), pa);
        prop_assert_eq!(px.to_jacobian(), p);
        prop_assert_eq!(Affine::from(px.to_jacobian()), pa);
        prop_assert_eq!(Jacobian::from(pa), p);
        prop_assert_eq!(Xyzz::from(pa), px);
        prop_assert_eq!(C::from_ark(&aa(pa)), pa);
        prop_assert_eq!(C::from_ark_projective(&ap(p)), p);
        prop_assert!(aa(pa).is_on_curve());
        prop_assert_eq!(p, pa);
        Ok(())
    });
}

pub fn on_curve_checks<C: ArkCurve>() {
    check(CASES, None, any::<u64>(), |seed| {
        let mut r = rng(seed);
        let pa = Jacobian::<C>::random(&mut r).to_affine();
        prop_assert!(pa.is_on_curve());
        // Perturbing y (or x) leaves the curve; both libraries agree.
        let bad = Affine::<C>::new_unchecked(pa.x, pa.y + C::Base::ONE);
        prop_assert!(!bad.is_on_curve());
        prop_assert!(!aa(bad).is_on_curve());
        prop_assert_eq!(Affine::<C>::new(bad.x, bad.y), Err(CurveError::NotOnCurve));
        let bad_x = Affine::<C>::new_unchecked(pa.x + C::Base::ONE, pa.y);
        prop_assert_eq!(bad_x.is_on_curve(), aa(bad_x).is_on_curve());
        let bad_j = Jacobian::<C>::new_unchecked(pa.x, pa.y + C::Base::ONE, C::Base::ONE);
        prop_assert!(!bad_j.is_on_curve());
        let bad_x4 =
            Xyzz::<C>::new_unchecked(pa.x, pa.y + C::Base::ONE, C::Base::ONE, C::Base::ONE);
        prop_assert!(!bad_x4.is_on_curve());
        // A random (x, y) is almost surely off the curve.
        let rp = Affine::<C>::new_unchecked(C::Base::random(&mut r), C::Base::random(&mut r));
        prop_assert_eq!(rp.is_on_curve(), aa(rp).is_on_curve());
        Ok(())
    });
}

pub fn batch_normalize_matches<C: ArkCurve>() {
    check(CASES, None, (any::<u64>(), 0usize..24), |(seed, n)| {
        let mut r = rng(seed);
        let pts: Vec<Jacobian<C>> = (0..n)
            .map(|_| {
                if r.gen_ratio(1, 5) {
                    Jacobian::identity()
                } else {
                    Jacobian::random(&mut r)
                }
            })
            .collect();
        let ours = batch_normalize(&pts);
        let theirs = AP::<C>::normalize_batch(&pts.iter().map(|p| ap(*p)).collect::<Vec<_>>());
        prop_assert_eq!(ours.len(), n);
        for ((o, t), p) in ours.iter().zip(&theirs).zip(&pts) {
            prop_assert_eq!(aa(*o), *t);
            prop_assert_eq!(*o, p.to_affine());
        }
        // Re-scaled so ZZ/ZZZ are not squares/cubes of a Jacobian Z.
        let xs: Vec<Xyzz<C>> = pts
            .iter()
            .map(|p| {
                let x = p.to_xyzz();
                if x.is_zero() {
                    x
                } else {
                    Xyzz::from(p.to_affine()).double().add_xyzz(&-x)
                }
            })
            .collect();
        for (o, t) in batch_normalize_xyzz(&xs).iter().zip(&theirs) {
            prop_assert_eq!(aa(*o), *t);
        }
        let mut out = vec![Affine::identity(); n];
        let mut scratch = Vec::new();
        batch_normalize_into(&pts, &mut out, &mut scratch).unwrap();
        prop_assert_eq!(&out, &ours);
        batch_normalize_xyzz_into(&xs, &mut out, &mut scratch).unwrap();
        prop_assert_eq!(&out, &ours);
        Ok(())
    });
}

pub fn batch_add_affine_matches<C: ArkCurve>() {
    check(CASES, None, (any::<u64>(), 0usize..24), |(seed, n)| {
        let mut r = rng(seed);
        let (mut lhs, mut rhs) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            let p = Jacobian::<C>::random(&mut r).to_affine();
            let q = Jacobian::<C>::random(&mut r).to_affine();
            let (a, b) = match r.gen_range(0..7) {
                0 => (Affine::identity(), q),
                1 => (p, Affine::identity()),
                2 => (Affine::identity(), Affine::identity()),
                3 => (p, p),
                4 => (p, -p),
                _ => (p, q),
            };
            lhs.push(a);
            rhs.push(b);
        }
        let pairs: Vec<_> = lhs.iter().copied().zip(rhs.iter().copied()).collect();
        let sums = batch_add_affine(&pairs);
        prop_assert_eq!(sums.len(), n);
        for ((s, a), b) in sums.iter().zip(&lhs).zip(&rhs) {
            prop_assert_eq!(aa(*s), (aa(*a) + aa(*b)).into_affine());
            prop_assert!(s.is_on_curve());
        }
        let mut acc = lhs.clone();
        let mut scratch = Vec::new();
        batch_add_affine_assign(&mut acc, &rhs, &mut scratch).unwrap();
        prop_assert_eq!(&acc, &sums);
        let mut out = vec![Affine::identity(); n];
        batch_add_affine_into(&lhs, &rhs, &mut out, &mut scratch).unwrap();
        prop_assert_eq!(&out, &sums);
        Ok(())
    });
}

pub fn sum_matches<C: ArkCurve>() {
    check(CASES, None, (any::<u64>(), 0usize..8), |(seed, n)| {
        let mut r = rng(seed);
        let pts: Vec<Jacobian<C>> = (0..n).map(|_| Jacobian::random(&mut r)).collect();
        let theirs: AP<C> = pts.iter().map(|p| ap(*p)).sum();
        same(pts.iter().sum(), theirs);
        same(batch_normalize(&pts).into_iter().sum(), theirs);
        same_xyzz(pts.iter().map(|p| p.to_xyzz()).sum(), theirs);
        Ok(())
    });
}

pub fn scalar_mul_matches<C: ArkCurve>() {
    check(CASES, None, any::<u64>(), |seed| {
        let mut r = rng(seed);
        let p = Jacobian::<C>::random(&mut r);
        let (s, sa) = scalar::<C>(&mut r);
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
        same(
            p.mul_bigint(&k),
            ap(p) * ArkFr::<C>::from_le_bytes_mod_order(&k_bytes),
        );
        // The generator path used by `random`.
        same(
            Jacobian::<C>::generator().mul(&s),
            AP::<C>::generator() * sa,
        );
        Ok(())
    });
}

pub fn glv_decomposition<C: ArkCurve>() {
    let Some(glv) = C::glv() else { return };
    check(CASES, None, any::<u64>(), |seed| {
        let mut r = rng(seed);
        let p = Jacobian::<C>::random(&mut r).to_affine();
        // φ(P) = [λ]P on the subgroup.
        let lam = glv.lambda.to_u64_digits();
        prop_assert_eq!(glv.endomorphism(&p).to_jacobian(), p.mul_bigint(&lam));
        prop_assert_eq!(
            aa(glv.endomorphism(&p)),
            aa(p).mul_bigint(&lam).into_affine()
        );
        // β is a nontrivial cube root of unity.
        prop_assert!(!glv.beta.is_one());
        prop_assert!(glv.beta.pow_u64(3).is_one());
        // k ≡ k1 + k2·λ (mod r) with both halves short.
        let (s, sa) = scalar::<C>(&mut r);
        let limbs: Vec<u64> = sa.into_bigint().as_ref().to_vec();
        let ((n1, k1), (n2, k2)) = glv.decompose(&limbs);
        let to_fr = |neg: bool, k: &[u64]| {
            let mut bytes: Vec<u8> = k.iter().flat_map(|l| l.to_le_bytes()).collect();
            bytes.resize(64, 0);
            let v = C::Scalar::from_le_bytes_mod_order(&bytes);
            if neg {
                -v
            } else {
                v
            }
        };
        prop_assert_eq!(to_fr(n1, &k1) + to_fr(n2, &k2) * to_fr(false, &lam), s);
        let bits = |k: &[u64]| k.len() as u32 * 64 - k.last().map_or(64, |l| l.leading_zeros());
        prop_assert!(bits(&k1) <= 130 && bits(&k2) <= 130);
        Ok(())
    });
}

pub fn random_points_valid<C: ArkCurve>() {
    check(CASES, None, any::<u64>(), |seed| {
        let p = Affine::<C>::random(&mut rng(seed));
        prop_assert!(p.is_on_curve() && p.is_in_correct_subgroup());
        prop_assert!(aa(p).is_in_correct_subgroup_assuming_on_curve());
        prop_assert_eq!(Affine::<C>::new(p.x, p.y), Ok(p));
        Ok(())
    });
}

pub fn subgroup_check_agrees_with_arkworks<C: ArkCurve>() {
    let cofactor_one = cofactor::<C>() == BigUint::from(1u8);
    check(CASES, None, any::<u64>(), |seed| {
        let mut r = rng(seed);
        // A curve point nothing multiplied by the cofactor: (almost surely) outside G.
        let p = on_curve::<C>(&mut r);
        prop_assert!(p.is_on_curve() && aa(p).is_on_curve());
        let ark_in = aa(p).is_in_correct_subgroup_assuming_on_curve();
        prop_assert_eq!(p.is_in_correct_subgroup(), ark_in);
        prop_assert_eq!(ark_in, cofactor_one);
        if cofactor_one {
            prop_assert_eq!(Affine::<C>::new(p.x, p.y), Ok(p));
        } else {
            prop_assert_eq!(Affine::<C>::new(p.x, p.y), Err(CurveError::NotInSubgroup));
        }
        // Clearing the cofactor lands in the subgroup, as in arkworks.
        let c = p.clear_cofactor();
        same(c, aa(p).mul_bigint(C::COFACTOR));
        prop_assert!(c.to_affine().is_in_correct_subgroup());
        // Plain wNAF works off the subgroup too.
        let k: Vec<u64> = vec![r.gen(), r.gen(), r.gen()];
        same(p.mul_bigint(&k), aa(p).mul_bigint(&k));
        Ok(())
    });
}

pub fn edge_scalars<C: ArkCurve>() {
    let p = Jacobian::<C>::random(&mut rng(99));
    let (zero, one, minus_one) = (C::Scalar::ZERO, C::Scalar::ONE, -C::Scalar::ONE);
    assert!(p.mul(&zero).is_zero());
    assert!(p.mul_wnaf(&zero).is_zero());
    assert_eq!(p.mul(&one), p);
    assert_eq!(p.mul_wnaf(&one), p);
    assert_eq!(p.mul(&minus_one), -p);
    assert_eq!(p.mul_wnaf(&minus_one), -p);
    assert_eq!(p.mul(&C::Scalar::from_u64(2)), p.double());
    same(p.mul(&minus_one), ap(p) * (-ArkFr::<C>::ONE));
    if let Some(g) = p.mul_glv(&minus_one) {
        assert_eq!(g, -p);
        assert!(p.mul_glv(&zero).expect("GLV").is_zero());
        assert_eq!(p.mul_glv(&one), Some(p));
    }
    let r_big = C::Scalar::modulus();
    assert!(p.mul_bigint(&r_big.to_u64_digits()).is_zero());
    assert!(p.mul_bigint(&[]).is_zero());
    assert!(p.mul_bigint(&[0, 0]).is_zero());
    assert_eq!(p.mul_bigint(&(r_big + 1u32).to_u64_digits()), p);
    same(
        p.mul(&C::Scalar::from_u64(u64::MAX)),
        ap(p) * ArkFr::<C>::from(u64::MAX),
    );
}

pub fn batch_length_mismatch_is_an_error<C: ArkCurve>() {
    let mut scratch = Vec::new();
    let mut acc = vec![Affine::<C>::generator(); 3];
    let rhs = vec![Affine::<C>::generator(); 2];
    assert_eq!(
        batch_add_affine_assign(&mut acc, &rhs, &mut scratch),
        Err(CurveError::LengthMismatch {
            expected: 3,
            got: 2
        })
    );
    let mut out = vec![Affine::identity(); 1];
    assert!(
        batch_normalize_into(&[Jacobian::<C>::generator(); 2], &mut out, &mut scratch).is_err()
    );
    assert!(
        batch_normalize_xyzz_into(&[Xyzz::<C>::generator(); 2], &mut out, &mut scratch).is_err()
    );
    assert!(batch_add_affine_into(&acc, &acc, &mut out, &mut scratch).is_err());
    assert!(batch_normalize::<C>(&[]).is_empty());
    assert!(batch_add_affine::<C>(&[]).is_empty());
}

/// Repeated batch additions, as in MSM bucket accumulation, reusing scratch.
pub fn batch_add_long_chain_accumulates<C: ArkCurve>() {
    let mut r = rng(3);
    let n = 64;
    let pts = batch_normalize(
        &(0..n)
            .map(|_| Jacobian::<C>::random(&mut r))
            .collect::<Vec<_>>(),
    );
    let mut acc = vec![Affine::identity(); n];
    let mut scratch = Vec::new();
    let mut expect = vec![AP::<C>::zero(); n];
    for round in 0..4 {
        let rhs: Vec<Affine<C>> = (0..n).map(|i| pts[(i * 7 + round) % n]).collect();
        batch_add_affine_assign(&mut acc, &rhs, &mut scratch).unwrap();
        for (e, q) in expect.iter_mut().zip(&rhs) {
            *e += aa(*q);
        }
    }
    for (a, e) in acc.iter().zip(&expect) {
        assert_eq!(aa(*a), e.into_affine());
    }
}

/// The group and encoding suites for the group `C`, in module `name`. `snarkjs` names
/// the group's entry in the ffjavascript reference vectors (curve, `"g1"`/`"g2"`).
#[macro_export]
macro_rules! group_tests {
    ($name:ident, $c:ty, snarkjs: ($curve:expr, $group:expr)) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $crate::__tests!(
                $crate::group,
                [$c],
                abelian_group,
                scalar_mul_is_a_homomorphism,
                subgroup_check_matches_reference,
                constants_match_arkworks,
                identity_behaviour,
                add_jacobian,
                add_mixed_jacobian,
                xyzz_add_mixed_double,
                double_neg_sub,
                conversions_round_trip,
                on_curve_checks,
                batch_normalize_matches,
                batch_add_affine_matches,
                sum_matches,
                scalar_mul_matches,
                glv_decomposition,
                random_points_valid,
                subgroup_check_agrees_with_arkworks,
                edge_scalars,
                batch_length_mismatch_is_an_error,
                batch_add_long_chain_accumulates,
            );
            $crate::serialize_tests!(encodings, $c, snarkjs: ($curve, $group));
        }
    };
}

/// [`group_tests!`] for G1 and G2 of the pairing curve `E`, in module `name`: the form
/// [`fastzk_pairing::for_each_pairing_curve!`] calls.
#[macro_export]
macro_rules! pairing_group_tests {
    ($name:ident, $e:ty) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            use $crate::fastzk_pairing::PairingCurve as _;
            $crate::group_tests!(
                g1,
                <$e as $crate::fastzk_pairing::PairingCurve>::G1,
                snarkjs: (<$e as $crate::fastzk_pairing::PairingCurve>::ID.snarkjs_name(), "g1")
            );
            $crate::group_tests!(
                g2,
                <$e as $crate::fastzk_pairing::PairingCurve>::G2,
                snarkjs: (<$e as $crate::fastzk_pairing::PairingCurve>::ID.snarkjs_name(), "g2")
            );
        }
    };
}
