//! Finite fields for fastzk.
//!
//! * [`Fp`]: prime fields in Montgomery form with little-endian u64 limbs and
//!   `R = 2^(64·N)` — byte-compatible with arkworks and snarkjs. Multiplication uses
//!   MULX/ADCX/ADOX assembly when the CPU has BMI2 and ADX (detected at run time), and a
//!   portable no-carry CIOS otherwise.
//! * [`bn254`] and [`bls12_381`]: `Fr`, `Fq`, `Fq2`.
//! * [`Goldilocks`] (canonical u64) and [`GoldilocksExt2`].
//! * [`batch_inverse`], and with the `ark` feature conversions to arkworks 0.5 types.

pub mod batch;
#[doc(hidden)]
pub mod bigint;
mod goldilocks;
#[cfg(target_arch = "x86_64")]
pub mod ifma;
mod instances;
mod mont;
#[cfg(target_arch = "x86_64")]
mod mont_x86;
pub mod packed;
mod quad;
mod sqrt;
mod traits;

#[cfg(feature = "ark")]
pub mod ark;

pub use batch::{batch_inverse, batch_inverse_with_scratch};
pub use goldilocks::{Goldilocks, GoldilocksExt2, GoldilocksExt2Config};
pub use instances::{bls12_381, bn254};
pub use mont::{uses_adx, Fp, MontConfig, MontTable};
pub use quad::{QuadExt, QuadExtConfig};
pub use traits::{ExtensionField, Field, FieldError, Legendre, PrimeField};
