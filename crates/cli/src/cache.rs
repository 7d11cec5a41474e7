//! What fastzk remembers between runs, in `$FASTZK_CACHE_DIR` (default
//! `$XDG_CACHE_HOME/fastzk` or `~/.cache/fastzk`; `FASTZK_NO_CACHE=1` turns it off):
//!
//! * **MSM calibration.** The planner's unit costs are measured on first use (tens of
//!   milliseconds per group, a visible share of a small proof); they are kept per CPU
//!   model and fastzk version, like FFTW's wisdom.
//! * **Validated keys.** A proving key whose points all passed the prime-order subgroup
//!   check is remembered by the BLAKE3 hash of its bytes, so proving again with the
//!   identical file skips only that check (on-curve checks always run). Any change to the
//!   file changes the hash and the key is checked again in full.
//! * **Compiled witness generators.** circom's `.wasm`, compiled to machine code by
//!   wasmtime (seconds for a large circuit), by the BLAKE3 hash of the module and
//!   wasmtime's compatibility tag. The folder must be writable by this user only, as for
//!   any cache of compiled code.
//!
//! The cache is an optimisation only: when it cannot be read or written, fastzk does the
//! work again and says nothing.

use std::path::{Path, PathBuf};

use fastzk_msm::{planner, Calibration, MsmCurve};

fn dir() -> Option<PathBuf> {
    if std::env::var_os("FASTZK_NO_CACHE").is_some_and(|v| v != "0") {
        return None;
    }
    if let Some(d) = std::env::var_os("FASTZK_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("fastzk"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("fastzk"))
}

/// A short stable name for this CPU and build: calibrations do not travel.
fn machine_key() -> String {
    let model = fastzk_field::cpu::model().unwrap_or_default();
    let ifma = fastzk_field::cpu::Capability::Ifma.enabled();
    let fma = fastzk_field::cpu::Capability::Fma.enabled();
    let h = blake3::hash(
        format!(
            "{model}|ifma={ifma}|fma={fma}|{}",
            env!("CARGO_PKG_VERSION")
        )
        .as_bytes(),
    );
    h.to_hex()[..16].to_string()
}

fn calibration_path<C: MsmCurve>() -> Option<PathBuf> {
    let name: String = C::NAME
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    dir().map(|d| d.join(format!("calibration-{}-{name}.txt", machine_key())))
}

/// Lines of a calibration file: nine costs and `end`. Files of other lengths (older
/// versions held the cache model's penalty, or lacked the scalar flush's segmented
/// reduction) are measured again.
const FIELDS: usize = 10;

fn encode(c: &Calibration) -> String {
    let opt = |o: Option<f64>| o.map_or("none".to_string(), |v| v.to_string());
    [
        c.batch_add_ns.to_string(),
        opt(c.simd_batch_add_ns),
        c.flush_ns.to_string(),
        c.simd_flush_ns.to_string(),
        c.reduce_step_ns.to_string(),
        opt(c.simd_reduce_step_ns),
        c.glv_ns.to_string(),
        c.inverse_ns.to_string(),
        c.segmented_reduce_step_ns.to_string(),
        "end".to_string(),
    ]
    .join("\n")
}

fn decode(s: &str) -> Option<Calibration> {
    let v: Vec<&str> = s.lines().collect();
    if v.len() != FIELDS || v[FIELDS - 1] != "end" {
        return None;
    }
    let f = |i: usize| {
        v[i].parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
    };
    let opt = |i: usize| {
        if v[i] == "none" {
            Some(None)
        } else {
            f(i).map(Some)
        }
    };
    Some(Calibration {
        batch_add_ns: f(0)?,
        simd_batch_add_ns: opt(1)?,
        flush_ns: f(2)?,
        simd_flush_ns: f(3)?,
        reduce_step_ns: f(4)?,
        simd_reduce_step_ns: opt(5)?,
        glv_ns: f(6)?,
        inverse_ns: f(7)?,
        segmented_reduce_step_ns: f(8)?,
    })
}

/// Loads `C`'s calibration from the cache, or measures it and stores it.
pub fn load_or_measure_calibration<C: MsmCurve>() {
    let Some(path) = calibration_path::<C>() else {
        return;
    };
    if let Some(c) = std::fs::read_to_string(&path).ok().and_then(|s| decode(&s)) {
        planner::set_calibration::<C>(c);
        return;
    }
    let c = planner::calibration::<C>();
    remember(&path, encode(&c).as_bytes());
}

/// Writes `bytes` to `path` through a temporary file (readers never see half a file),
/// creating the folder. Best effort: the cache is an optimisation, so a failed write
/// only means the work is done again next time.
fn remember(path: &Path, bytes: &[u8]) {
    let write = || -> std::io::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, path)
    };
    if write().is_err() {
        // Nothing to do: see above.
    }
}

