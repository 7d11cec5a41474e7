//! Every prime-field operation cross-checked against arkworks 0.5 and num-bigint, on random
//! inputs and the edge cases 0, 1, 2, p − 2, p − 1.

use ark_ff::{
    AdditiveGroup, BigInteger, Field as ArkField, LegendreSymbol, PrimeField as ArkPrimeField,
};
use fastzk_field::{batch_inverse, bls12_381, bn254, Field, FieldError, Legendre, PrimeField};
use num_bigint::BigUint;
use proptest::prelude::*;

const CASES: u32 = 3000;

fn edge_values(p: &BigUint) -> Vec<BigUint> {
    vec![
        BigUint::from(0u32),
        BigUint::from(1u32),
        BigUint::from(2u32),
        p - 2u32,
        p - 1u32,
        p >> 1,
    ]
}

/// Uniform-ish values below p, with the edge cases drawn often.
fn element(p: BigUint, bytes: usize) -> impl Strategy<Value = BigUint> {
    let edges = edge_values(&p);
    prop_oneof![
        1 => proptest::sample::select(edges),
        4 => proptest::collection::vec(any::<u8>(), bytes + 16)
            .prop_map(move |b| BigUint::from_bytes_le(&b) % &p),
    ]
}

fn ark_legendre(l: LegendreSymbol) -> Legendre {
    match l {
        LegendreSymbol::Zero => Legendre::Zero,
        LegendreSymbol::QuadraticResidue => Legendre::QuadraticResidue,
        LegendreSymbol::QuadraticNonResidue => Legendre::QuadraticNonResidue,
    }
}

