//! Batch operations that share one field inversion across many points (Montgomery's
//! trick): normalization to affine, and independent affine additions — the MSM
//! bucket-accumulation primitive.

use fastzk_field::Field;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::affine::Affine;
use crate::config::CurveConfig;
use crate::error::CurveError;
use crate::jacobian::Jacobian;
use crate::xyzz::Xyzz;

fn check_len(expected: usize, got: usize) -> Result<(), CurveError> {
    if expected == got {
        Ok(())
    } else {
        Err(CurveError::LengthMismatch { expected, got })
    }
}

/// Inverse of a product of nonzero elements; a field has no zero divisors, so this
/// cannot fail.
fn invert_nonzero<F: Field>(acc: F) -> F {
    acc.inverse()
        .expect("a product of nonzero field elements is nonzero")
}

/// Jacobian → affine for many points with one inversion (identities map to infinity).
pub fn batch_normalize<C: CurveConfig>(points: &[Jacobian<C>]) -> Vec<Affine<C>> {
    let mut out = vec![Affine::identity(); points.len()];
    let mut scratch = Vec::with_capacity(points.len());
    batch_normalize_into(points, &mut out, &mut scratch)
        .expect("output buffer was sized to the input");
    out
}

/// Allocation-free form of [`batch_normalize`]: writes into `out` (same length as
/// `points`), using `scratch` for the prefix products.
pub fn batch_normalize_into<C: CurveConfig>(
    points: &[Jacobian<C>],
    out: &mut [Affine<C>],
    scratch: &mut Vec<C::Base>,
) -> Result<(), CurveError> {
    // (X/Z², Y/Z³)
    let den = |p: &Jacobian<C>| (!p.z.is_zero()).then_some(p.z);
    normalize_each(points, out, scratch, den, |p, zinv| {
        let zinv2 = zinv.square();
        Affine::new_unchecked(p.x * zinv2, p.y * zinv2 * zinv)
    })
}

/// Affine forms of `points` into `out` with one inversion (Montgomery's trick): `den(p)`
/// is the value whose inverse `finish(p, 1/den)` needs, `None` for the identity.
fn normalize_each<P, C: CurveConfig>(
    points: &[P],
    out: &mut [Affine<C>],
    scratch: &mut Vec<C::Base>,
    den: impl Fn(&P) -> Option<C::Base>,
    finish: impl Fn(&P, C::Base) -> Affine<C>,
) -> Result<(), CurveError> {
    check_len(points.len(), out.len())?;
    scratch.clear();
    let mut acc = C::Base::ONE;
    for p in points {
        scratch.push(acc);
        if let Some(d) = den(p) {
            acc *= d;
        }
    }
    let mut inv = invert_nonzero(acc);
    for ((p, o), prefix) in points.iter().zip(out.iter_mut()).zip(scratch.iter()).rev() {
        *o = match den(p) {
            None => Affine::identity(),
            Some(d) => {
                let dinv = inv * *prefix;
                inv *= d;
                finish(p, dinv)
            }
        };
    }
    Ok(())
}

/// XYZZ → affine for many points with one inversion (of each `ZZ·ZZZ`).
pub fn batch_normalize_xyzz<C: CurveConfig>(points: &[Xyzz<C>]) -> Vec<Affine<C>> {
    let mut out = vec![Affine::identity(); points.len()];
    let mut scratch = Vec::with_capacity(points.len());
    batch_normalize_xyzz_into(points, &mut out, &mut scratch)
        .expect("output buffer was sized to the input");
    out
}

/// Allocation-free form of [`batch_normalize_xyzz`].
pub fn batch_normalize_xyzz_into<C: CurveConfig>(
    points: &[Xyzz<C>],
    out: &mut [Affine<C>],
    scratch: &mut Vec<C::Base>,
) -> Result<(), CurveError> {
    // (X/ZZ, Y/ZZZ) = (X·ZZZ, Y·ZZ)/(ZZ·ZZZ)
    let den = |p: &Xyzz<C>| (!p.is_zero()).then(|| p.zz * p.zzz);
    normalize_each(points, out, scratch, den, |p, dinv| {
        Affine::new_unchecked(p.x * dinv * p.zzz, p.y * dinv * p.zz)
    })
}

/// How one pair in a batch addition is resolved.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PairKind {
    /// `rhs` is infinity: the sum is `lhs`.
    KeepLhs,
    /// `lhs` is infinity: the sum is `rhs`.
    TakeRhs,
    /// Distinct x: chord slope `(y2 − y1)/(x2 − x1)`.
    Chord,
    /// Equal points with `y ≠ 0`: tangent slope `3x^2/(2y)`.
    Tangent,
    /// `P + (−P)` (including a 2-torsion point doubled): infinity.
    Infinity,
}

