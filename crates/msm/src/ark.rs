//! MSM over arkworks 0.5 slices (`ark` feature): the points and scalars are converted
//! limb-for-limb (same Montgomery form) and the result converted back.

use ark_ec::short_weierstrass::{Affine as ArkAffine, Projective as ArkProjective, SWCurveConfig};
use fastzk_curve::{Affine, Jacobian};

use crate::{msm, MsmCurve, MsmError};

/// `Σ scalars[i]·bases[i]` for arkworks affine points and scalars.
pub fn msm_ark<A, C>(
    bases: &[ArkAffine<A>],
    scalars: &[A::ScalarField],
) -> Result<ArkProjective<A>, MsmError>
where
    A: SWCurveConfig,
    C: MsmCurve,
    Affine<C>: From<ArkAffine<A>>,
    C::Scalar: From<A::ScalarField>,
    ArkProjective<A>: From<Jacobian<C>>,
{
    let pts: Vec<Affine<C>> = bases.iter().map(|p| Affine::from(*p)).collect();
    let ks: Vec<C::Scalar> = scalars.iter().map(|k| C::Scalar::from(*k)).collect();
    msm(&pts, &ks).map(ArkProjective::from)
}
