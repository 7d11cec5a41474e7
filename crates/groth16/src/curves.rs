//! The pairing-friendly curves Groth16 runs on, tied to arkworks for the pairing.

use ark_ec::pairing::Pairing;
use ark_ec::short_weierstrass::Affine as ArkAffine;
use ark_ff::{Field as _, One};
use fastzk_curve::serialize::{Coordinate, SerializableCurve};
use fastzk_curve::{bls12_381 as bls, bn254, Affine};
use fastzk_field::PrimeField;
use fastzk_msm::MsmCurve;

/// One `(P, Q)` pair of a pairing product.
pub type PairingInput<E> = (
    Affine<<E as PairingCurve>::G1>,
    Affine<<E as PairingCurve>::G2>,
);

/// A pairing-friendly curve: its scalar field, its two groups, and a pairing check.
pub trait PairingCurve:
    'static + Copy + Clone + core::fmt::Debug + PartialEq + Eq + Send + Sync
{
    type Fr: PrimeField + Coordinate;
    type G1: MsmCurve<Scalar = Self::Fr> + SerializableCurve;
    type G2: MsmCurve<Scalar = Self::Fr> + SerializableCurve;

    /// The curve's name in snarkjs files (`"bn128"`, `"bls12381"`).
    const SNARKJS_NAME: &'static str;

    /// `Π e(Pᵢ, Qᵢ) = 1`, with one final exponentiation.
    fn pairing_product_is_one(pairs: &[PairingInput<Self>]) -> bool;

    /// `e(P, Q)` as the twelve base-field coefficients of `Fq12 = Fq6[w]/(w² − v)`,
    /// `Fq6 = Fq2[v]/(v³ − ξ)`, in snarkjs' nesting order (`[c0, c1]` of `Fq12`, each
    /// `[c0, c1, c2]` of `Fq6`, each `[c0, c1]` of `Fq2`), as decimal strings.
    fn pairing_decimal(p: &Affine<Self::G1>, q: &Affine<Self::G2>) -> [[[String; 2]; 3]; 2];
}

macro_rules! pairing_curve {
    ($name:ident, $doc:literal, $sj:literal, $fr:ty, $g1:ty, $g2:ty, $ark:ty, $ag1:ty, $ag2:ty, $afq2:ty, $afq6:ty) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl PairingCurve for $name {
            type Fr = $fr;
            type G1 = $g1;
            type G2 = $g2;
            const SNARKJS_NAME: &'static str = $sj;

            fn pairing_product_is_one(pairs: &[(Affine<$g1>, Affine<$g2>)]) -> bool {
                let (ps, qs): (Vec<ArkAffine<$ag1>>, Vec<ArkAffine<$ag2>>) = pairs
                    .iter()
                    .map(|(p, q)| (ArkAffine::<$ag1>::from(*p), ArkAffine::<$ag2>::from(*q)))
                    .unzip();
                <$ark>::multi_pairing(ps, qs).0.is_one()
            }

            fn pairing_decimal(p: &Affine<$g1>, q: &Affine<$g2>) -> [[[String; 2]; 3]; 2] {
                let p: ArkAffine<$ag1> = (*p).into();
                let q: ArkAffine<$ag2> = (*q).into();
                let f = <$ark>::pairing(p, q).0;
                let fq2 = |x: &$afq2| {
                    let c: Vec<String> = x
                        .to_base_prime_field_elements()
                        .map(|e| e.to_string())
                        .collect();
                    [c[0].clone(), c[1].clone()]
                };
                let fq6 = |x: &$afq6| [fq2(&x.c0), fq2(&x.c1), fq2(&x.c2)];
                [fq6(&f.c0), fq6(&f.c1)]
            }
        }
    };
}

pairing_curve!(
    Bn254,
    "BN254 (alt_bn128, snarkjs' `bn128`).",
    "bn128",
    fastzk_field::bn254::Fr,
    bn254::G1Config,
    bn254::G2Config,
    ark_bn254::Bn254,
    ark_bn254::g1::Config,
    ark_bn254::g2::Config,
    ark_bn254::Fq2,
    ark_bn254::Fq6
);
pairing_curve!(
    Bls12_381,
    "BLS12-381 (snarkjs' `bls12381`).",
    "bls12381",
    fastzk_field::bls12_381::Fr,
    bls::G1Config,
    bls::G2Config,
    ark_bls12_381::Bls12_381,
    ark_bls12_381::g1::Config,
    ark_bls12_381::g2::Config,
    ark_bls12_381::Fq2,
    ark_bls12_381::Fq6
);