/// Classifies a pair and returns the denominator it needs inverted (`1` when none).
#[inline]
fn classify<C: CurveConfig>(a: &Affine<C>, b: &Affine<C>) -> (PairKind, C::Base) {
    if b.infinity {
        (PairKind::KeepLhs, C::Base::ONE)
    } else if a.infinity {
        (PairKind::TakeRhs, C::Base::ONE)
    } else if a.x != b.x {
        (PairKind::Chord, b.x - a.x)
    } else if a.y == b.y && !a.y.is_zero() {
        (PairKind::Tangent, a.y.double())
    } else {
        (PairKind::Infinity, C::Base::ONE)
    }
}

/// `acc[i] += rhs[i]` for every `i`, in affine, with a single inversion for the batch.
///
/// Handles infinity on either side, `acc[i] == rhs[i]` (tangent slope) and
/// `acc[i] == −rhs[i]` (result infinity). `scratch` is reused across calls so the
/// hot loop allocates nothing once it has grown to the batch size.
pub fn batch_add_affine_assign<C: CurveConfig>(
    acc: &mut [Affine<C>],
    rhs: &[Affine<C>],
    scratch: &mut Vec<C::Base>,
) -> Result<(), CurveError> {
    check_len(acc.len(), rhs.len())?;
    scratch.clear();
    let mut prod = C::Base::ONE;
    for (a, b) in acc.iter().zip(rhs) {
        scratch.push(prod);
        let (_, d) = classify(a, b);
        prod *= d;
    }
    let mut inv = invert_nonzero(prod);
    for ((a, b), prefix) in acc.iter_mut().zip(rhs).zip(scratch.iter()).rev() {
        let (kind, d) = classify(a, b);
        let dinv = inv * *prefix;
        inv *= d;
        let slope = match kind {
            PairKind::KeepLhs => continue,
            PairKind::TakeRhs => {
                *a = *b;
                continue;
            }
            PairKind::Infinity => {
                *a = Affine::identity();
                continue;
            }
            PairKind::Chord => (b.y - a.y) * dinv,
            PairKind::Tangent => {
                let x2 = a.x.square();
                (x2.double() + x2) * dinv
            }
        };
        let x3 = slope.square() - a.x - b.x;
        let y3 = slope * (a.x - x3) - a.y;
        *a = Affine::new_unchecked(x3, y3);
    }
    Ok(())
}

/// `out[i] = lhs[i] + rhs[i]` with one shared inversion; see [`batch_add_affine_assign`].
pub fn batch_add_affine_into<C: CurveConfig>(
    lhs: &[Affine<C>],
    rhs: &[Affine<C>],
    out: &mut [Affine<C>],
    scratch: &mut Vec<C::Base>,
) -> Result<(), CurveError> {
    check_len(lhs.len(), out.len())?;
    out.copy_from_slice(lhs);
    batch_add_affine_assign(out, rhs, scratch)
}

/// Convenience form: sums of independent pairs, allocating the result.
pub fn batch_add_affine<C: CurveConfig>(pairs: &[(Affine<C>, Affine<C>)]) -> Vec<Affine<C>> {
    let mut acc: Vec<Affine<C>> = pairs.iter().map(|p| p.0).collect();
    let rhs: Vec<Affine<C>> = pairs.iter().map(|p| p.1).collect();
    let mut scratch = Vec::with_capacity(pairs.len());
    batch_add_affine_assign(&mut acc, &rhs, &mut scratch)
        .expect("both halves come from the same pairs");
    acc
}

/// `n` distinct pseudo-random points of the prime-order subgroup, deterministic in
/// `seed`, fast enough for inputs of millions: chunks start at random points and walk by
/// one random step, each chunk normalised with one inversion, chunks in parallel. For
/// benchmarks and tests (the points have a known linear relation), never for keys.
pub fn random_points<C: CurveConfig>(n: usize, seed: u64) -> Vec<Affine<C>> {
    const CHUNK: usize = 1 << 14;
    let step = Affine::<C>::random(&mut ChaCha8Rng::seed_from_u64(seed ^ 0x5eed));
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(c as u64 * 7919));
            let mut acc = Jacobian::<C>::random(&mut rng);
            let len = CHUNK.min(n - c * CHUNK);
            let mut jac = Vec::with_capacity(len);
            for _ in 0..len {
                jac.push(acc);
                acc = acc.add_affine(&step);
            }
            batch_normalize(&jac)
        })
        .collect()
}
