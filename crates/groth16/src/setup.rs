//! Development setups (not for production).

use fastzk_r1cs::R1cs;
use rand_core::{CryptoRng, RngCore};

use crate::{Fr, PairingCurve, ProvingKey};

/// Why a setup could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{0}")]
    Shape(String),
}

/// A local random setup: toxic waste drawn from `rng` and forgotten. **Not for
/// production**: whoever ran it could forge proofs if the randomness leaked.
pub fn setup_random<E: PairingCurve>(
    r1cs: &R1cs<Fr<E>>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<ProvingKey<E>, SetupError> {
    let _ = (r1cs, rng);
    unimplemented!()
}
