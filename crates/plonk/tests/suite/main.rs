//! The Plonk integration tests.
//! (One test binary per crate: each file below was its own, and each re-compiled the
//! generic provers and engines it uses; together they compile once. Run one module with
//! `cargo test --release -p fastzk-plonk --test suite MODULE::`.)

mod corruption;
mod lean;
mod public_inputs;
mod snarkjs_files;
