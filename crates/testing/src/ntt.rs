//! NTTs: any [`TwoAdicTransform`] against the naive DFT ([`NaiveDft`], the same
//! interface computed by Horner's rule), every [`Transform`] in every order combination,
//! at every size from 1 up; batches against single transforms; round trips on
//! random sizes; spot evaluations of large transforms; and the errors for wrong lengths.
//!
//! [`ntt_tests!`](crate::ntt_tests) instantiates the suite for one field with the fast
//! engine ([`Radix2Domain`]); a device backend calls the functions with its own
//! constructor.

use fastzk_field::NttField;
use fastzk_poly::{NaiveDft, Order, PolyError, Radix2Domain, Transform, TwoAdicTransform};
use proptest::prelude::*;

use crate::check;
use crate::gen::{arrange, elements, rng};

const ORDERS: [Order; 2] = [Order::Natural, Order::BitReversed];

/// Every order combination of every transform of `make(k)` against the naive DFT on the
/// same root and coset, for `k = 0..=max_log`.
pub fn matches_naive_dft<F: NttField, T: TwoAdicTransform<F>>(
    make: impl Fn(u32) -> T,
    max_log: u32,
) {
    let mut r = rng(1);
    for log_n in 0..=max_log.min(F::TWO_ADICITY) {
        let t = make(log_n);
        let naive = NaiveDft::on(*t.subgroup());
        let a: Vec<F> = elements(&mut r, t.size());
        for kind in Transform::ALL {
            let mut want = a.clone();
            naive
                .apply(kind, &mut want, Order::Natural, Order::Natural)
                .unwrap();
            for inp in ORDERS {
                for out in ORDERS {
                    let mut x = arrange(&a, inp);
                    t.apply(kind, &mut x, inp, out).unwrap();
                    assert_eq!(
                        x,
                        arrange(&want, out),
                        "{kind:?} 2^{log_n} {inp:?}->{out:?}"
                    );
                    t.apply(kind.inverse(), &mut x, out, inp).unwrap();
                    assert_eq!(x, arrange(&a, inp), "{kind:?} undone 2^{log_n}");
                }
            }
            // The reference itself inverts.
            naive
                .apply(kind.inverse(), &mut want, Order::Natural, Order::Natural)
                .unwrap();
            assert_eq!(want, a, "naive {kind:?} undone 2^{log_n}");
        }
    }
}

/// Batches (rows on one thread each) agree with single transforms, for every transform.
pub fn batches_match_single<F: NttField, T: TwoAdicTransform<F>>(t: &T, rows: usize) {
    let mut r = rng(rows as u64);
    let n = t.size();
    let m: Vec<F> = elements(&mut r, rows * n);
    for kind in Transform::ALL {
        for (inp, out) in [
            (Order::Natural, Order::Natural),
            (Order::Natural, Order::BitReversed),
        ] {
            let mut b = m.clone();
            t.apply_batch(kind, &mut b, inp, out).unwrap();
            for (i, row) in m.chunks(n).enumerate() {
                let mut x = row.to_vec();
                t.apply(kind, &mut x, inp, out).unwrap();
                assert_eq!(x, b[i * n..(i + 1) * n], "{kind:?} row {i}");
            }
            t.apply_batch(kind.inverse(), &mut b, out, inp).unwrap();
            assert_eq!(b, m, "{kind:?} undone");
        }
    }
}

/// Evaluations at a few points of a large transform: `X_j = p(g·ω^j)` by Horner.
pub fn spot_check<F: NttField, T: TwoAdicTransform<F>>(t: &T) {
    let mut r = rng(t.log_size() as u64);
    let a: Vec<F> = elements(&mut r, t.size());
    let horner = |pt: F| a.iter().rev().fold(F::ZERO, |acc, &v| acc * pt + v);
    for (kind, shift) in [
        (Transform::Forward, F::ONE),
        (Transform::CosetForward, t.coset_shift()),
    ] {
        let mut x = a.clone();
        t.apply(kind, &mut x, Order::Natural, Order::Natural)
            .unwrap();
        for j in [0, 1, 2, t.size() / 3, t.size() - 1] {
            let pt = t.generator().pow_u64(j as u64) * shift;
            assert_eq!(x[j], horner(pt), "{kind:?} 2^{} at {j}", t.log_size());
        }
        t.apply(kind.inverse(), &mut x, Order::Natural, Order::Natural)
            .unwrap();
        assert_eq!(x, a, "{kind:?} undone 2^{}", t.log_size());
    }
}

