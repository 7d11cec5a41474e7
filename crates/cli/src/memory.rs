//! Memory: the machine's, the process's peak, and how a Groth16 or Plonk proof fits a budget
//! (`--max-memory`).

use std::path::Path;

use anyhow::{bail, Context, Result};
use fastzk_formats::codec::PointCheck;
use fastzk_groth16::{Bounded, ZkeyView};
use fastzk_pairing::PairingCurve;

use crate::cmd::groth16::name;

/// Physical memory (`MemTotal` of `/proc/meminfo`), when the system says.
pub fn machine_memory() -> Option<u64> {
    meminfo_kib(&std::fs::read_to_string("/proc/meminfo").ok()?, "MemTotal:").map(|k| k << 10)
}

/// The process's peak resident set so far (`VmHWM` of `/proc/self/status`).
pub fn peak_rss() -> Option<u64> {
    meminfo_kib(
        &std::fs::read_to_string("/proc/self/status").ok()?,
        "VmHWM:",
    )
    .map(|k| k << 10)
}

/// `key:   N kB` in a `/proc` file.
fn meminfo_kib(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// How a proof is made within the budget.
#[derive(Debug, PartialEq, Eq)]
pub enum Plan {
    /// The key read whole (today's fastest path).
    Eager,
    /// The key read a chunk at a time.
    Bounded {
        chunk_points: usize,
        block_entries: usize,
    },
}

/// The budget is `--max-memory`, else three quarters of the machine's memory (no bound
/// when the system does not say). Whole when the key, decoded, fits; else in chunks as
/// large as the budget allows above what the bounded prover always holds.
pub fn plan<E: PairingCurve>(
    zkey: &Path,
    max_memory: Option<u64>,
    chunk_points: Option<u64>,
) -> Result<Plan> {
    if let Some(n) = chunk_points {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        return Ok(Plan::Bounded {
            chunk_points: n,
            block_entries: n,
        });
    }
    let Some(budget) = max_memory.or_else(|| machine_memory().map(|m| m / 4 * 3)) else {
        return Ok(Plan::Eager);
    };
    let map = map_lazily(zkey)?;
    // Sizes only: the points are checked when they are read for the proof.
    let view = ZkeyView::<E>::parse(&map, &name(zkey), PointCheck::Prevalidated)?;
    let eager = BASE + map.len() as u64 + view.eager_bytes();
    if eager <= budget {
        return Ok(Plan::Eager);
    }
    // The quotient's phase holds the witness and three domain-size vectors (and a block
    // of section 4 before them); the MSMs' phase the witness, `p` (until H is done) and
    // one chunk of points.
    let floor = view.bounded_floor_bytes() + BASE;
    if budget < floor + (16 << 20) {
        bail!(
            "--max-memory {} MiB is below the {} MiB this key needs at least (the process, \
             the witness and three vectors of the 2^{} domain)",
            budget >> 20,
            (floor + (16 << 20)).div_ceil(1 << 20),
            view.log_domain
        );
    }
    // The H query's MSM runs with the witness and `p` held.
    let fr = size_of::<fastzk_pairing::Fr<E>>() as u64;
    let held = (view.n_vars + view.domain_size()) as u64 * fr;
    let chunk_points = Bounded::chunk_for_budget::<E>(budget.saturating_sub(held + BASE));
    // An entry of section 4 costs its 44 file bytes and a 32-byte product.
    let block_entries = ((budget - floor) / 80).clamp(1 << 12, 1 << 22) as usize;
    Ok(Plan::Bounded {
        chunk_points,
        block_entries,
    })
}

/// How a Plonk proof fits the budget (`--max-memory`, else three quarters of the
/// machine's memory): `None` to hold the key (the fastest path), or the powers of tau per
/// chunk when the key's coefficients and points must stay in its file. Round 3 holds
/// sixteen domain-size vectors with a held key (the wires and `z` as coefficients, and
/// their values on the three cosets, which become the quotient's blocks) and eleven with
/// a lean one (one coset at a time; twelve counted, for a margin).
pub fn plan_plonk<E: PairingCurve>(
    zkey: &Path,
    max_memory: Option<u64>,
    chunk_points: Option<u64>,
) -> Result<Option<usize>> {
    if let Some(n) = chunk_points {
        return Ok(Some(usize::try_from(n).unwrap_or(usize::MAX).max(1)));
    }
    let Some(budget) = max_memory.or_else(|| machine_memory().map(|m| m / 4 * 3)) else {
        return Ok(None);
    };
    let sizes = fastzk_plonk::zkey::key_sizes(zkey)?;
    let fr = size_of::<fastzk_pairing::Fr<E>>() as u64;
    let g1 = size_of::<fastzk_curve::Affine<E::G1>>() as u64;
    plonk_plan_for(&sizes, fr, g1, budget)
}

/// [`plan_plonk`] for a key of these sizes, field elements of `fr` bytes and points of
/// `g1` bytes in memory.
fn plonk_plan_for(
    sizes: &fastzk_plonk::zkey::KeySizes,
    fr: u64,
    g1: u64,
    budget: u64,
) -> Result<Option<usize>> {
    let n = sizes.domain_size as u64;
    // Domain vectors (held key, lean key), more for many public inputs; the witness and
    // the wires (with the additions' outputs), the wire maps and the additions.
    let (eager_vectors, vectors) = if sizes.n_public > 4 {
        (20, 14)
    } else {
        (16, 12)
    };
    let others = BASE
        + 2 * sizes.n_vars as u64 * fr
        + 12 * sizes.n_constraints as u64
        + sizes.n_additions as u64 * (8 + 2 * fr);
    let held = others + vectors * n * fr;
    // The key's points and their copy prepared for the MSM (its coefficients, like its
    // 4n evaluations, are read from the file a block at a time either way).
    let eager = others + eager_vectors * n * fr + 2 * (n + 6) * g1;
    if eager <= budget {
        return Ok(None);
    }
    // A chunk of points is held decoded while the round's MSMs run over it (their
    // buckets and digits about as much again).
    let floor = held + (16 << 20);
    if budget < floor {
        bail!(
            "--max-memory {} MiB is below the {} MiB this Plonk key needs at least (the \
             process, the witness and wires, and {vectors} vectors of the 2^{} domain)",
            budget >> 20,
            floor.div_ceil(1 << 20),
            n.trailing_zeros()
        );
    }
    let chunk = ((budget - held) / (3 * g1)).clamp(1 << 12, 1 << 22);
    Ok(Some(chunk as usize))
}

/// What the process holds besides the proof's data (code, allocator, threads), measured
/// at about 50 MiB.
const BASE: u64 = 64 << 20;

/// The file mapped without reading it (pages come in as they are touched).
pub fn map_lazily(path: &Path) -> Result<memmap2::Mmap> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", name(path)))?;
    // SAFETY: as `map_file`: read-only and private; a file truncated by another process
    // while we read it could fault.
    unsafe { memmap2::Mmap::map(&file) }.with_context(|| format!("reading {}", name(path)))
}

