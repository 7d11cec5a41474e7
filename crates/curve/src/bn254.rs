//! BN254 (alt_bn128) G1 and G2, with the same generators as arkworks / EIP-197.

use std::sync::OnceLock;

use fastzk_field::bn254::{Fq, Fq2, Fq2Config, Fr};
use fastzk_field::ExtensionField;

use crate::affine::Affine;
use crate::config::CurveConfig;
use crate::glv::Glv;
use crate::subgroup::{mul_by_digits, Naf, Psi};

/// The BN parameter `x` (often called `u` or `z`): `q = 36x⁴ + 36x³ + 24x² + 6x + 1`,
/// `r = 36x⁴ + 36x³ + 18x² + 6x + 1`, trace `t = 6x² + 1`.
pub const X: u64 = 4_965_661_367_192_848_881;

/// Signed-digit recoding of [`X`] for the subgroup test's fixed addition chain.
const X_DIGITS: Naf = Naf::new(X);

/// `y^2 = x^3 + 3` over `Fq`; prime order `r` (cofactor 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct G1Config;

impl CurveConfig for G1Config {
    type Base = Fq;
    type Scalar = Fr;
    const NAME: &'static str = "BN254 G1";
    const COEFF_B: Fq = Fq::from_canonical_limbs_const([3, 0, 0, 0]);
    const GENERATOR_X: Fq = Fq::from_canonical_limbs_const([1, 0, 0, 0]);
    const GENERATOR_Y: Fq = Fq::from_canonical_limbs_const([2, 0, 0, 0]);
    const COFACTOR: &'static [u64] = &[1];

    /// Cofactor 1: every on-curve point is in the group.
    fn is_in_correct_subgroup(_p: &Affine<Self>) -> bool {
        true
    }

    fn glv() -> Option<&'static Glv<Self>> {
        static GLV: OnceLock<Option<Glv<G1Config>>> = OnceLock::new();
        GLV.get_or_init(Glv::derive).as_ref()
    }
}

/// The sextic twist `y^2 = x^3 + 3/(9+u)` over `Fq2`; cofactor `2q − r`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct G2Config;

impl CurveConfig for G2Config {
    type Base = Fq2;
    type Scalar = Fr;
    const NAME: &'static str = "BN254 G2";
    const COEFF_B: Fq2 = Fq2::new(
        Fq::from_hex("2b149d40ceb8aaae81be18991be06ac3b5b4c5e559dbefa33267e6dc24a138e5"),
        Fq::from_hex("009713b03af0fed4cd2cafadeed8fdf4a74fa084e52d1852e4a2bd0685c315d2"),
    );
    const GENERATOR_X: Fq2 = Fq2::new(
        Fq::from_hex("1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed"),
        Fq::from_hex("198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2"),
    );
    const GENERATOR_Y: Fq2 = Fq2::new(
        Fq::from_hex("12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"),
        Fq::from_hex("090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b"),
    );
    // 2q − r
    const COFACTOR: &'static [u64] = &fastzk_field::bigint::from_hex::<4>(
        "0x30644e72e131a029b85045b68181585e06ceecda572a2489345f2299c0f9fa8d",
    );

    /// El Housni–Guillevic–Piellard (2022): `P ∈ G2` iff
    /// `[x+1]P + ψ([x]P) + ψ²([x]P) = ψ³([2x]P)`.
    ///
    /// The endomorphism `α = (x+1) + xψ + xψ² − 2xψ³` kills G2, where `ψ` acts as
    /// `[q] = [6x²] (mod r)`. Reduced modulo `ψ² − tψ + q` its norm is `r·m` with
    /// `gcd(m, 2q − r) = 1`, and `#E'(Fq2) = r·(2q − r)`; so the points of `E'(Fq2)` in
    /// `ker α` form a group of order dividing `r`: exactly G2. One 63-bit chain for `[x]P`
    /// plus four cheap `ψ` applications, instead of a 254-bit multiplication by `r`.
    fn is_in_correct_subgroup(p: &Affine<Self>) -> bool {
        if p.infinity {
            return true;
        }
        let psi = Self::psi();
        let xp = mul_by_digits(p, &X_DIGITS);
        let psi_xp = psi.apply_jacobian(&xp);
        let lhs = xp.add_affine(p) + psi_xp + psi.apply_jacobian(&psi_xp);
        let rhs = psi.apply_jacobian(&psi.apply_jacobian(&psi_xp.double()));
        lhs == rhs
    }

    /// `(x, y) ↦ (β·x, y)` with β a cube root of unity of `Fq`: the twist has `j = 0`.
    fn glv() -> Option<&'static Glv<Self>> {
        static GLV: OnceLock<Option<Glv<G2Config>>> = OnceLock::new();
        GLV.get_or_init(|| Glv::derive_over::<Fq>(Fq2::from_base))
            .as_ref()
    }
}

impl G2Config {
    /// The untwist–Frobenius–twist endomorphism of the D-twist, derived from
    /// `b = 3` and `b' = 3/(9+u)` (see [`Psi::derive`]); acts on G2 as `[6x²]`.
    pub fn psi() -> &'static Psi<Fq2Config> {
        static PSI: OnceLock<Psi<Fq2Config>> = OnceLock::new();
        PSI.get_or_init(|| Psi::derive(G1Config::COEFF_B, Self::COEFF_B))
    }
}

crate::config::pairing_group_types!(SwFlags, ark_bn254);
