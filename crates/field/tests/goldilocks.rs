//! Goldilocks' declared constants (the laws and arkworks agreement are in the shared
//! suites, `conformance.rs`).

use fastzk_field::{Field, FieldError, Goldilocks, GoldilocksExt2, Legendre, PrimeField};

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
        Err(FieldError::NotCanonical)
    );
    assert_eq!(
        Goldilocks::modulus(),
        num_bigint::BigUint::from((1u128 << 64) - (1u128 << 32) + 1)
    );
}

#[test]
fn pairing_fq2_use_minus_one() {
    use fastzk_field::{bls12_381, bn254, QuadExtConfig};
    assert_eq!(bn254::Fq2Config::NONRESIDUE, -bn254::Fq::ONE);
    assert_eq!(bls12_381::Fq2Config::NONRESIDUE, -bls12_381::Fq::ONE);
    const { assert!(bn254::Fq2Config::NONRESIDUE_IS_MINUS_ONE) };
    const { assert!(bls12_381::Fq2Config::NONRESIDUE_IS_MINUS_ONE) };
}
