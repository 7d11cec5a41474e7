//! Group-law and cross-form consistency properties that need no reference library
//! (these run without the `ark` feature too).

use fastzk_curve::{batch_add_affine, batch_normalize, Affine, CurveConfig, Jacobian, Xyzz};
use fastzk_field::{Field, PrimeField};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

macro_rules! laws {
    ($name:ident, $cfg:ty) => {
        mod $name {
            use super::*;

            type C = $cfg;
            type A = Affine<C>;
            type J = Jacobian<C>;
            type X = Xyzz<C>;
            type Fr = <C as CurveConfig>::Scalar;

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(1000))]

                #[test]
                fn abelian_group(seed in any::<u64>()) {
                    let mut r = ChaCha20Rng::seed_from_u64(seed);
                    let (p, q, s) = (J::random(&mut r), J::random(&mut r), J::random(&mut r));
                    assert_eq!(p + q, q + p);
                    assert_eq!((p + q) + s, p + (q + s));
                    assert!((p - p).is_zero());
                    assert_eq!(p + J::identity(), p);
                    // The three forms compute the same sums.
                    let (px, qa) = (p.to_xyzz(), q.to_affine());
                    assert_eq!((px + qa).to_affine(), (p + qa).to_affine());
                    assert_eq!((px + q.to_xyzz()).to_affine(), (p + q).to_affine());
                    assert_eq!(px.double().to_affine(), p.double().to_affine());
                    let ab = batch_add_affine(&[(p.to_affine(), qa)]);
                    assert_eq!(ab[0], (p + q).to_affine());
                    assert_eq!(batch_normalize(&[p, q]), vec![p.to_affine(), qa]);
                    let all: X = [p, q, s].iter().map(|v| v.to_xyzz()).sum();
                    assert_eq!(all.to_jacobian(), p + q + s);
                }
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(1000))]

                #[test]
                fn scalar_mul_is_a_homomorphism(seed in any::<u64>()) {
                    let mut r = ChaCha20Rng::seed_from_u64(seed);
                    let p = A::random(&mut r);
                    let a = <Fr as Field>::random(&mut r);
                    let b = <Fr as Field>::random(&mut r);
                    assert_eq!(p.mul(&a) + p.mul(&b), p.mul(&(a + b)));
                    assert_eq!(p.mul(&a).mul(&b), p.mul(&(a * b)));
                    assert_eq!(p.mul(&a), p.mul_wnaf(&a));
                    if let Some(g) = p.mul_glv(&a) {
                        assert_eq!(g, p.mul_wnaf(&a));
                    }
                    let r_limbs = <Fr as PrimeField>::modulus().to_u64_digits();
                    assert!(p.mul_bigint(&r_limbs).is_zero());
                }
            }
        }
    };
}

laws!(bn254_g1, fastzk_curve::bn254::G1Config);
laws!(bn254_g2, fastzk_curve::bn254::G2Config);
laws!(bls12_381_g1, fastzk_curve::bls12_381::G1Config);
laws!(bls12_381_g2, fastzk_curve::bls12_381::G2Config);
