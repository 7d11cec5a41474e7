//! Files made by circom, snarkjs and ffjavascript that the readers and provers are
//! tested against (`crates/testing/data`; its README says how each was made).

use std::path::PathBuf;

/// Path of a fixture, relative to `crates/testing/data`.
pub fn path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(rel)
}

/// A fixture's bytes.
pub fn bytes(rel: &str) -> Vec<u8> {
    std::fs::read(path(rel)).unwrap_or_else(|e| panic!("fixture {rel}: {e}"))
}

/// A fixture's text.
pub fn text(rel: &str) -> String {
    std::fs::read_to_string(path(rel)).unwrap_or_else(|e| panic!("fixture {rel}: {e}"))
}
