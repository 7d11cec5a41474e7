//! snarkjs' conventions, which a key or proof must follow to interoperate with it:
//! which root of unity a domain is built on, how large a circuit's domain is, how
//! section 4 of a `.zkey` stores coefficients, and the protocol ids of `.zkey` files.

use fastzk_field::{Legendre, PrimeField};
use num_bigint::BigUint;

/// The protocol a `.zkey` holds (its section 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ZkeyProtocol {
    Groth16,
    Plonk,
    Fflonk,
}

impl ZkeyProtocol {
    /// The id snarkjs writes in section 1.
    pub fn id(self) -> u32 {
        match self {
            ZkeyProtocol::Groth16 => 1,
            ZkeyProtocol::Plonk => 2,
            ZkeyProtocol::Fflonk => 10,
        }
    }

    /// The protocol with this id, if snarkjs has one.
    pub fn from_id(id: u32) -> Option<Self> {
        [Self::Groth16, Self::Plonk, Self::Fflonk]
            .into_iter()
            .find(|p| p.id() == id)
    }

    /// The name snarkjs writes in JSON files (`protocol`).
    pub fn name(self) -> &'static str {
        match self {
            ZkeyProtocol::Groth16 => "groth16",
            ZkeyProtocol::Plonk => "plonk",
            ZkeyProtocol::Fflonk => "fflonk",
        }
    }
}

/// The smallest quadratic non-residue (≥ 2).
fn smallest_non_residue<F: PrimeField>() -> F {
    (2u64..)
        .map(F::from_u64)
        .find(|g| g.legendre() == Legendre::QuadraticNonResidue)
        .expect("half of the field are non-residues")
}

/// snarkjs' primitive `2^log_n`-th root of unity, if the field's two-adicity allows it.
///
/// A key's Lagrange basis fixes the root: snarkjs (ffjavascript) takes `g^((r−1)/n)`
/// with `g` the field's smallest quadratic non-residue, which is 5 for both BN254 and
/// BLS12-381 `Fr`. arkworks (and [`PrimeField::root_of_unity`]) derive BLS12-381's
/// roots from 7, a different primitive root, so keys for snarkjs use this one.
pub fn root_of_unity<F: PrimeField>(log_n: u32) -> Option<F> {
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

/// `log2` of the domain snarkjs picks for a Groth16 key: the smallest power of two
/// above `n_constraints + n_public` (so the `n_public + 1` public rows fit), at least 2.
pub fn domain_log_size(n_constraints: usize, n_public: usize) -> u32 {
    let x = (n_constraints + n_public) as u64;
    // snarkjs: floor(log2(x)) + 1, with log2(0) = 0.
    if x == 0 {
        1
    } else {
        64 - x.leading_zeros()
    }
}

/// `R mod r` with `R = 2^(8·BYTES)`, the Montgomery radix of snarkjs' field elements.
///
/// Section 4 of a Groth16 `.zkey` stores each matrix coefficient `c` as the canonical
/// bytes of `c·R²`, which snarkjs' prover reads as Montgomery bytes (the element `c·R`)
/// and multiplies with the canonical witness value, getting `c·w` in Montgomery form.
pub fn montgomery_radix<F: PrimeField>() -> F {
    let r = (BigUint::from(1u8) << (8 * F::BYTES)) % F::modulus();
    F::from_biguint(&r).expect("reduced modulo p")
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastzk_field::{bls12_381, bn254, Field};

    #[test]
    fn roots_have_exact_order_and_match_the_conventions() {
        fn check<F: PrimeField>(g: u64) {
            assert_eq!(smallest_non_residue::<F>(), F::from_u64(g));
            for log_n in [0u32, 1, 5, 16, F::TWO_ADICITY] {
                let w = root_of_unity::<F>(log_n).unwrap();
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
            assert!(root_of_unity::<F>(F::TWO_ADICITY + 1).is_none());
        }
        check::<bn254::Fr>(5);
        check::<bls12_381::Fr>(5);
        // BN254 agrees with the field's own root; BLS12-381 does not (generator 7).
        assert_eq!(root_of_unity::<bn254::Fr>(10), bn254::Fr::root_of_unity(10));
        assert_ne!(
            root_of_unity::<bls12_381::Fr>(10),
            bls12_381::Fr::root_of_unity(10)
        );
    }

    #[test]
    fn coefficient_encoding_is_r_squared() {
        // coef·R² read as Montgomery limbs is coef·R, i.e. the Montgomery form of coef.
        let r = montgomery_radix::<bn254::Fr>();
        let c = bn254::Fr::from_u64(12345);
        let stored = c * r * r;
        let as_mont = bn254::Fr::from_montgomery_limbs(stored.to_canonical_limbs()).unwrap();
        assert_eq!(as_mont, c * r);
    }

    #[test]
    fn domain_matches_snarkjs() {
        // snarkjs: log2(nConstraints + nPublic) + 1 with floor log2.
        assert_eq!(domain_log_size(1, 2), 2);
        assert_eq!(domain_log_size(5, 2), 3);
        assert_eq!(domain_log_size(6, 2), 4);
        assert_eq!(domain_log_size(0, 0), 1);
        // circomlib SHA-256 (62,528 constraints, one public signal) proves on 2^16.
        assert_eq!(domain_log_size(62_528, 1), 16);
        assert_eq!(domain_log_size((1 << 16) - 1, 1), 17);
    }

    #[test]
    fn zkey_protocol_ids() {
        for p in [
            ZkeyProtocol::Groth16,
            ZkeyProtocol::Plonk,
            ZkeyProtocol::Fflonk,
        ] {
            assert_eq!(ZkeyProtocol::from_id(p.id()), Some(p));
        }
        assert_eq!(ZkeyProtocol::from_id(3), None);
    }
}
