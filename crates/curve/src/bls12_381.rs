//! BLS12-381 G1 and G2, with the same generators as arkworks / the IETF drafts.

use std::sync::OnceLock;

use fastzk_field::bls12_381::{Fq, Fq2, Fr};

use crate::affine::Affine;
use crate::config::CurveConfig;
use crate::glv::Glv;
use crate::jacobian::Jacobian;
use crate::xyzz::Xyzz;

/// `y^2 = x^3 + 4` over `Fq`; cofactor `(x−1)^2/3` for the BLS parameter `x`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct G1Config;

impl CurveConfig for G1Config {
    type Base = Fq;
    type Scalar = Fr;
    const NAME: &'static str = "BLS12-381 G1";
    const COEFF_B: Fq = Fq::from_canonical_limbs_const([4, 0, 0, 0, 0, 0]);
    const GENERATOR_X: Fq = Fq::from_hex(
        "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb",
    );
    const GENERATOR_Y: Fq = Fq::from_hex(
        "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1",
    );
    // 0x396c8c005555e1568c00aaab0000aaab
    const COFACTOR: &'static [u64] = &[0x8c00aaab0000aaab, 0x396c8c005555e156];

    fn glv() -> Option<&'static Glv<Self>> {
        static GLV: OnceLock<Option<Glv<G1Config>>> = OnceLock::new();
        GLV.get_or_init(Glv::derive).as_ref()
    }
}

/// The M-twist `y^2 = x^3 + 4(1+u)` over `Fq2`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct G2Config;

impl CurveConfig for G2Config {
    type Base = Fq2;
    type Scalar = Fr;
    const NAME: &'static str = "BLS12-381 G2";
    const COEFF_B: Fq2 = Fq2::new(
        Fq::from_canonical_limbs_const([4, 0, 0, 0, 0, 0]),
        Fq::from_canonical_limbs_const([4, 0, 0, 0, 0, 0]),
    );
    const GENERATOR_X: Fq2 = Fq2::new(
        Fq::from_hex(
            "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
        ),
        Fq::from_hex(
            "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e",
        ),
    );
    const GENERATOR_Y: Fq2 = Fq2::new(
        Fq::from_hex(
            "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
        ),
        Fq::from_hex(
            "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be",
        ),
    );
    // 0x5d543a95414e7f1091d50792876a202cd91de4547085abaa68a205b2e5a7ddfa
    //   628f1cb4d9e82ef21537e293a6691ae1616ec6e786f0c70cf1c38e31c7238e5
    const COFACTOR: &'static [u64] = &[
        0xcf1c38e31c7238e5,
        0x1616ec6e786f0c70,
        0x21537e293a6691ae,
        0xa628f1cb4d9e82ef,
        0xa68a205b2e5a7ddf,
        0xcd91de4547085aba,
        0x091d50792876a202,
        0x05d543a95414e7f1,
    ];
}

pub type G1Affine = Affine<G1Config>;
pub type G1Projective = Jacobian<G1Config>;
pub type G1Jacobian = Jacobian<G1Config>;
pub type G1Xyzz = Xyzz<G1Config>;
pub type G2Affine = Affine<G2Config>;
pub type G2Projective = Jacobian<G2Config>;
pub type G2Jacobian = Jacobian<G2Config>;
pub type G2Xyzz = Xyzz<G2Config>;
