//! Subgroup membership of many points at once: random linear combinations of the
//! points, each sum tested with the curve's one-point test. A 2^20-point G2 section of a
//! Groth16 key costs about ten bucket additions per point this way, instead of a 63-bit
//! scalar multiplication per point.
//!
//! # Why it is sound
//!
//! `E(F) = G ⊕ T` where `G` has prime order `r` and `T` has order `h` (the cofactor,
//! prime to `r`); write each point `P_i = G_i + T_i`. A *trial* draws independent
//! uniform digits `d_i` from `[−2^(c−1), 2^(c−1))` and tests `W = Σ d_i·P_i ∈ G`, which
//! holds iff `Σ d_i·T_i = 0`. Suppose some `T_j ≠ 0`: its order `o` divides `h`, so
//! `o ≥ ℓ`, the smallest prime factor of `h`, and we take `2^c ≤ ℓ`. The `2^c` digits
//! are consecutive integers, hence distinct modulo `o`, so `d ↦ d·T_j` is injective on
//! them and, whatever the other digits are, exactly one value of `d_j` (at most) makes
//! the sum vanish: a trial passes with probability at most `2^−c`. The trials draw
//! their digits independently, so all `k` of them pass with probability at most
//! `2^−ck`; `k` is chosen so that `c·k ≥ 128`. The digits come from the OS CSPRNG after
//! the points are fixed (a file is read before the check starts), so they cannot be
//! predicted by whoever wrote the file.
//!
//! The bound is why the digits are short: a single combination with long digits is no
//! better than `1/ℓ` (BN254's G2 cofactor has the prime factor 10 069), so the work
//! goes into `k` independent short combinations — each one window of a Pippenger pass,
//! kept apart instead of being summed. Curves whose cofactor has a prime factor below
//! `2^MIN_BITS` (BLS12-381: 3 on G1, 13 on G2) would need too many trials, and keep
//! the per-point test; so do groups of cofactor 1, where every curve point is in `G`.
//!
//! Any failing trial, and any point off the curve, sends the whole slice to the exact
//! per-point test, so the error names the lowest failing index, as it always did.

use fastzk_curve::validate::check_points as check_points_exact;
use fastzk_curve::{Affine, CurveError, Xyzz};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rand_core::OsRng;
use rayon::prelude::*;

use crate::bucket::BucketAcc;
use crate::fast::to_flush_form;
use crate::planner;
use crate::MsmCurve;

/// Soundness of the batched test: a slice with a point outside the subgroup passes
/// with probability at most `2^−SECURITY_BITS`.
pub const SECURITY_BITS: u32 = 128;
/// Widest digit used (4096 signed buckets: a G2 trial's buckets stay in L2).
const MAX_BITS: u32 = 13;
/// Narrower digits than this would take more trials than the per-point test costs.
const MIN_BITS: u32 = 8;
/// Below this many points, the trials' fixed cost (bucket reductions, `k` one-point
/// tests) outweighs what they save.
const MIN_POINTS: usize = 2048;

/// How a group's slices are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Every point by itself (cofactor 1, a small cofactor prime, or few points).
    PerPoint,
    /// `trials` random combinations with `bits`-bit signed digits.
    Batched { bits: u32, trials: u32 },
}

/// Largest divisor searched for by [`small_cofactor_prime`].
const SEARCH_LIMIT: u64 = 1 << 16;

/// The smallest prime factor of the cofactor if it is below `2^16` (`None`: the
/// cofactor is 1, or all its prime factors are at least `2^16`).
pub fn small_cofactor_prime(cofactor: &[u64]) -> Option<u64> {
    let rem = |d: u64| {
        cofactor
            .iter()
            .rev()
            .fold(0u128, |acc, &limb| ((acc << 64) | limb as u128) % d as u128)
    };
    if cofactor_is_one(cofactor) {
        return None;
    }
    (2..SEARCH_LIMIT).find(|&d| rem(d) == 0)
}

/// Whether the cofactor is 1.
fn cofactor_is_one(cofactor: &[u64]) -> bool {
    cofactor.first() == Some(&1) && cofactor[1..].iter().all(|&l| l == 0)
}

/// The strategy for a slice of `n` points of group `C` (a trial division of the
/// cofactor, about a millisecond, when the slice is large enough to batch).
pub fn strategy<C: MsmCurve>(n: usize) -> Strategy {
    if n < MIN_POINTS || cofactor_is_one(C::COFACTOR) {
        return Strategy::PerPoint;
    }
    // 2^bits ≤ ℓ, the smallest prime factor of the cofactor.
    let bits = small_cofactor_prime(C::COFACTOR).map_or(MAX_BITS, |l| l.ilog2().min(MAX_BITS));
    if bits < MIN_BITS {
        return Strategy::PerPoint;
    }
    Strategy::Batched {
        bits,
        trials: SECURITY_BITS.div_ceil(bits),
    }
}

