//! The fields of the pairing curves, one module per curve: `Fr`, `Fq`, `Fq2` and their
//! arkworks conversions. Adding a curve's fields is one module here.

use crate::quad::{QuadExt, QuadExtConfig};

pub mod bn254 {
    use super::*;

    crate::mont_field!(
        /// BN254 scalar field `Fr` (the field of circom/snarkjs witnesses).
        Fr,
        FrConfig,
        4,
        "0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001",
        5
    );
    crate::mont_field!(
        /// BN254 base field `Fq`.
        Fq,
        FqConfig,
        4,
        "0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47",
        3
    );

    /// `Fq[u]/(u^2 + 1)`.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
    pub struct Fq2Config;
    impl QuadExtConfig for Fq2Config {
        type Base = Fq;
        const NAME: &'static str = "Fq2";
        const NONRESIDUE: Fq =
            Fq::from_hex("0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd46");
        const NONRESIDUE_IS_MINUS_ONE: bool = true;
        #[inline(always)]
        fn mul_by_nonresidue(x: Fq) -> Fq {
            -x
        }
        #[inline(always)]
        fn mul_coeffs(a0: Fq, a1: Fq, b0: Fq, b1: Fq) -> (Fq, Fq) {
            Fq::mul_ext_minus_one(a0, a1, b0, b1)
        }
        #[inline(always)]
        fn square_coeffs(a0: Fq, a1: Fq) -> (Fq, Fq) {
            Fq::square_ext_minus_one(a0, a1)
        }
    }
    pub type Fq2 = QuadExt<Fq2Config>;

    #[cfg(feature = "ark")]
    const _: () = {
        crate::ark::prime_field_conversion!(Fr, ark_bn254::Fr, 4);
        crate::ark::prime_field_conversion!(Fq, ark_bn254::Fq, 4);
        crate::ark::quad_conversion!(Fq2, Fq, ark_bn254::Fq2);
    };
}

pub mod bls12_381 {
    use super::*;

    crate::mont_field!(
        /// BLS12-381 scalar field `Fr`.
        Fr,
        FrConfig,
        4,
        "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001",
        7
    );
    crate::mont_field!(
        /// BLS12-381 base field `Fq`.
        Fq,
        FqConfig,
        6,
        "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
        2
    );

    /// `Fq[u]/(u^2 + 1)`.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
    pub struct Fq2Config;
    impl QuadExtConfig for Fq2Config {
        type Base = Fq;
        const NAME: &'static str = "Fq2";
        const NONRESIDUE: Fq = Fq::from_hex(
            "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaaa",
        );
        const NONRESIDUE_IS_MINUS_ONE: bool = true;
        #[inline(always)]
        fn mul_by_nonresidue(x: Fq) -> Fq {
            -x
        }
        #[inline(always)]
        fn mul_coeffs(a0: Fq, a1: Fq, b0: Fq, b1: Fq) -> (Fq, Fq) {
            Fq::mul_ext_minus_one(a0, a1, b0, b1)
        }
        #[inline(always)]
        fn square_coeffs(a0: Fq, a1: Fq) -> (Fq, Fq) {
            Fq::square_ext_minus_one(a0, a1)
        }
    }
    pub type Fq2 = QuadExt<Fq2Config>;

    #[cfg(feature = "ark")]
    const _: () = {
        crate::ark::prime_field_conversion!(Fr, ark_bls12_381::Fr, 4);
        crate::ark::prime_field_conversion!(Fq, ark_bls12_381::Fq, 6);
        crate::ark::quad_conversion!(Fq2, Fq, ark_bls12_381::Fq2);
    };
}
