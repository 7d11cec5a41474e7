//! The Spartan integration tests.
//! (One test binary per crate: each file below was its own, and each re-compiled the
//! generic provers and engines it uses; together they compile once. Run one module with
//! `cargo test --release -p fastzk-spartan --test suite MODULE::`.)

mod format;
mod nizk;
mod snark;