/// Drops the pages holding `piece` (a slice of `map`) from this process: they are read
/// again from the file if touched, so the resident set stays near what is in use.
pub fn release(map: &memmap2::Mmap, piece: &[u8]) {
    let offset = (piece.as_ptr() as usize).wrapping_sub(map.as_ptr() as usize);
    if piece.is_empty()
        || offset
            .checked_add(piece.len())
            .is_none_or(|end| end > map.len())
    {
        return;
    }
    // SAFETY: the mapping is private and read-only, so dropping its pages loses nothing:
    // the next access reads the file again (unchanged, as `map_lazily` assumes). Only
    // the physical pages go; the slices into the mapping stay valid.
    // A refusal only leaves the pages resident: nothing to report.
    let _refused = unsafe {
        map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, piece.len())
    }
    .is_err();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_lines_are_read_in_kib() {
        let text = "MemTotal:       24576000 kB\nMemFree: 1 kB\n";
        assert_eq!(meminfo_kib(text, "MemTotal:"), Some(24_576_000));
        assert_eq!(meminfo_kib(text, "VmHWM:"), None);
        assert_eq!(meminfo_kib("VmHWM: x kB", "VmHWM:"), None);
        assert!(machine_memory().is_some_and(|m| m > 0));
        assert!(peak_rss().is_some_and(|m| m > 0));
    }

    #[test]
    fn plonk_keys_are_held_lean_or_refused_by_the_budget() {
        // The synthetic 2^20 key of BENCHMARKS.md: held needs about 0.78 GiB, lean 0.53.
        let sizes = fastzk_plonk::zkey::KeySizes {
            n_vars: 1 << 20,
            n_public: 1,
            domain_size: 1 << 20,
            n_additions: 0,
            n_constraints: 1 << 20,
        };
        let mib = |m: u64| m << 20;
        assert_eq!(plonk_plan_for(&sizes, 32, 72, mib(2048)).unwrap(), None);
        assert_eq!(plonk_plan_for(&sizes, 32, 72, mib(800)).unwrap(), None);
        let chunk = plonk_plan_for(&sizes, 32, 72, mib(600)).unwrap().unwrap();
        assert!((1 << 12..=1 << 22).contains(&chunk), "{chunk}");
        // A larger budget never makes the chunks smaller.
        let larger = plonk_plan_for(&sizes, 32, 72, mib(650)).unwrap().unwrap();
        assert!(larger >= chunk);
        let e = plonk_plan_for(&sizes, 32, 72, mib(300))
            .unwrap_err()
            .to_string();
        assert!(e.contains("below the 540 MiB"), "{e}");
        // Many public inputs add two vectors.
        let many = fastzk_plonk::zkey::KeySizes {
            n_public: 5,
            ..sizes
        };
        let e = plonk_plan_for(&many, 32, 72, mib(300))
            .unwrap_err()
            .to_string();
        assert!(e.contains("14 vectors"), "{e}");
    }
}
