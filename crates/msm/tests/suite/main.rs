//! The MSM integration tests (the IFMA trials are `tests/ifma.rs`, a harness of their own).
//! (One test binary per crate: each file below was its own, and each re-compiled the
//! generic provers and engines it uses; together they compile once. Run one module with
//! `cargo test --release -p fastzk-msm --test suite MODULE::`.)

mod conformance;
mod engines;
mod membership;
