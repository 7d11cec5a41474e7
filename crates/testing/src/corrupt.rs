//! Corrupted files: every reader of an iden3 container (`.r1cs`, `.wtns`, `.ptau`,
//! `.zkey`) must return an error naming the problem for truncations, flipped bytes, lying
//! lengths, duplicate, missing and unknown sections, and random mutations, and never
//! panic. The readers come as a closure `parse(kind, bytes)`, so every crate with a
//! reader runs the same checks on its own fixtures.

use std::fmt::Display;

use fastzk_formats::binfile::{BinFile, BinWriter, Section};
use proptest::prelude::*;

use crate::check;

/// A fixture to corrupt: its kind (passed to the reader) and its bytes.
pub type Fixture = (&'static str, Vec<u8>);

/// The section `id` of a container.
pub fn section(bytes: &[u8], magic: &[u8; 4], id: u32) -> Section {
    let f = BinFile::parse(bytes, magic, "test").expect("valid fixture");
    *f.table.find(id).expect("section present")
}

/// Offset of the u64 size field of a section's header.
pub fn size_field(bytes: &[u8], magic: &[u8; 4], id: u32) -> usize {
    section(bytes, magic, id).offset as usize - 8
}

/// Rebuilds a container, letting `edit` change, drop (`None`) or keep each section.
pub fn rebuild(
    b: &[u8],
    magic: &[u8; 4],
    mut edit: impl FnMut(u32, &[u8]) -> Option<Vec<u8>>,
) -> Vec<u8> {
    let f = BinFile::parse(b, magic, "orig").expect("valid fixture");
    let mut w = BinWriter::new(magic, f.table.version);
    for s in &f.table.sections {
        if let Some(c) = edit(s.id, f.section(s.id).expect("listed section")) {
            w.raw_section(s.id, &c);
        }
    }
    w.finish()
}

/// The error of `r`, which must mention `needle` and name a file starting with `t.`.
pub fn expect_err<T, E: Display>(r: Result<T, E>, needle: &str) -> E {
    let Err(e) = r else {
        panic!("expected an error mentioning {needle:?}");
    };
    let msg = e.to_string();
    assert!(msg.contains(needle), "{msg:?} should mention {needle:?}");
    assert!(msg.starts_with("t."), "{msg:?} should name the file");
    e
}

/// The fixtures parse.
pub fn fixtures_parse<E: Display>(files: &[Fixture], parse: impl Fn(&str, &[u8]) -> Result<(), E>) {
    for (kind, b) in files {
        if let Err(e) = parse(kind, b) {
            panic!("{kind}: {e}");
        }
    }
}

/// Every truncation (every `step`-th for files over 20 KB) and one extra byte are errors.
pub fn every_truncation_is_an_error<E>(
    files: &[Fixture],
    parse: impl Fn(&str, &[u8]) -> Result<(), E>,
) {
    for (kind, b) in files {
        let step = if b.len() > 20_000 { 7 } else { 1 };
        for len in (0..b.len()).step_by(step) {
            assert!(
                parse(kind, &b[..len]).is_err(),
                "{kind} truncated to {len} parsed"
            );
        }
        let mut longer = b.clone();
        longer.push(0);
        assert!(
            parse(kind, &longer).is_err(),
            "{kind} with a trailing byte parsed"
        );
    }
}

/// Where [`flipped_bytes_never_panic`] flips: every byte of the file header, of each
/// section's header and of the first [`EVERY_BYTE_OF`] bytes of each section's content
/// (where counts, sizes and field widths live); elsewhere every 13th byte (a prime, so
/// that every offset within the fixed-width elements gets its turn).
fn flip_positions(b: &[u8]) -> Vec<usize> {
    let magic: [u8; 4] = b[..4].try_into().expect("4-byte magic");
    let f = BinFile::parse(b, &magic, "orig").expect("valid fixture");
    let mut dense = vec![false; b.len()];
    dense[..12].fill(true);
    for s in &f.table.sections {
        let start = s.offset as usize - 12;
        let end = (s.offset + s.size.min(EVERY_BYTE_OF)) as usize;
        dense[start..end].fill(true);
    }
    (0..b.len()).filter(|&i| dense[i] || i % 13 == 0).collect()
}

/// How much of each section's content [`flipped_bytes_never_panic`] flips byte by byte.
const EVERY_BYTE_OF: u64 = 128;

/// Flipping one bit, the top bit or a whole byte (see [`flip_positions`] for where): an
/// answer, never a panic.
pub fn flipped_bytes_never_panic<E>(
    files: &[Fixture],
    parse: impl Fn(&str, &[u8]) -> Result<(), E>,
) {
    for (kind, b) in files {
        for i in flip_positions(b) {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut m = b.clone();
                m[i] ^= mask;
                // Either answer is fine; reaching here means no panic.
                drop(parse(kind, &m));
            }
        }
    }
}