/// Inverse after forward is the identity, on random sizes, orders, and subgroup or coset.
pub fn round_trips<F: NttField, T: TwoAdicTransform<F>>(make: impl Fn(u32) -> T, max_log: u32) {
    let strategy = (
        0..=max_log.min(F::TWO_ADICITY),
        any::<u64>(),
        any::<bool>(),
        any::<bool>(),
    );
    check(24, None, strategy, |(log_n, seed, coset, bitrev)| {
        let out = if bitrev {
            Order::BitReversed
        } else {
            Order::Natural
        };
        let t = make(log_n);
        let a: Vec<F> = elements(&mut rng(seed), t.size());
        let mut x = a.clone();
        let kind = if coset {
            Transform::CosetForward
        } else {
            Transform::Forward
        };
        t.apply(kind, &mut x, Order::Natural, out).unwrap();
        t.apply(kind.inverse(), &mut x, out, Order::Natural)
            .unwrap();
        prop_assert_eq!(&x, &a);
        Ok(())
    });
}

/// Wrong lengths are errors: the transform's size, a batch of whole rows.
pub fn wrong_lengths_are_errors<F: NttField, T: TwoAdicTransform<F>>(t: &T) {
    let n = t.size();
    let mut short = vec![F::ONE; n + 1];
    assert_eq!(
        t.forward(&mut short, Order::Natural, Order::Natural),
        Err(PolyError::LengthMismatch {
            expected: n,
            got: n + 1
        })
    );
    assert!(t
        .inverse(&mut short, Order::Natural, Order::Natural)
        .is_err());
    assert!(t
        .coset_forward(&mut short[..n - 1], Order::Natural, Order::Natural)
        .is_err());
    if n > 1 {
        let mut ragged = vec![F::ONE; 2 * n + 1];
        assert!(t
            .forward_batch(&mut ragged, Order::Natural, Order::Natural)
            .is_err());
    }
    let mut empty: Vec<F> = vec![];
    assert!(t
        .forward_batch(&mut empty, Order::Natural, Order::Natural)
        .is_ok());
}

/// The fast NTT of `F` ([`Radix2Domain`] on the field's own root).
pub fn radix2<F: NttField>(log_n: u32) -> Radix2Domain<F> {
    Radix2Domain::new(log_n).expect("within the field's two-adicity")
}

/// The suite for the fast NTT of the field `F`, in module `name`: small sizes against
/// the naive DFT, batches, large sizes spot-checked (sizes past the cache block run the
/// four-step path, both parities of its column levels).
#[macro_export]
macro_rules! ntt_tests {
    ($name:ident, $f:ty) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            use $crate::ntt::*;
            type F = $f;
            fn max() -> u32 {
                <F as $crate::fastzk_field::PrimeField>::TWO_ADICITY
            }
            #[test]
            fn matches_naive_dft() {
                $crate::ntt::matches_naive_dft::<F, _>(radix2::<F>, 9);
            }
            #[test]
            fn batches_match_single() {
                for (log_n, rows) in [(5, 7), (10, 3), (14, 2), (16, 2)] {
                    if log_n <= max() {
                        $crate::ntt::batches_match_single::<F, _>(&radix2::<F>(log_n), rows);
                    }
                }
            }
            #[test]
            fn larger_sizes_spot_checked() {
                for log_n in [13, 16, 17, 18] {
                    if log_n <= max() {
                        $crate::ntt::spot_check::<F, _>(&radix2::<F>(log_n));
                    }
                }
            }
            #[test]
            fn round_trips() {
                $crate::ntt::round_trips::<F, _>(radix2::<F>, 13);
            }
            #[test]
            fn wrong_lengths_are_errors() {
                for log_n in [0, 4] {
                    if log_n <= max() {
                        $crate::ntt::wrong_lengths_are_errors::<F, _>(&radix2::<F>(log_n));
                    }
                }
            }
        }
    };
}
