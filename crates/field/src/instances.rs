//! The fields of the pairing curves, one invocation per curve: `Fr`, `Fq`, `Fq2` and
//! their arkworks conversions. Adding a curve's fields is one invocation here.

/// A pairing curve's fields in module `$curve` (`$title` names the curve in docs): `Fr`
/// and `Fq` as Montgomery fields (limb count, modulus, multiplicative generator),
/// `Fq2 = Fq[u]/(u² + 1)` (`p ≡ 3 mod 4`, checked at compile time), and with the `ark`
/// feature conversions to and from the arkworks crate `$ark`.
macro_rules! pairing_fields {
    ($(#[$doc:meta])* $curve:ident, $title:literal, $ark:ident,
     Fr: $fr_limbs:literal limbs, $fr_modulus:literal, generator $fr_generator:literal;
     Fq: $fq_limbs:literal limbs, $fq_modulus:literal, generator $fq_generator:literal;) => {
        $(#[$doc])*
        pub mod $curve {
            use crate::{MinusOneExt, QuadExt};

            crate::mont_field!(
                #[doc = concat!($title, " scalar field `Fr` (of the prime group order `r`).")]
                Fr, FrConfig, $fr_limbs, $fr_modulus, $fr_generator
            );
            crate::mont_field!(
                #[doc = concat!($title, " base field `Fq`.")]
                Fq, FqConfig, $fq_limbs, $fq_modulus, $fq_generator
            );
            /// `Fq[u]/(u^2 + 1)`.
            pub type Fq2Config = MinusOneExt<FqConfig, $fq_limbs>;
            pub type Fq2 = QuadExt<Fq2Config>;

            #[cfg(feature = "ark")]
            const _: () = {
                crate::ark::prime_field_conversion!(Fr, $ark::Fr, $fr_limbs);
                crate::ark::prime_field_conversion!(Fq, $ark::Fq, $fq_limbs);
                crate::ark::quad_conversion!(Fq2, Fq, $ark::Fq2);
            };
        }
    };
}

pairing_fields! {
    /// BN254 (alt_bn128); `Fr` is the field of circom/snarkjs witnesses.
    bn254, "BN254", ark_bn254,
    Fr: 4 limbs, "0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001", generator 5;
    Fq: 4 limbs, "0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47", generator 3;
}

pairing_fields! {
    /// BLS12-381.
    bls12_381, "BLS12-381", ark_bls12_381,
    Fr: 4 limbs, "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", generator 7;
    Fq: 6 limbs, "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", generator 2;
}
