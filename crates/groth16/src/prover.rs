//! The prover, step for step as snarkjs' `groth16 prove` (so its zkeys work here).

use std::time::Duration;

use crate::{Fr, PairingCurve, Proof, ProveError, ProvingKey};

/// Knobs for [`prove_with`].
#[derive(Clone, Debug, Default)]
pub struct ProveOptions {
    /// Check every constraint of this R1CS before proving (names the first failing one).
    pub r1cs: Option<std::sync::Arc<fastzk_r1cs::R1cs<()>>>,
}

/// Wall-clock time per phase.
#[derive(Clone, Debug, Default)]
pub struct ProveTimings {
    pub phases: Vec<(&'static str, Duration)>,
}

/// Proves with randomness from the OS CSPRNG.
pub fn prove<E: PairingCurve>(pk: &ProvingKey<E>, witness: &[Fr<E>]) -> Result<Proof<E>, ProveError> {
    let _ = (pk, witness);
    unimplemented!()
}

/// [`prove`] with options, reporting timings.
pub fn prove_with<E: PairingCurve>(
    pk: &ProvingKey<E>,
    witness: &[Fr<E>],
    _opts: &ProveOptions,
) -> Result<(Proof<E>, ProveTimings), ProveError> {
    let _ = (pk, witness);
    unimplemented!()
}
