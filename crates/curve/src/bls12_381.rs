//! BLS12-381 G1 and G2, with the same generators as arkworks / the IETF drafts.

use std::sync::OnceLock;

use fastzk_field::bls12_381::{Fq, Fq2, Fq2Config, Fr};
use fastzk_field::{ExtensionField, Field, PrimeField};
use num_bigint::BigUint;

use crate::affine::Affine;
use crate::config::CurveConfig;
use crate::glv::Glv;
use crate::subgroup::{jacobian_eq_affine, mul_by_digits, mul_by_digits_jacobian, Naf, Psi};

/// `|x|` for the BLS parameter `x = −0xd201000000010000`: `r = x⁴ − x² + 1`,
/// `q = (x − 1)²·r/3 + x`, trace `t = x + 1`.
pub const X_ABS: u64 = 0xd201_0000_0001_0000;
/// The BLS parameter is negative.
pub const X_IS_NEGATIVE: bool = true;

/// Signed-digit recoding of [`X_ABS`] (weight 6) for the subgroup tests.
const X_DIGITS: Naf = Naf::new(X_ABS);

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
    // (x − 1)²/3
    const COFACTOR: &'static [u64] =
        &fastzk_field::bigint::from_hex::<2>("0x396c8c005555e1568c00aaab0000aaab");

    /// Scott (2021): `P ∈ G1` iff `σ(P) = [−x²]P`, with `σ(x, y) = (β·x, y)` for the
    /// cube root of unity `β` whose eigenvalue on G1 is `−x² (mod r)`
    /// ([`G1Config::subgroup_beta`]).
    ///
    /// `σ + [x²]` is a nonzero endomorphism of norm `x⁴ − x² + 1 = r` in `Z[σ]`
    /// (`σ² + σ + 1 = 0`), so its kernel has at most `r` points, and it contains the
    /// order-`r` group G1: the kernel *is* G1, whatever the cofactor. `[x²]P` is two
    /// 64-bit chains of weight 6 (`x² = |x|·|x|`).
    fn is_in_correct_subgroup(p: &Affine<Self>) -> bool {
        if p.infinity {
            return true;
        }
        let beta = Self::subgroup_beta();
        let x2p = mul_by_digits_jacobian(&mul_by_digits(p, &X_DIGITS), &X_DIGITS);
        // [x²]P = −σ(P) = (β·x, −y).
        jacobian_eq_affine(&x2p, &Affine::new_unchecked(p.x * beta, -p.y))
    }

    fn glv() -> Option<&'static Glv<Self>> {
        static GLV: OnceLock<Option<Glv<G1Config>>> = OnceLock::new();
        GLV.get_or_init(Glv::derive).as_ref()
    }
}

impl G1Config {
    /// The primitive cube root of unity `β ∈ Fq` for which `σ(x, y) = (β·x, y)` acts on
    /// G1 as `[−x²]`: the GLV `β` if its eigenvalue `λ` is `−x² mod r`, else `β²` (then
    /// `λ = x² − 1`, the other cube root of unity, and `σ² = [λ²] = [−x²]`).
    pub fn subgroup_beta() -> Fq {
        static BETA: OnceLock<Fq> = OnceLock::new();
        *BETA.get_or_init(|| {
            let glv = Self::glv().expect("BLS12-381 G1 has a GLV endomorphism");
            let r = Fr::modulus();
            let x2 = BigUint::from(X_ABS) * BigUint::from(X_ABS);
            let minus_x2 = &r - &x2;
            if glv.lambda == minus_x2 {
                glv.beta
            } else {
                assert_eq!(
                    glv.lambda,
                    &x2 - 1u32,
                    "GLV eigenvalue is a cube root of unity"
                );
                glv.beta.square()
            }
        })
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
    // (x⁸ − 4x⁷ + 5x⁶ − 4x⁴ + 6x³ − 4x² − 4x + 13)/9
    const COFACTOR: &'static [u64] = &fastzk_field::bigint::from_hex::<8>(
        "0x05d543a95414e7f1091d50792876a202cd91de4547085abaa68a205b2e5a7ddfa628f1cb4d9e82ef21537e293a6691ae1616ec6e786f0c70cf1c38e31c7238e5",
    );

    /// Scott (2021): `P ∈ G2` iff `ψ(P) = [x]P`, i.e. `[|x|]P = −ψ(P)` as `x < 0`.
    ///
    /// On G2, `ψ` acts as `[q] = [x] (mod r)`. `ψ − [x]` has norm `x² − t·x + q = q − x =
    /// h1·r` (with `h1 = (x − 1)²/3` the G1 cofactor), while `#E'(Fq2) = h2·r` and
    /// `gcd(h1, h2) = 1`: the points of `E'(Fq2)` in the kernel form a group of order
    /// dividing `r`, i.e. exactly G2. One 64-bit chain of weight 6.
    fn is_in_correct_subgroup(p: &Affine<Self>) -> bool {
        if p.infinity {
            return true;
        }
        let xp = mul_by_digits(p, &X_DIGITS);
        let minus_psi = -Self::psi().apply(p);
        jacobian_eq_affine(&xp, &minus_psi)
    }

    /// `(x, y) ↦ (β·x, y)` with β a cube root of unity of `Fq`: the twist has `j = 0`.
    fn glv() -> Option<&'static Glv<Self>> {
        static GLV: OnceLock<Option<Glv<G2Config>>> = OnceLock::new();
        GLV.get_or_init(|| Glv::derive_over::<Fq>(Fq2::from_base))
            .as_ref()
    }
}

impl G2Config {
    /// The untwist–Frobenius–twist endomorphism of the M-twist, derived from `b = 4`
    /// and `b' = 4(1+u)` (see [`Psi::derive`]); acts on G2 as `[x]`.
    pub fn psi() -> &'static Psi<Fq2Config> {
        static PSI: OnceLock<Psi<Fq2Config>> = OnceLock::new();
        PSI.get_or_init(|| Psi::derive(G1Config::COEFF_B, Self::COEFF_B))
    }
}

crate::config::pairing_group_types!(Zcash, ark_bls12_381);
