//! One module per command.

pub mod bench_layer;
pub mod bench_msm;
pub mod bench_ntt;
pub mod demo;
pub mod gpu;
pub mod groth16;
pub mod info;
pub mod plonk;
pub mod protocol;
pub mod r1cs;
pub mod selftest;
pub mod spartan;
pub mod witness;
