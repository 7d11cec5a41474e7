//! NTT correctness: against the O(n²) DFT, round trips, batches, orders, edge sizes.

use fastzk_field::{bls12_381, bn254, Field, Goldilocks, PrimeField};
use fastzk_poly::{naive, Order, PolyError, Radix2Domain};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn rand_vec<F: Field>(rng: &mut ChaCha20Rng, n: usize) -> Vec<F> {
    (0..n).map(|_| F::random(rng)).collect()
}

fn bitrev<F: Copy>(v: &[F]) -> Vec<F> {
    let k = v.len().trailing_zeros();
    (0..v.len())
        .map(|i| {
            v[if k == 0 {
                0
            } else {
                i.reverse_bits() >> (usize::BITS - k)
            }]
        })
        .collect()
}

const ORDERS: [Order; 2] = [Order::Natural, Order::BitReversed];

fn arrange<F: Copy>(v: &[F], o: Order) -> Vec<F> {
    match o {
        Order::Natural => v.to_vec(),
        Order::BitReversed => bitrev(v),
    }
}

/// Every order combination of the plain and coset transforms against the naive DFT.
fn against_naive<F: PrimeField>(max_log: u32, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    for log_n in 0..=max_log {
        let d = Radix2Domain::<F>::new(log_n).unwrap();
        let a: Vec<F> = rand_vec(&mut rng, d.size());
        let plain = naive::dft(&a, F::ONE).unwrap();
        let coset = naive::dft(&a, d.coset_shift()).unwrap();
        for inp in ORDERS {
            for out in ORDERS {
                let mut x = arrange(&a, inp);
                d.forward(&mut x, inp, out).unwrap();
                assert_eq!(
                    x,
                    arrange(&plain, out),
                    "forward 2^{log_n} {inp:?}->{out:?}"
                );
                d.inverse(&mut x, out, inp).unwrap();
                assert_eq!(x, arrange(&a, inp), "inverse 2^{log_n}");
                let mut y = arrange(&a, inp);
                d.coset_forward(&mut y, inp, out).unwrap();
                assert_eq!(
                    y,
                    arrange(&coset, out),
                    "coset forward 2^{log_n} {inp:?}->{out:?}"
                );
                d.coset_inverse(&mut y, out, inp).unwrap();
                assert_eq!(y, arrange(&a, inp), "coset inverse 2^{log_n}");
            }
        }
        assert_eq!(naive::idft(&plain, F::ONE).unwrap(), a);
    }
}

#[test]
fn bn254_matches_naive_dft() {
    against_naive::<bn254::Fr>(9, 1);
}
#[test]
fn bls12_381_matches_naive_dft() {
    against_naive::<bls12_381::Fr>(8, 2);
}
#[test]
fn goldilocks_matches_naive_dft() {
    against_naive::<Goldilocks>(10, 3);
}

/// Batches (rows on one thread each, using the sequential cache-blocked path) agree with
/// single transforms (parallel path), including row sizes past the cache block.
fn batch_matches_single<F: PrimeField>(log_n: u32, rows: usize, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let d = Radix2Domain::<F>::new(log_n).unwrap();
    let m: Vec<F> = rand_vec(&mut rng, rows * d.size());
    for (inp, out) in [
        (Order::Natural, Order::Natural),
        (Order::Natural, Order::BitReversed),
    ] {
        let mut b = m.clone();
        d.forward_batch(&mut b, inp, out).unwrap();
        let mut cb = m.clone();
        d.coset_forward_batch(&mut cb, inp, out).unwrap();
        for (r, row) in m.chunks(d.size()).enumerate() {
            let mut x = row.to_vec();
            d.forward(&mut x, inp, out).unwrap();
            assert_eq!(x, b[r * d.size()..(r + 1) * d.size()], "row {r}");
            let mut y = row.to_vec();
            d.coset_forward(&mut y, inp, out).unwrap();
            assert_eq!(y, cb[r * d.size()..(r + 1) * d.size()], "coset row {r}");
        }
        d.inverse_batch(&mut b, out, inp).unwrap();
        assert_eq!(b, m);
        d.coset_inverse_batch(&mut cb, out, inp).unwrap();
        assert_eq!(cb, m);
    }
}

