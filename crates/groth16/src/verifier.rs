//! Verification: `e(−A, B) · e(α, β) · e(Σ xᵢ·ICᵢ, γ) · e(C, δ) = 1`, one multi-pairing.

use fastzk_curve::Jacobian;

use crate::{Fr, PairingCurve, Proof, VerifyingKey};

/// Why a proof could not be checked (an invalid proof is `Ok(false)`, not an error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("{got} public inputs given, the verification key expects {expected}")]
    PublicInputCount { expected: usize, got: usize },
}

/// Checks `proof` for the public inputs `public` (without the leading constant one).
///
/// Points are assumed valid (on the curve, in the subgroup): the readers check them.
pub fn verify<E: PairingCurve>(
    vk: &VerifyingKey<E>,
    public: &[Fr<E>],
    proof: &Proof<E>,
) -> Result<bool, VerifyError> {
    if public.len() != vk.n_public() {
        return Err(VerifyError::PublicInputCount {
            expected: vk.n_public(),
            got: public.len(),
        });
    }
    let mut acc = Jacobian::from(vk.ic[0]);
    for (x, p) in public.iter().zip(&vk.ic[1..]) {
        acc += &p.mul(x);
    }
    let pairs = [
        (-proof.a, proof.b),
        (vk.alpha_g1, vk.beta_g2),
        (acc.to_affine(), vk.gamma_g2),
        (proof.c, vk.delta_g2),
    ];
    Ok(E::pairing_product_is_one(&pairs))
}
