//! The evaluation domain snarkjs keys are built on.
//!
//! A key's Lagrange basis fixes the primitive root of unity: snarkjs (ffjavascript)
//! takes `g^((r−1)/n)` with `g` the field's smallest quadratic non-residue, which is 5
//! for both BN254 and BLS12-381 `Fr`. arkworks (and `PrimeField::root_of_unity`) derive
//! BLS12-381's roots from 7, a different primitive root, so the prover and the setup
//! use this function rather than the field's default.

use std::sync::Arc;

use fastzk_field::{Legendre, PrimeField};
use fastzk_poly::{PolyError, Radix2Domain};

/// The smallest quadratic non-residue (≥ 2).
fn smallest_non_residue<F: PrimeField>() -> F {
    (2u64..)
        .map(F::from_u64)
        .find(|g| g.legendre() == Legendre::QuadraticNonResidue)
        .expect("half of the field are non-residues")
}

/// snarkjs' primitive `2^log_n`-th root of unity, if the field's two-adicity allows it.
pub fn snarkjs_root_of_unity<F: PrimeField>(log_n: u32) -> Option<F> {
    if log_n > F::TWO_ADICITY {
        return None;
    }
    let odd = (F::modulus() - 1u32) >> F::TWO_ADICITY;
    let mut w = smallest_non_residue::<F>().pow(&odd.to_u64_digits());
    for _ in log_n..F::TWO_ADICITY {
        w = w.square();
    }
    Some(w)
}

fn too_large<F: PrimeField>(log_n: u32) -> PolyError {
    PolyError::TooLarge {
        log_size: log_n,
        two_adicity: F::TWO_ADICITY,
    }
}

/// The size-`2^log_n` domain on snarkjs' root (twiddles cached per process).
pub fn snarkjs_domain<F: PrimeField>(log_n: u32) -> Result<Arc<Radix2Domain<F>>, PolyError> {
    let w = snarkjs_root_of_unity::<F>(log_n).ok_or_else(|| too_large::<F>(log_n))?;
    Radix2Domain::cached_with_root(log_n, w)
}

/// The odd coset `ω_{2n}·H` where `H(X)·t(X)` is evaluated (`ω_{2n}` on snarkjs' root).
pub fn odd_coset_shift<F: PrimeField>(log_n: u32) -> Result<F, PolyError> {
    snarkjs_root_of_unity::<F>(log_n + 1).ok_or_else(|| too_large::<F>(log_n + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastzk_field::{bls12_381, bn254};

    #[test]
    fn roots_have_exact_order_and_match_the_conventions() {
        fn check<F: PrimeField>(g: u64) {
            assert_eq!(smallest_non_residue::<F>(), F::from_u64(g));
            for log_n in [0u32, 1, 5, 16, F::TWO_ADICITY] {
                let w = snarkjs_root_of_unity::<F>(log_n).unwrap();
                let mut x = w;
                for _ in 0..log_n {
                    assert!(!x.is_one());
                    x = x.square();
                }
                assert!(x.is_one());
                // g^((r−1)/n) computed directly.
                let e = (F::modulus() - 1u32) >> log_n;
                assert_eq!(w, F::from_u64(g).pow(&e.to_u64_digits()));
            }
            assert!(snarkjs_root_of_unity::<F>(F::TWO_ADICITY + 1).is_none());
        }
        check::<bn254::Fr>(5);
        check::<bls12_381::Fr>(5);
        // BN254 agrees with the field's own root; BLS12-381 does not (generator 7).
        assert_eq!(
            snarkjs_root_of_unity::<bn254::Fr>(10),
            bn254::Fr::root_of_unity(10)
        );
        assert_ne!(
            snarkjs_root_of_unity::<bls12_381::Fr>(10),
            bls12_381::Fr::root_of_unity(10)
        );
    }
}
