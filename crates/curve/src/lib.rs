//! Short-Weierstrass curve arithmetic (`y^2 = x^3 + b`) for the fastzk prover.
//!
//! Points come in three forms: [`Affine`] (storage, inputs to mixed addition and
//! batch affine addition), [`Jacobian`] (general-purpose accumulator) and
//! [`Xyzz`] (cheapest mixed addition, the form MSM buckets accumulate in).
//! Concrete groups live in [`bn254`] and [`bls12_381`].

pub mod affine;
#[cfg(feature = "ark")]
pub mod ark;
pub mod batch;
pub mod bls12_381;
pub mod bn254;
pub mod config;
pub mod error;
pub mod fixed_base;
pub mod glv;
pub mod jacobian;
mod ops;
pub mod scalar_mul;
pub mod serialize;
pub mod subgroup;
pub mod validate;
pub mod xyzz;

pub use affine::Affine;
pub use batch::{
    batch_add_affine, batch_add_affine_assign, batch_normalize, batch_normalize_xyzz, random_points,
};
pub use config::CurveConfig;
pub use error::CurveError;
pub use fixed_base::FixedBase;
pub use glv::Glv;
pub use jacobian::Jacobian;
pub use xyzz::Xyzz;