#[test]
fn batches_bn254() {
    batch_matches_single::<bn254::Fr>(5, 7, 4);
    batch_matches_single::<bn254::Fr>(14, 2, 5);
}
#[test]
fn batches_goldilocks() {
    batch_matches_single::<Goldilocks>(6, 16, 6);
    batch_matches_single::<Goldilocks>(16, 2, 7);
}
#[test]
fn batches_bls12_381() {
    batch_matches_single::<bls12_381::Fr>(10, 3, 8);
}

/// Evaluations at a few random points of the larger transforms: X_j = p(ω^j).
fn spot_check<F: PrimeField>(log_n: u32, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let d = Radix2Domain::<F>::new(log_n).unwrap();
    let a: Vec<F> = rand_vec(&mut rng, d.size());
    let mut x = a.clone();
    d.fft_in_place(&mut x).unwrap();
    let mut c = a.clone();
    d.coset_fft_in_place(&mut c).unwrap();
    for j in [0, 1, 2, d.size() / 3, d.size() - 1] {
        let pt = d.element(j);
        let horner = |pt: F| a.iter().rev().fold(F::ZERO, |acc, &v| acc * pt + v);
        assert_eq!(x[j], horner(pt));
        assert_eq!(c[j], horner(pt * d.coset_shift()));
    }
    d.ifft_in_place(&mut x).unwrap();
    assert_eq!(x, a);
    d.coset_ifft_in_place(&mut c).unwrap();
    assert_eq!(c, a);
}

#[test]
fn larger_sizes_spot_checked() {
    spot_check::<bn254::Fr>(16, 9);
    // An odd number of four-step column levels before rounding up (lazy radix-4 path).
    spot_check::<bn254::Fr>(17, 12);
    spot_check::<Goldilocks>(18, 10);
    spot_check::<bls12_381::Fr>(13, 11);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn inverse_after_forward_is_identity(log_n in 0u32..13, seed: u64, coset: bool, bitrev_out: bool) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let out = if bitrev_out { Order::BitReversed } else { Order::Natural };
        let d = Radix2Domain::<bn254::Fr>::cached(log_n).unwrap();
        let a: Vec<bn254::Fr> = rand_vec(&mut rng, d.size());
        let mut x = a.clone();
        if coset {
            d.coset_forward(&mut x, Order::Natural, out).unwrap();
            d.coset_inverse(&mut x, out, Order::Natural).unwrap();
        } else {
            d.forward(&mut x, Order::Natural, out).unwrap();
            d.inverse(&mut x, out, Order::Natural).unwrap();
        }
        prop_assert_eq!(&x, &a);
        let dg = Radix2Domain::<Goldilocks>::cached(log_n + 2).unwrap();
        let g: Vec<Goldilocks> = rand_vec(&mut rng, dg.size());
        let mut y = g.clone();
        if coset {
            dg.coset_forward(&mut y, Order::Natural, out).unwrap();
            dg.coset_inverse(&mut y, out, Order::Natural).unwrap();
        } else {
            dg.forward(&mut y, Order::Natural, out).unwrap();
            dg.inverse(&mut y, out, Order::Natural).unwrap();
        }
        prop_assert_eq!(&y, &g);
    }
}

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
    assert!(naive::dft(&[Goldilocks::ONE; 3], Goldilocks::ONE).is_err());
}

#[test]
fn custom_coset_and_cache() {
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let g = bn254::Fr::from_u64(12345);
    let d = Radix2Domain::<bn254::Fr>::new(6)
        .unwrap()
        .with_coset(g)
        .unwrap();
    let a: Vec<bn254::Fr> = rand_vec(&mut rng, 64);
    let mut x = a.clone();
    d.coset_fft_in_place(&mut x).unwrap();
    assert_eq!(x, naive::dft(&a, g).unwrap());
    let c1 = Radix2Domain::<bn254::Fr>::cached(6).unwrap();
    let c2 = Radix2Domain::<bn254::Fr>::cached(6).unwrap();
    assert!(std::sync::Arc::ptr_eq(&c1, &c2));
    assert_eq!(Radix2Domain::<Goldilocks>::cached(6).unwrap().size(), 64);
}
