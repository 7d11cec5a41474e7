//! The Groth16 integration tests.
//! (One test binary per crate: each file below was its own, and each re-compiled the
//! generic provers and engines it uses; together they compile once. Run one module with
//! `cargo test --release -p fastzk-groth16 --test suite MODULE::`.)

mod bounded;
mod corruption;
mod distributed;
mod prove_verify;
mod roundtrip;
mod snarkjs_files;
