//! The API of `Radix2Domain` and `NaiveDft` beyond the transforms: sizes at the edges,
//! the errors, custom cosets and roots, the twiddle cache. The transforms themselves go
//! through the shared NTT suite for every field (`crates/field/tests/conformance.rs`).

use fastzk_field::{bls12_381, bn254, Field, Goldilocks, PrimeField};
use fastzk_poly::{NaiveDft, Order, PolyError, Radix2Domain, Subgroup, TwoAdicTransform};
use fastzk_testing::gen::{elements, rng};

#[test]
fn edge_sizes_and_errors() {
    // Sizes 1 and 2.
    let d1 = Radix2Domain::<bn254::Fr>::new(0).unwrap();
    let mut one = vec![bn254::Fr::from_u64(7)];
    d1.fft_in_place(&mut one).unwrap();
    assert_eq!(one, vec![bn254::Fr::from_u64(7)]);
    d1.coset_fft_in_place(&mut one).unwrap();
    assert_eq!(one, vec![bn254::Fr::from_u64(7)]);
    let d2 = Radix2Domain::<Goldilocks>::new(1).unwrap();
    let mut two = vec![Goldilocks::from_u64(3), Goldilocks::from_u64(5)];
    d2.fft_in_place(&mut two).unwrap();
    assert_eq!(
        two,
        vec![
            Goldilocks::from_u64(8),
            Goldilocks::from_u64(3) - Goldilocks::from_u64(5)
        ]
    );
    // The largest two-adic size is constructible in principle; one beyond is an error.
    assert!(bn254::Fr::root_of_unity(bn254::Fr::TWO_ADICITY).is_some());
    assert_eq!(
        Radix2Domain::<bn254::Fr>::new(bn254::Fr::TWO_ADICITY + 1).unwrap_err(),
        PolyError::TooLarge {
            log_size: 29,
            two_adicity: 28
        }
    );
    assert!(matches!(
        Radix2Domain::<bls12_381::Fr>::new(33),
        Err(PolyError::TooLarge {
            log_size: 33,
            two_adicity: 32
        })
    ));
    assert!(matches!(
        Radix2Domain::<Goldilocks>::new(33),
        Err(PolyError::TooLarge {
            log_size: 33,
            two_adicity: 32
        })
    ));
    assert!(Radix2Domain::<Goldilocks>::new(u32::MAX).is_err());
    // Wrong lengths.
    let d = Radix2Domain::<Goldilocks>::new(4).unwrap();
    let mut v = vec![Goldilocks::ONE; 15];
    assert_eq!(
        d.fft_in_place(&mut v),
        Err(PolyError::LengthMismatch {
            expected: 16,
            got: 15
        })
    );
    assert!(d
        .forward_batch(&mut v, Order::Natural, Order::Natural)
        .is_err());
    let mut empty: Vec<Goldilocks> = vec![];
    assert!(d
        .forward_batch(&mut empty, Order::Natural, Order::Natural)
        .is_ok());
    assert!(Radix2Domain::<Goldilocks>::new(3)
        .unwrap()
        .with_coset(Goldilocks::ONE)
        .is_err());
    assert!(Radix2Domain::<Goldilocks>::new(3)
        .unwrap()
        .with_coset(Goldilocks::ZERO)
        .is_err());
    let naive = NaiveDft::<Goldilocks>::new(2).unwrap();
    assert!(naive
        .forward(&mut [Goldilocks::ONE; 3], Order::Natural, Order::Natural)
        .is_err());
    assert_eq!(
        Subgroup::<Goldilocks>::with_root(2, Goldilocks::ONE).unwrap_err(),
        PolyError::BadRoot
    );
    assert!(NaiveDft::<Goldilocks>::new(33).is_err());
    let mut odd = vec![Goldilocks::ONE; 3];
    assert_eq!(
        fastzk_poly::bit_reverse_permute(&mut odd),
        Err(PolyError::NotPowerOfTwo(3))
    );
}

#[test]
fn custom_coset_and_cache() {
    let g = bn254::Fr::from_u64(12345);
    let d = Radix2Domain::<bn254::Fr>::new(6)
        .unwrap()
        .with_coset(g)
        .unwrap();
    let a: Vec<bn254::Fr> = elements(&mut rng(12), 64);
    let mut x = a.clone();
    d.coset_fft_in_place(&mut x).unwrap();
    let naive = NaiveDft::on(Subgroup::new(6).unwrap().with_coset(g).unwrap());
    let mut want = a.clone();
    naive
        .coset_forward(&mut want, Order::Natural, Order::Natural)
        .unwrap();
    assert_eq!(x, want);
    // A domain on another primitive root (snarkjs' for BLS12-381 is not the field's).
    let w = bls12_381::Fr::root_of_unity(5).unwrap().pow_u64(3);
    let other = Radix2Domain::<bls12_381::Fr>::with_root(5, w).unwrap();
    assert_eq!(other.generator(), w);
    let a: Vec<bls12_381::Fr> = elements(&mut rng(13), 32);
    let (mut x, mut want) = (a.clone(), a.clone());
    other.fft_in_place(&mut x).unwrap();
    NaiveDft::on(Subgroup::with_root(5, w).unwrap())
        .forward(&mut want, Order::Natural, Order::Natural)
        .unwrap();
    assert_eq!(x, want);
    assert!(Radix2Domain::<bls12_381::Fr>::cached_with_root(5, w).is_ok());
    let c1 = Radix2Domain::<bn254::Fr>::cached(6).unwrap();
    let c2 = Radix2Domain::<bn254::Fr>::cached(6).unwrap();
    assert!(std::sync::Arc::ptr_eq(&c1, &c2));
    assert_eq!(Radix2Domain::<Goldilocks>::cached(6).unwrap().size(), 64);
}