macro_rules! prime_field_suite {
    ($modname:ident, $ours:ty, $ark:ty) => {
        mod $modname {
            use super::*;
            type F = $ours;
            type A = $ark;

            fn p() -> BigUint {
                F::modulus()
            }
            fn ours(v: &BigUint) -> F {
                F::from_biguint(v).expect("test value below p")
            }
            fn ark(v: &BigUint) -> A {
                A::from_le_bytes_mod_order(&v.to_bytes_le())
            }
            fn ark_to_big(a: &A) -> BigUint {
                BigUint::from_bytes_le(&a.into_bigint().to_bytes_le())
            }
            fn strategy() -> impl Strategy<Value = BigUint> {
                element(p(), F::BYTES)
            }

            #[test]
            fn constants_match_arkworks() {
                assert_eq!(p(), BigUint::from_bytes_le(&A::MODULUS.to_bytes_le()));
                assert_eq!(F::MODULUS_BITS, A::MODULUS_BIT_SIZE);
                assert_eq!(F::TWO_ADICITY, <A as ark_ff::FftField>::TWO_ADICITY);
                assert_eq!(
                    F::multiplicative_generator().to_biguint(),
                    ark_to_big(&<A as ark_ff::FftField>::GENERATOR)
                );
                assert_eq!(
                    F::two_adic_root_of_unity().to_biguint(),
                    ark_to_big(&<A as ark_ff::FftField>::TWO_ADIC_ROOT_OF_UNITY)
                );
                let w = F::two_adic_root_of_unity();
                let half_order = [1u64 << (F::TWO_ADICITY - 1)];
                assert_eq!(w.pow(&half_order), -F::ONE, "root has order exactly 2^s");
                assert!(F::root_of_unity(F::TWO_ADICITY + 1).is_none());
                assert_eq!(F::root_of_unity(0), Some(F::ONE));
                assert_eq!(
                    F::multiplicative_generator().legendre(),
                    Legendre::QuadraticNonResidue
                );
                assert_eq!(F::ONE.to_biguint(), BigUint::from(1u32));
                assert!(F::ZERO.is_zero());
                // Montgomery limbs equal arkworks' internal representation.
                let x = ours(&(p() - 5u32));
                assert_eq!(
                    x.montgomery_limbs().to_vec(),
                    ark(&(p() - 5u32)).0 .0.to_vec()
                );
            }

            #[test]
            fn inverse_of_zero_is_none() {
                assert_eq!(F::ZERO.inverse(), None);
                assert_eq!(F::ONE.inverse(), Some(F::ONE));
                assert_eq!((-F::ONE).inverse(), Some(-F::ONE));
            }

            #[test]
            fn bytes_reject_non_canonical_and_wrong_length() {
                let pb = p().to_bytes_le();
                let mut bytes = pb.clone();
                bytes.resize(F::BYTES, 0);
                assert_eq!(F::from_le_bytes(&bytes), Err(FieldError::NotCanonical));
                assert_eq!(
                    F::from_le_bytes(&bytes[1..]),
                    Err(FieldError::WrongLength {
                        expected: F::BYTES,
                        got: F::BYTES - 1
                    })
                );
                assert_eq!(F::from_le_bytes_mod_order(&bytes), F::ZERO);
                let all_ones = vec![0xffu8; F::BYTES];
                assert_eq!(F::from_le_bytes(&all_ones), Err(FieldError::NotCanonical));
                assert!(F::from_montgomery_limbs(ours(&(p() - 1u32)).montgomery_limbs()).is_ok());
            }

            #[test]
            fn batch_inverse_skips_zeros() {
                let mut v: Vec<F> = (0..50u64).map(|i| F::from_u64(i * i)).collect();
                v.push(-F::ONE);
                let expect: Vec<F> = v.iter().map(|x| x.inverse().unwrap_or(F::ZERO)).collect();
                batch_inverse(&mut v);
                assert_eq!(v, expect);
                let mut empty: Vec<F> = vec![];
                batch_inverse(&mut empty);
                let mut zeros = vec![F::ZERO; 3];
                batch_inverse(&mut zeros);
                assert_eq!(zeros, vec![F::ZERO; 3]);
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(CASES))]

                #[test]
                fn ring_ops_match_arkworks_and_bigint(a in strategy(), b in strategy()) {
                    let (x, y) = (ours(&a), ours(&b));
                    let (ax, ay) = (ark(&a), ark(&b));
                    let p = p();
                    prop_assert_eq!((x + y).to_biguint(), (&a + &b) % &p);
                    prop_assert_eq!((x + y).to_biguint(), ark_to_big(&(ax + ay)));
                    prop_assert_eq!((x - y).to_biguint(), (&a + &p - &b) % &p);
                    prop_assert_eq!((x - y).to_biguint(), ark_to_big(&(ax - ay)));
                    prop_assert_eq!((x * y).to_biguint(), (&a * &b) % &p);
                    prop_assert_eq!((x * y).to_biguint(), ark_to_big(&(ax * ay)));
                    prop_assert_eq!(x.mul_portable(&y), x * y);
                    prop_assert_eq!(x.square().to_biguint(), (&a * &a) % &p);
                    prop_assert_eq!(x.square(), x.mul_portable(&x));
                    prop_assert_eq!(x.double().to_biguint(), ark_to_big(&ax.double()));
                    prop_assert_eq!((-x).to_biguint(), ark_to_big(&(-ax)));
                    prop_assert_eq!(x.half().double(), x);
                    let mut z = x;
                    z += y;
                    z -= y;
                    z *= y;
                    prop_assert_eq!(z, x * y);
                    // Montgomery limbs agree with arkworks' internal form.
                    prop_assert_eq!(x.montgomery_limbs().to_vec(), ax.0 .0.to_vec());
                }

                #[test]
                fn inverse_pow_match(a in strategy(), e in any::<[u64; 2]>()) {
                    let x = ours(&a);
                    let ax = ark(&a);
                    match x.inverse() {
                        None => prop_assert!(a == BigUint::from(0u32)),
                        Some(inv) => {
                            prop_assert_eq!(inv * x, F::ONE);
                            prop_assert_eq!(inv.to_biguint(), ark_to_big(&ax.inverse().unwrap()));
                        }
                    }
                    prop_assert_eq!(x.pow(&e).to_biguint(), ark_to_big(&ax.pow(e)));
                    let e_big = BigUint::from(e[0]) + (BigUint::from(e[1]) << 64);
                    prop_assert_eq!(x.pow(&e).to_biguint(), a.modpow(&e_big, &p()));
                }

                #[test]
                fn sqrt_and_legendre_match(a in strategy()) {
                    let x = ours(&a);
                    let ax = ark(&a);
                    prop_assert_eq!(x.legendre(), ark_legendre(ax.legendre()));
                    match x.sqrt() {
                        Some(s) => {
                            prop_assert_eq!(s.square(), x);
                            prop_assert!(ax.sqrt().is_some());
                        }
                        None => {
                            prop_assert!(ax.sqrt().is_none());
                            prop_assert_eq!(x.legendre(), Legendre::QuadraticNonResidue);
                        }
                    }
                    // Every square has a root.
                    prop_assert_eq!(x.square().sqrt().map(|s| s.square()), Some(x.square()));
                }

                #[test]
                fn bytes_round_trip(a in strategy()) {
                    let x = ours(&a);
                    let bytes = x.to_le_bytes();
                    prop_assert_eq!(bytes.len(), F::BYTES);
                    prop_assert_eq!(&bytes, &ark(&a).into_bigint().to_bytes_le());
                    prop_assert_eq!(F::from_le_bytes(&bytes), Ok(x));
                    prop_assert_eq!(F::from_canonical_limbs(x.to_canonical_limbs()), Ok(x));
                    prop_assert_eq!(x.to_biguint(), a.clone());
                    prop_assert_eq!(format!("{}", x), a.to_string());
                    // Ordering is by canonical value.
                    let y = ours(&(&a >> 1));
                    prop_assert_eq!(x.cmp(&y), a.cmp(&(&a >> 1)));
                }

                #[test]
                fn arkworks_conversion_round_trips(a in strategy()) {
                    let x = ours(&a);
                    let ax: A = x.into();
                    prop_assert_eq!(ax, ark(&a));
                    prop_assert_eq!(F::from(ax), x);
                }
            }
        }
    };
}

prime_field_suite!(bn254_fr, bn254::Fr, ark_bn254::Fr);
prime_field_suite!(bn254_fq, bn254::Fq, ark_bn254::Fq);
prime_field_suite!(bls12_381_fr, bls12_381::Fr, ark_bls12_381::Fr);
prime_field_suite!(bls12_381_fq, bls12_381::Fq, ark_bls12_381::Fq);

#[test]
fn random_is_in_range_and_varies() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
    let xs: Vec<bn254::Fr> = (0..1000).map(|_| bn254::Fr::random(&mut rng)).collect();
    let p = bn254::Fr::modulus();
    assert!(xs.iter().all(|x| x.to_biguint() < p));
    let distinct: std::collections::HashSet<_> = xs.iter().collect();
    assert_eq!(distinct.len(), xs.len());
    // Top limb is used: some samples exceed p/2.
    assert!(xs.iter().any(|x| x.to_biguint() > (&p >> 1)));
}

#[test]
fn const_from_hex_matches_runtime_parse() {
    const X: bn254::Fr = bn254::Fr::from_hex("0x1234_5678_9abc_def0_0fed_cba9");
    let expect = BigUint::parse_bytes(b"123456789abcdef00fedcba9", 16).unwrap();
    assert_eq!(X.to_biguint(), expect);
}
