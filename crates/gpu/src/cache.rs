//! Compiled kernels on disk, keyed by the BLAKE3 hash of the source, the device and the
//! compiler's version: `$FASTZK_CACHE_DIR/kernels` (default `$XDG_CACHE_HOME/fastzk` or
//! `~/.cache/fastzk`, as the CLI's other caches; `FASTZK_NO_CACHE=1` turns it off). An
//! entry that cannot be read, written or loaded is compiled again, silently.

use std::path::PathBuf;

fn dir() -> Option<PathBuf> {
    if std::env::var_os("FASTZK_NO_CACHE").is_some_and(|v| v != "0") {
        return None;
    }
    let base = if let Some(d) = std::env::var_os("FASTZK_CACHE_DIR") {
        PathBuf::from(d)
    } else if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        PathBuf::from(d).join("fastzk")
    } else {
        PathBuf::from(std::env::var_os("HOME")?)
            .join(".cache")
            .join("fastzk")
    };
    Some(base.join("kernels"))
}

/// The cache key of `source` built for `target` (device, compiler and their versions).
pub(crate) fn key(source: &str, target: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&[0]);
    h.update(target.as_bytes());
    h.update(&[0]);
    h.update(source.as_bytes());
    h.finalize().to_hex()[..32].to_string()
}

pub(crate) fn load(key: &str, ext: &str) -> Option<Vec<u8>> {
    std::fs::read(dir()?.join(format!("{key}.{ext}"))).ok()
}

pub(crate) fn store(key: &str, ext: &str, bytes: &[u8]) {
    let Some(d) = dir() else { return };
    if std::fs::create_dir_all(&d).is_err() {
        return;
    }
    // Written under a temporary name and renamed, so a reader never sees half a file.
    let tmp = d.join(format!("{key}.{ext}.{}", std::process::id()));
    if std::fs::write(&tmp, bytes).is_ok()
        && std::fs::rename(&tmp, d.join(format!("{key}.{ext}"))).is_err()
    {
        let _ignored = std::fs::remove_file(&tmp);
    }
}
