//! Benchmarks live in `benches/`; figures and commands are in `BENCHMARKS.md`.

/// Compiles and runs the README's Rust example as a doctest, so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