/// Checks that every point is on the curve and in the order-`r` subgroup; on failure,
/// the lowest failing index and why. Digits come from the OS CSPRNG.
pub fn check_points<C: MsmCurve>(points: &[Affine<C>]) -> Result<(), (usize, CurveError)> {
    check_points_seeded(points, os_seed())
}

/// [`check_points`] for points a reader has already checked on the curve: only the
/// subgroup test is done (per point or batched, as [`strategy`] says).
pub fn check_subgroup<C: MsmCurve>(points: &[Affine<C>]) -> Result<(), (usize, CurveError)> {
    if cofactor_is_one(C::COFACTOR) {
        // Every point on the curve is in the group.
        return Ok(());
    }
    match strategy::<C>(points.len()) {
        Strategy::Batched { bits, trials } if trials_pass(points, bits, trials, os_seed()) => {
            Ok(())
        }
        Strategy::Batched { .. } => check_points_exact(points, true),
        Strategy::PerPoint => points
            .par_iter()
            .position_first(|p| !p.is_in_correct_subgroup())
            .map_or(Ok(()), |i| Err((i, CurveError::NotInSubgroup))),
    }
}

fn os_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    seed
}

/// [`check_points`] with the digits drawn from `seed`: deterministic, for tests only (a
/// file written knowing the seed could pass).
pub fn check_points_seeded<C: MsmCurve>(
    points: &[Affine<C>],
    seed: [u8; 32],
) -> Result<(), (usize, CurveError)> {
    let Strategy::Batched { bits, trials } = strategy::<C>(points.len()) else {
        return check_points_exact(points, true);
    };
    let on_curve = points.par_iter().all(|p| p.is_on_curve());
    if on_curve && trials_pass(points, bits, trials, seed) {
        return Ok(());
    }
    // Some point fails: the exact test finds the lowest one.
    check_points_exact(points, true)
}

/// Runs `trials` combinations of `bits`-bit digits over `points` (all on the curve) and
/// tests each sum.
fn trials_pass<C: MsmCurve>(points: &[Affine<C>], bits: u32, trials: u32, seed: [u8; 32]) -> bool {
    let kernel = planner::default_lane_flush::<C>();
    let converted = kernel.map(|k| to_flush_form(points, k));
    let pts = converted.as_deref().unwrap_or(points);
    let n = pts.len();
    let threads = rayon::current_num_threads().max(1);
    // Enough tasks for every thread; the digits of (trial, point) do not depend on the
    // split, so neither does the verdict.
    let chunks = (2 * threads)
        .div_ceil(trials as usize)
        .clamp(1, n.div_ceil(4096));
    let chunk_len = n.div_ceil(chunks);
    let tasks: Vec<(u32, usize)> = (0..trials)
        .flat_map(|t| (0..chunks).map(move |ch| (t, ch)))
        .collect();
    let partial: Vec<(u32, Xyzz<C>)> = tasks
        .into_par_iter()
        .map(|(t, ch)| {
            let start = ch * chunk_len;
            let end = (start + chunk_len).min(n);
            (
                t,
                combination(&pts[start..end], start, bits, t, seed, kernel),
            )
        })
        .collect();
    let mut sums = vec![Xyzz::<C>::identity(); trials as usize];
    for (t, s) in partial {
        sums[t as usize] = sums[t as usize].add_xyzz(&s);
    }
    sums.par_iter()
        .all(|w| C::is_in_correct_subgroup(&w.to_affine()))
}

/// `Σ d_i·P_i` over `pts` (points `first..` of the slice) for trial `t`'s digits.
fn combination<C: MsmCurve>(
    pts: &[Affine<C>],
    first: usize,
    bits: u32,
    t: u32,
    seed: [u8; 32],
    kernel: Option<&'static crate::ifma_flush::IfmaFlush<C>>,
) -> Xyzz<C> {
    let half = 1i32 << (bits - 1);
    let n_buckets = half as usize;
    let batch = BucketAcc::<C>::batch_for(n_buckets, kernel.is_some());
    let mut acc = match kernel {
        Some(k) => BucketAcc::<C>::with_kernel(n_buckets, batch, k),
        None => BucketAcc::<C>::new(n_buckets, batch),
    };
    let mut digits = Digits::new(seed, t, first, bits);
    for p in pts {
        let d = digits.next() - half;
        if d != 0 {
            acc.add_signed((d.unsigned_abs() - 1) as usize, p, d < 0);
        }
    }
    acc.reduce()
}

