//! Shared by the fuzz targets: a structure-aware mutator for the iden3 container that
//! `.r1cs`, `.wtns`, `.zkey` and `.ptau` share (magic, version, then sections of
//! `u32 id`, `u64 length`, bytes). Byte flips rarely keep a section's length field
//! consistent with its contents, so most of their inputs stop at the container check;
//! this mutator usually mutates inside one section and rewrites the lengths, so the
//! parsers behind the container are reached. One time in four it leaves the structure
//! to libFuzzer's own mutations, so broken lengths stay covered too.

/// A parsed container: the 12-byte header (magic, version, section count) and the
/// sections (id, contents).
fn split(data: &[u8]) -> Option<(&[u8], Vec<(u32, &[u8])>)> {
    let header = data.get(..12)?;
    let count = u32::from_le_bytes(header[8..12].try_into().ok()?) as usize;
    let mut rest = &data[12..];
    let mut sections = Vec::new();
    while !rest.is_empty() {
        let id = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?);
        let len = u64::from_le_bytes(rest.get(4..12)?.try_into().ok()?);
        let len = usize::try_from(len).ok()?;
        let body = rest.get(12..12usize.checked_add(len)?)?;
        sections.push((id, body));
        rest = &rest[12 + len..];
    }
    (sections.len() == count).then_some((header, sections))
}

/// libFuzzer's custom-mutator entry for container formats.
pub fn mutate_container(data: &mut [u8], size: usize, max_size: usize, seed: u32) -> usize {
    let Some((header, sections)) = split(&data[..size]) else {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    };
    if sections.is_empty() || seed % 4 == 0 {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    }
    let pick = (seed / 4) as usize % sections.len();
    let (_, body) = sections[pick];
    // The section may grow into whatever room the whole input has left.
    let cap = max_size.saturating_sub(size - body.len()).max(body.len());
    if cap == 0 {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    }
    let mut buf = vec![0u8; cap];
    buf[..body.len()].copy_from_slice(body);
    let new_len = libfuzzer_sys::fuzzer_mutate(&mut buf, body.len(), cap);
    buf.truncate(new_len);

    let mut out = header.to_vec();
    for (k, (id, b)) in sections.iter().enumerate() {
        let b: &[u8] = if k == pick { &buf } else { b };
        out.extend_from_slice(&id.to_le_bytes());
        out.extend_from_slice(&(b.len() as u64).to_le_bytes());
        out.extend_from_slice(b);
    }
    if out.len() > max_size {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    }
    data[..out.len()].copy_from_slice(&out);
    out.len()
}

/// Declares the container mutator for a target.
#[macro_export]
macro_rules! container_mutator {
    () => {
        libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
            $crate::mutate_container(data, size, max_size, seed)
        });
    };
}
