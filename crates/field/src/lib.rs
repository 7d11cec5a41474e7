//! Finite fields for fastzk.
//!
//! * [`Fp`]: prime fields in Montgomery form with little-endian u64 limbs and
//!   `R = 2^(64·N)` — byte-compatible with arkworks and snarkjs. Multiplication uses
//!   MULX/ADCX/ADOX assembly when the CPU has BMI2 and ADX, and a portable no-carry
//!   CIOS otherwise (`mont/`).
//! * [`bn254`] and [`bls12_381`]: `Fr`, `Fq`, `Fq2`.
//! * [`Goldilocks`] (canonical u64), [`GoldilocksExt2`], and packed Goldilocks lanes
//!   ([`goldilocks::packed`]: AVX-512 / AVX2 / scalar).
//! * [`ifma`]: eight-lane Montgomery arithmetic on AVX-512 IFMA, and the lane field
//!   types the MSM flush computes with ([`ifma::lanes`]).
//! * [`NttField`]: the NTT butterflies as a capability of the field (lazy radix-4 for
//!   Montgomery fields with two spare bits, packed lanes for Goldilocks).
//! * [`cpu`]: what this CPU offers and the switches that turn each fast path off.
//! * [`batch_inverse`], and with the `ark` feature conversions to arkworks 0.5 types.

pub mod batch;
#[doc(hidden)]
pub mod bigint;
pub mod cpu;
pub mod goldilocks;
pub mod ifma;
mod instances;
mod mont;
pub mod ntt;
mod ops;
mod quad;
mod sqrt;
mod traits;

#[cfg(feature = "ark")]
pub mod ark;

pub use batch::{batch_inverse, batch_inverse_with_scratch};
pub use goldilocks::{
    sum_of_ext3_base_products, sum_of_ext3_products, Goldilocks, GoldilocksExt2,
    GoldilocksExt2Config, GoldilocksExt3,
};
pub use instances::*;
pub use mont::{Fp, MinusOneExt, MontConfig, MontTable};
pub use ntt::NttField;
pub use quad::{QuadExt, QuadExtConfig};
pub use traits::{
    ChordArith, ExtensionField, Field, FieldError, Legendre, LengthMismatch, NormInverse,
    PrimeField,
};