/// Trial `t`'s digits from point `first` on: point `i`'s digit is the `bits` low bits of
/// 16-bit word `i mod 4` of ChaCha20 block word `i / 4` on stream `t`, so any split of
/// the points draws the same digits.
struct Digits {
    rng: ChaCha20Rng,
    word: u64,
    left: u32,
    mask: i32,
}

impl Digits {
    fn new(seed: [u8; 32], t: u32, first: usize, bits: u32) -> Self {
        let mut rng = ChaCha20Rng::from_seed(seed);
        rng.set_stream(t as u64);
        // Word positions count 32-bit words; point i lives in 64-bit word i / 4.
        rng.set_word_pos(2 * (first / 4) as u128);
        let mut d = Self {
            rng,
            word: 0,
            left: 0,
            mask: (1 << bits) - 1,
        };
        for _ in 0..first % 4 {
            d.next();
        }
        d
    }

    /// The next digit, uniform in `[0, 2^bits)`.
    fn next(&mut self) -> i32 {
        if self.left == 0 {
            self.word = self.rng.next_u64();
            self.left = 4;
        }
        let d = (self.word & 0xffff) as i32 & self.mask;
        self.word >>= 16;
        self.left -= 1;
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastzk_curve::{bls12_381, bn254, CurveConfig};

    #[test]
    fn strategies_follow_the_cofactors() {
        // BN254 G2: h = 2q − r has the prime factor 10 069 (2^13 ≤ 10 069 < 2^14).
        assert_eq!(small_cofactor_prime(bn254::G2Config::COFACTOR), Some(10069));
        assert_eq!(
            strategy::<bn254::G2Config>(1 << 20),
            Strategy::Batched {
                bits: 13,
                trials: 10
            }
        );
        assert_eq!(strategy::<bn254::G1Config>(1 << 20), Strategy::PerPoint);
        assert_eq!(small_cofactor_prime(bls12_381::G1Config::COFACTOR), Some(3));
        assert_eq!(strategy::<bls12_381::G1Config>(1 << 20), Strategy::PerPoint);
        assert_eq!(
            small_cofactor_prime(bls12_381::G2Config::COFACTOR),
            Some(13)
        );
        assert_eq!(strategy::<bls12_381::G2Config>(1 << 20), Strategy::PerPoint);
        assert_eq!(
            strategy::<bn254::G2Config>(MIN_POINTS - 1),
            Strategy::PerPoint
        );
    }

    #[test]
    fn good_sections_pass_without_the_fallback() {
        // The batched trials alone accept subgroup points (identities, repeats and
        // negations included), whatever the split into tasks: a regression here would
        // only show as every key falling back to the slow per-point test.
        let base: Vec<Affine<bn254::G2Config>> = (1..=40u64)
            .map(|k| {
                Affine::<bn254::G2Config>::generator()
                    .mul_bigint(&[k * 7919])
                    .to_affine()
            })
            .collect();
        let pts: Vec<_> = (0..3000)
            .map(|i| match i % 13 {
                0 => Affine::identity(),
                4 => -base[i % 40],
                _ => base[(i * 3) % 40],
            })
            .collect();
        for seed in [[1u8; 32], [2u8; 32]] {
            assert!(trials_pass(&pts, 13, 10, seed));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(7)
            .build()
            .unwrap();
        assert!(pool.install(|| trials_pass(&pts, 13, 10, [3u8; 32])));
    }

    #[test]
    fn digits_do_not_depend_on_the_split() {
        let seed = [7u8; 32];
        let mut all = Digits::new(seed, 3, 0, 13);
        let whole: Vec<i32> = (0..50).map(|_| all.next()).collect();
        for first in [1, 4, 5, 17] {
            let mut from = Digits::new(seed, 3, first, 13);
            let tail: Vec<i32> = (first..50).map(|_| from.next()).collect();
            assert_eq!(tail, whole[first..], "split at {first}");
        }
        let mut other = Digits::new(seed, 4, 0, 13);
        let other: Vec<i32> = (0..50).map(|_| other.next()).collect();
        assert_ne!(other, whole, "each trial has its own stream");
        assert!(whole.iter().all(|&d| (0..1 << 13).contains(&d)));
    }
}