/// The container's own errors: magic, version, a section longer than the file, more
/// sections than present.
pub fn container_errors<E: Display>(
    files: &[Fixture],
    parse: impl Fn(&str, &[u8]) -> Result<(), E>,
) {
    for (kind, b) in files {
        let mut m = b.clone();
        m[0] = b'x';
        expect_err(parse(kind, &m), "wrong magic");
        let mut m = b.clone();
        m[4] = 9;
        expect_err(parse(kind, &m), "unsupported version 9");
        let mut m = b.clone();
        m[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        expect_err(parse(kind, &m), "file ends early");
        let mut m = b.clone();
        m[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        expect_err(parse(kind, &m), "file ends early");
    }
}

/// A duplicated section is an error; a missing required one is an error (`optional`
/// says which may go); an unknown one is skipped.
pub fn duplicate_and_missing_sections<E: Display>(
    files: &[Fixture],
    optional: impl Fn(&str, u32) -> bool,
    parse: impl Fn(&str, &[u8]) -> Result<(), E>,
) {
    for (kind, b) in files {
        let magic: [u8; 4] = b[..4].try_into().expect("magic");
        let f = BinFile::parse(b, &magic, "orig").expect("valid fixture");
        let s0 = f.table.sections[0];
        let mut w = BinWriter::new(&magic, f.table.version);
        for s in &f.table.sections {
            w.raw_section(s.id, f.section(s.id).expect("listed"));
        }
        w.raw_section(s0.id, f.section(s0.id).expect("listed"));
        expect_err(parse(kind, &w.finish()), "appears more than once");
        for s in &f.table.sections {
            if optional(kind, s.id) {
                continue;
            }
            let m = rebuild(b, &magic, |id, c| (id != s.id).then(|| c.to_vec()));
            assert!(
                parse(kind, &m).is_err(),
                "{kind} without section {} parsed",
                s.id
            );
        }
        let mut w = BinWriter::new(&magic, f.table.version);
        for s in &f.table.sections {
            w.raw_section(s.id, f.section(s.id).expect("listed"));
        }
        w.raw_section(99, b"whatever");
        if let Err(e) = parse(kind, &w.finish()) {
            panic!("{kind} with an unknown section: {e}");
        }
    }
}

/// Random truncation plus random byte changes (`sniff` also sees the bytes): the
/// readers return, never panic.
pub fn mutated_files_never_panic<E>(
    files: &[Fixture],
    parse: impl Fn(&str, &[u8]) -> Result<(), E>,
) {
    let strategy = (
        0..files.len(),
        any::<prop::sample::Index>(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
    );
    check(300, None, strategy, |(which, cut, edits)| {
        let (kind, b) = &files[which];
        let mut b = b.clone();
        for (at, v) in edits {
            let i = at.index(b.len());
            b[i] = v;
        }
        let len = cut.index(b.len() + 1);
        drop(parse(kind, &b[..len]));
        drop(fastzk_formats::sniff_curve(&b[..len], "t"));
        Ok(())
    });
}

/// Changes confined to the headers and section tables, where lengths live.
pub fn mutated_headers_never_panic<E>(
    files: &[Fixture],
    parse: impl Fn(&str, &[u8]) -> Result<(), E>,
) {
    let strategy = (
        0..files.len(),
        prop::collection::vec((0usize..200, any::<u8>()), 1..6),
    );
    check(300, None, strategy, |(which, edits)| {
        let (kind, b) = &files[which];
        let mut b = b.clone();
        for (at, v) in edits {
            let i = at % b.len();
            b[i] = v;
        }
        drop(parse(kind, &b));
        Ok(())
    });
}

/// The container suite for the readers `parse` over `fixtures()` (an expression giving
/// a `Vec<Fixture>`), with `optional(kind, id)` the sections a file may lack.
#[macro_export]
macro_rules! container_tests {
    ($fixtures:expr, $parse:expr, optional: $optional:expr) => {
        #[test]
        fn fixtures_parse() {
            $crate::corrupt::fixtures_parse(&$fixtures, $parse);
        }
        #[test]
        fn every_truncation_is_an_error() {
            $crate::corrupt::every_truncation_is_an_error(&$fixtures, $parse);
        }
        #[test]
        fn flipped_bytes_never_panic() {
            $crate::corrupt::flipped_bytes_never_panic(&$fixtures, $parse);
        }
        #[test]
        fn container_errors() {
            $crate::corrupt::container_errors(&$fixtures, $parse);
        }
        #[test]
        fn duplicate_and_missing_sections() {
            $crate::corrupt::duplicate_and_missing_sections(&$fixtures, $optional, $parse);
        }
        #[test]
        fn mutated_files_never_panic() {
            $crate::corrupt::mutated_files_never_panic(&$fixtures, $parse);
        }
        #[test]
        fn mutated_headers_never_panic() {
            $crate::corrupt::mutated_headers_never_panic(&$fixtures, $parse);
        }
    };
}
