//! Fq2 against arkworks, Goldilocks and its extension against num-bigint and an arkworks
//! field defined from the same modulus.

use ark_ff::{
    AdditiveGroup, BigInteger, Field as ArkField, Fp64, MontBackend, MontConfig,
    PrimeField as ArkPrimeField,
};
use fastzk_field::{
    bls12_381, bn254, ExtensionField, Field, Goldilocks, GoldilocksExt2, Legendre, PrimeField,
};
use num_bigint::BigUint;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const CASES: u32 = 2000;

macro_rules! fq2_suite {
    ($modname:ident, $ours:ty, $ark:ty) => {
        mod $modname {
            use super::*;
            type F = $ours;
            type A = $ark;

            fn pair(seed: u64) -> (F, A) {
                let mut rng = ChaCha20Rng::seed_from_u64(seed);
                let x = match seed % 7 {
                    0 => F::ZERO,
                    1 => F::ONE,
                    2 => -F::ONE,
                    3 => F::from_base(Field::random(&mut rng)),
                    _ => F::random(&mut rng),
                };
                let a: A = x.into();
                (x, a)
            }

            #[test]
            fn inverse_of_zero_is_none() {
                assert_eq!(F::ZERO.inverse(), None);
                assert_eq!(F::ONE.inverse(), Some(F::ONE));
            }

            /// Coefficients whose Montgomery limbs sit at the edges of `[0, p)` (0, 1, 2,
            /// p − 1, p − 2) and random ones: the lazily reduced Karatsuba sums then reach
            /// their bounds (`< 2p`).
            #[test]
            fn mul_and_square_at_limb_extremes_match_arkworks() {
                type B = <F as ExtensionField>::Base;
                let small = |v: u64| {
                    let mut l = B::ZERO.montgomery_limbs();
                    l[0] = v;
                    B::from_montgomery_limbs(l).unwrap()
                };
                let mut rng = ChaCha20Rng::seed_from_u64(7);
                let mut coeffs = vec![B::ZERO, small(1), small(2), -small(1), -small(2)];
                for _ in 0..4 {
                    coeffs.push(Field::random(&mut rng));
                }
                let elems: Vec<F> = coeffs
                    .iter()
                    .flat_map(|&c0| coeffs.iter().map(move |&c1| F::new(c0, c1)))
                    .collect();
                for &x in &elems {
                    let ax = A::from(x);
                    assert_eq!(A::from(x.square()), ax.square());
                    for &y in &elems {
                        assert_eq!(A::from(x * y), ax * A::from(y));
                    }
                }
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(CASES))]

                #[test]
                fn ops_match_arkworks(s1 in any::<u64>(), s2 in any::<u64>(), e in any::<u64>()) {
                    let (x, ax) = pair(s1);
                    let (y, ay) = pair(s2);
                    prop_assert_eq!(A::from(x + y), ax + ay);
                    prop_assert_eq!(A::from(x - y), ax - ay);
                    prop_assert_eq!(A::from(x * y), ax * ay);
                    prop_assert_eq!(A::from(x.square()), ax.square());
                    prop_assert_eq!(A::from(x.double()), ax.double());
                    prop_assert_eq!(A::from(-x), -ax);
                    prop_assert_eq!(x.inverse().map(A::from), ax.inverse());
                    prop_assert_eq!(A::from(x.pow_u64(e)), ax.pow([e]));
                    prop_assert_eq!(A::from(x.frobenius()), {
                        let mut f = ax;
                        f.frobenius_map_in_place(1);
                        f
                    });
                    prop_assert_eq!(x.norm(), (x * x.conjugate()).c0);
                    prop_assert_eq!(x.to_base_coeffs(), vec![x.c0, x.c1]);
                }

                #[test]
                fn sqrt_and_legendre_match(s in any::<u64>()) {
                    let (x, ax) = pair(s);
                    let expect = match ax.legendre() {
                        ark_ff::LegendreSymbol::Zero => Legendre::Zero,
                        ark_ff::LegendreSymbol::QuadraticResidue => Legendre::QuadraticResidue,
                        ark_ff::LegendreSymbol::QuadraticNonResidue => Legendre::QuadraticNonResidue,
                    };
                    prop_assert_eq!(x.legendre(), expect);
                    match x.sqrt() {
                        Some(r) => prop_assert_eq!(r.square(), x),
                        None => prop_assert!(ax.sqrt().is_none()),
                    }
                    let sq = x.square();
                    prop_assert_eq!(sq.sqrt().map(|r| r.square()), Some(sq));
                    // Base-field elements, including non-residues of the base, have roots.
                    let b = F::from_base(x.c0);
                    prop_assert_eq!(b.sqrt().map(|r| r.square()), Some(b));
                }
            }
        }
    };
}

fq2_suite!(bn254_fq2, bn254::Fq2, ark_bn254::Fq2);
fq2_suite!(bls12_381_fq2, bls12_381::Fq2, ark_bls12_381::Fq2);

#[derive(MontConfig)]
#[modulus = "18446744069414584321"]
#[generator = "7"]
struct ArkGoldilocksConfig;
type ArkGoldilocks = Fp64<MontBackend<ArkGoldilocksConfig, 1>>;

fn to_ark(x: Goldilocks) -> ArkGoldilocks {
    ArkGoldilocks::from(x.value())
}
fn from_ark(a: ArkGoldilocks) -> u64 {
    a.into_bigint().0[0]
}