/// The path that marks a key with this content hash as fully validated.
fn validated_path(hash: &blake3::Hash) -> Option<PathBuf> {
    dir().map(|d| d.join("validated-keys").join(hash.to_hex().as_str()))
}

/// BLAKE3 of a file's bytes (multithreaded).
pub fn content_hash(bytes: &[u8]) -> blake3::Hash {
    content_hash_releasing(bytes, &|_| {})
}

/// [`content_hash`] a piece at a time, each piece given to `release` once hashed (the
/// bounded prover drops a mapped key's pages behind it). The same hash.
pub fn content_hash_releasing(bytes: &[u8], release: &dyn Fn(&[u8])) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    for piece in bytes.chunks(64 << 20) {
        h.update_rayon(piece);
        release(piece);
    }
    h.finalize()
}

/// Whether a key with this hash passed the full check before.
pub fn is_validated(hash: &blake3::Hash) -> bool {
    validated_path(hash).is_some_and(|p| p.is_file())
}

/// How much of a key to check: nothing beyond coordinate ranges for bytes that passed
/// the full check before, on-curve only for a key the user trusts, else everything.
pub fn point_check(hash: &blake3::Hash, trusted: bool) -> fastzk_formats::PointCheck {
    use fastzk_formats::PointCheck;
    if is_validated(hash) {
        PointCheck::Prevalidated
    } else if trusted {
        PointCheck::OnCurve
    } else {
        PointCheck::Subgroup
    }
}

/// Remembers that a key with this hash passed the full check.
pub fn mark_validated(hash: &blake3::Hash) {
    if let Some(p) = validated_path(hash) {
        remember(&p, b"subgroup checks passed\n");
    }
}

/// A witness generator compiled once and kept: read from the cache when these module
/// bytes were compiled before by this wasmtime, else compiled (and stored).
#[cfg(feature = "witness-runtime")]
pub fn witness_calculator(
    wasm: &[u8],
) -> Result<fastzk_witness::WitnessCalculator, fastzk_witness::WitnessError> {
    use fastzk_witness::WitnessCalculator;
    let path = dir().map(|d| {
        let hash = content_hash(wasm).to_hex();
        let tag = WitnessCalculator::compatibility_tag();
        d.join("wasm")
            .join(format!("{}-{tag:016x}.cwasm", &hash[..32]))
    });
    if let Some(p) = path.as_ref().filter(|p| p.is_file()) {
        // SAFETY: the file is this cache's own serialized module (named by the hash of
        // the source and the runtime's tag), in the user's cache folder, written once
        // through a rename and never changed; wasmtime checks its header and refuses
        // code from another version or configuration.
        if let Ok(c) = unsafe { WitnessCalculator::deserialize_file(p) } {
            return Ok(c);
        }
    }
    let calc = WitnessCalculator::compile(wasm)?;
    if let (Some(p), Ok(bytes)) = (path, calc.serialize()) {
        remember(&p, &bytes);
    }
    Ok(calc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_round_trips_and_rejects_garbage() {
        let c = Calibration {
            batch_add_ns: 110.5,
            simd_batch_add_ns: None,
            flush_ns: 4600.0,
            simd_flush_ns: 2200.0,
            reduce_step_ns: 372.25,
            segmented_reduce_step_ns: 190.75,
            simd_reduce_step_ns: Some(184.5),
            glv_ns: 51.0,
            inverse_ns: 4000.0,
        };
        let back = decode(&encode(&c)).unwrap();
        assert_eq!(encode(&back), encode(&c));
        assert!(decode("").is_none());
        assert!(decode(&encode(&c).replace("110.5", "-1")).is_none());
        assert!(decode(&encode(&c).replace("110.5", "NaN")).is_none());
        assert!(decode(&encode(&c).replace("\nend", "")).is_none());
        // Files of earlier formats are measured again: one more line (the cache penalty)
        // or one fewer (no segmented reduction on the scalar flush).
        assert!(decode(&encode(&c).replace("\nend", "\n0.12\nend")).is_none());
        assert!(decode(&encode(&c).replace("\n190.75\nend", "\nend")).is_none());
    }
}
