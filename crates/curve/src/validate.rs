//! Parallel validation of many points, for file readers (`.zkey`, `.ptau`): on-curve
//! and prime-order subgroup checks spread over rayon's pool, reporting the *lowest*
//! failing index deterministically.

use core::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::affine::Affine;
use crate::config::CurveConfig;
use crate::error::CurveError;

/// Points per rayon task: a subgroup check costs tens of microseconds, so this keeps
/// the scheduling overhead negligible while leaving plenty of tasks to balance.
pub(crate) const PAR_CHUNK: usize = 256;

/// The lowest-indexed error among per-chunk results, skipping chunks that start after
/// an already-found failure. A chunk is never skipped because of a failure at a higher
/// index, so the lowest failing index is always found, whatever the scheduling.
struct Lowest(AtomicUsize);

impl Lowest {
    fn new() -> Self {
        Self(AtomicUsize::new(usize::MAX))
    }
    fn skip(&self, start: usize) -> bool {
        self.0.load(Ordering::Relaxed) < start
    }
    fn record<E>(&self, r: Result<(), (usize, E)>) -> Option<(usize, E)> {
        r.err().inspect(|(i, _)| {
            self.0.fetch_min(*i, Ordering::Relaxed);
        })
    }
}

/// Calls `f(start, end)` on the index ranges `[start, end)` of `0..len`, in chunks of
/// `chunk`, in parallel; `f` returns the first failure of its range. Returns the failure
/// with the lowest index, or `Ok` if every range succeeded.
pub(crate) fn par_try_ranges<E, F>(len: usize, chunk: usize, f: F) -> Result<(), (usize, E)>
where
    E: Send,
    F: Fn(usize, usize) -> Result<(), (usize, E)> + Sync,
{
    let chunk = chunk.max(1);
    if len <= chunk {
        return f(0, len);
    }
    let lowest = Lowest::new();
    let err = (0..len.div_ceil(chunk))
        .into_par_iter()
        .filter_map(|ci| {
            let start = ci * chunk;
            if lowest.skip(start) {
                return None;
            }
            lowest.record(f(start, (start + chunk).min(len)))
        })
        .min_by_key(|(i, _)| *i);
    err.map_or(Ok(()), Err)
}

/// Like [`par_try_ranges`], but each range also gets its slice of `out` to fill:
/// `f(start, &mut out[start..end])`.
pub(crate) fn par_try_fill<O, E, F>(out: &mut [O], chunk: usize, f: F) -> Result<(), (usize, E)>
where
    O: Send,
    E: Send,
    F: Fn(usize, &mut [O]) -> Result<(), (usize, E)> + Sync,
{
    let chunk = chunk.max(1);
    if out.len() <= chunk {
        return f(0, out);
    }
    let lowest = Lowest::new();
    let err = out
        .par_chunks_mut(chunk)
        .enumerate()
        .filter_map(|(ci, o)| {
            let start = ci * chunk;
            if lowest.skip(start) {
                return None;
            }
            lowest.record(f(start, o))
        })
        .min_by_key(|(i, _)| *i);
    err.map_or(Ok(()), Err)
}

/// Checks one point: on the curve and, if `subgroup`, in the order-`r` subgroup (the
/// identity passes both).
pub fn check_point<C: CurveConfig>(p: &Affine<C>, subgroup: bool) -> Result<(), CurveError> {
    if !p.is_on_curve() {
        return Err(CurveError::NotOnCurve);
    }
    if subgroup && !p.is_in_correct_subgroup() {
        return Err(CurveError::NotInSubgroup);
    }
    Ok(())
}

/// Checks every point in parallel (see [`check_point`]); on failure returns the lowest
/// failing index with its reason.
pub fn check_points<C: CurveConfig>(
    points: &[Affine<C>],
    subgroup: bool,
) -> Result<(), (usize, CurveError)> {
    par_try_ranges(points.len(), PAR_CHUNK, |start, end| {
        for (i, p) in points[start..end].iter().enumerate() {
            check_point(p, subgroup).map_err(|e| (start + i, e))?;
        }
        Ok(())
    })
}

/// Sequential reference for [`check_points`] (same result, one thread).
pub fn check_points_serial<C: CurveConfig>(
    points: &[Affine<C>],
    subgroup: bool,
) -> Result<(), (usize, CurveError)> {
    for (i, p) in points.iter().enumerate() {
        check_point(p, subgroup).map_err(|e| (i, e))?;
    }
    Ok(())
}

/// `[r]P = 0` by the plain ladder: the slow, obviously-correct subgroup test the fast
/// per-curve overrides are checked against.
pub fn is_in_subgroup_reference<C: CurveConfig>(p: &Affine<C>) -> bool {
    use fastzk_field::PrimeField;
    let r = C::Scalar::modulus().to_u64_digits();
    p.infinity || p.mul_bigint(&r).is_zero()
}