fn goldilocks_value() -> impl Strategy<Value = u64> {
    let p = Goldilocks::MODULUS;
    prop_oneof![
        1 => proptest::sample::select(vec![0, 1, 2, p - 2, p - 1, 1 << 32, (1 << 32) - 1, p >> 1]),
        4 => 0..p,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES * 2))]

    #[test]
    fn goldilocks_matches_bigint_and_arkworks(a in goldilocks_value(), b in goldilocks_value(), e in any::<u64>()) {
        let p = BigUint::from(Goldilocks::MODULUS);
        let (x, y) = (Goldilocks::new(a).unwrap(), Goldilocks::new(b).unwrap());
        let (ba, bb) = (BigUint::from(a), BigUint::from(b));
        let big = |v: Goldilocks| BigUint::from(v.value());
        prop_assert_eq!(big(x + y), (&ba + &bb) % &p);
        prop_assert_eq!(big(x - y), (&ba + &p - &bb) % &p);
        prop_assert_eq!(big(x * y), (&ba * &bb) % &p);
        prop_assert_eq!(big(-x), (&p - &ba) % &p);
        prop_assert_eq!(big(x.square()), (&ba * &ba) % &p);
        prop_assert_eq!(big(x.pow_u64(e)), ba.modpow(&BigUint::from(e), &p));
        prop_assert_eq!(from_ark(to_ark(x) * to_ark(y)), (x * y).value());
        match x.inverse() {
            None => prop_assert_eq!(a, 0),
            Some(inv) => {
                prop_assert_eq!(inv * x, Goldilocks::ONE);
                prop_assert_eq!(inv.value(), from_ark(to_ark(x).inverse().unwrap()));
            }
        }
        match x.sqrt() {
            Some(r) => prop_assert_eq!(r.square(), x),
            None => prop_assert!(to_ark(x).sqrt().is_none()),
        }
        prop_assert_eq!(x.square().sqrt().map(|r| r.square()), Some(x.square()));
        let legendre_ark = to_ark(x).legendre();
        prop_assert_eq!(x.legendre() == Legendre::QuadraticResidue, legendre_ark.is_qr());
        prop_assert_eq!(Goldilocks::from_le_bytes(&x.to_le_bytes()), Ok(x));
    }

    #[test]
    fn goldilocks_ext2_field_axioms(s1 in any::<u64>(), s2 in any::<u64>(), s3 in any::<u64>()) {
        let mut rng = ChaCha20Rng::seed_from_u64(s1 ^ (s2 << 1) ^ (s3 << 2));
        let x = GoldilocksExt2::random(&mut rng);
        let y = GoldilocksExt2::random(&mut rng);
        let z = GoldilocksExt2::random(&mut rng);
        prop_assert_eq!(x * (y + z), x * y + x * z);
        prop_assert_eq!((x * y) * z, x * (y * z));
        prop_assert_eq!(x.square(), x * x);
        // Schoolbook reference for the product: (a0 + a1 u)(b0 + b1 u), u^2 = 7.
        let seven = Goldilocks::from_u64(7);
        let expect = GoldilocksExt2::new(x.c0 * y.c0 + seven * x.c1 * y.c1, x.c0 * y.c1 + x.c1 * y.c0);
        prop_assert_eq!(x * y, expect);
        if let Some(inv) = x.inverse() { prop_assert_eq!(inv * x, GoldilocksExt2::ONE); }
        // Frobenius is x ↦ x^p.
        prop_assert_eq!(x.frobenius(), x.pow_u64(Goldilocks::MODULUS));
        let sq = x.square();
        prop_assert_eq!(sq.sqrt().map(|r| r.square()), Some(sq));
    }
}

#[test]
fn goldilocks_constants() {
    assert_eq!(Goldilocks::new(Goldilocks::MODULUS), None);
    assert_eq!(Goldilocks::from_u64(Goldilocks::MODULUS).value(), 0);
    assert_eq!(Goldilocks::ZERO.inverse(), None);
    let w = Goldilocks::two_adic_root_of_unity();
    assert_eq!(w.pow_u64(1 << 31), -Goldilocks::ONE);
    assert_eq!(w.pow_u64(1 << 32), Goldilocks::ONE);
    assert_eq!(
        Goldilocks::multiplicative_generator().legendre(),
        Legendre::QuadraticNonResidue
    );
    assert_eq!(
        Goldilocks::from_u64(7).legendre(),
        Legendre::QuadraticNonResidue
    );
    assert_eq!(GoldilocksExt2::ZERO.inverse(), None);
    assert_eq!(
        Goldilocks::from_le_bytes(&Goldilocks::MODULUS.to_le_bytes()),
        Err(fastzk_field::FieldError::NotCanonical)
    );
    assert_eq!(
        BigUint::from(Goldilocks::MODULUS),
        BigUint::from_bytes_le(&ArkGoldilocks::MODULUS.to_bytes_le())
    );
}

#[test]
fn minus_one_nonresidue_is_declared_truthfully() {
    use fastzk_field::QuadExtConfig;
    assert_eq!(bn254::Fq2Config::NONRESIDUE, -bn254::Fq::ONE);
    assert_eq!(bls12_381::Fq2Config::NONRESIDUE, -bls12_381::Fq::ONE);
    const { assert!(bn254::Fq2Config::NONRESIDUE_IS_MINUS_ONE) };
    const { assert!(bls12_381::Fq2Config::NONRESIDUE_IS_MINUS_ONE) };
}
