//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use fastzk_formats::binfile::{BinFile, Section};

/// Path of a fixture under `tests/data`.
pub fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

pub fn bytes(rel: &str) -> Vec<u8> {
    std::fs::read(data(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The section with this id in a container.
pub fn section(bytes: &[u8], magic: &[u8; 4], id: u32) -> Section {
    let f = BinFile::parse(bytes, magic, "test").expect("valid fixture");
    *f.table.find(id).expect("section present")
}

/// Offset of the u64 size field of a section's header.
pub fn size_field(bytes: &[u8], magic: &[u8; 4], id: u32) -> usize {
    section(bytes, magic, id).offset as usize - 8
}
