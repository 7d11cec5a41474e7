//! Benchmarks live in `benches/`; figures and commands are in `BENCHMARKS.md`. This
//! library holds what they share: interleaved timing against a peer.

/// Compiles and runs the README's Rust example as a doctest, so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// Paired timing for shared, noisy machines: load drifts by tens of percent between
/// seconds, which swamps measurements taken one after the other, so each round times
/// fastzk and the peer back to back (alternating which goes first) and the report is the
/// median of each side and of the per-round ratios.
pub mod paired {
    use std::time::Instant;

    /// The median (upper middle for an even count); `NaN` for an empty input.
    pub fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(|a, b| a.total_cmp(b));
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    }

    /// Seconds taken by `f`.
    pub fn seconds(f: impl FnOnce()) -> f64 {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64()
    }

    /// Medians of one side and the other, and of the per-round ratios `theirs / ours`.
    #[derive(Debug, Clone, Copy)]
    pub struct Stats {
        pub ours: f64,
        pub theirs: f64,
        pub ratio: f64,
    }

    /// Runs `ours` and `theirs` for `rounds` rounds, alternating which goes first; each
    /// returns the time it measured, in any unit.
    pub fn interleave(
        rounds: usize,
        mut ours: impl FnMut() -> f64,
        mut theirs: impl FnMut() -> f64,
    ) -> Stats {
        let (mut a, mut b, mut r) = (vec![], vec![], vec![]);
        for round in 0..rounds {
            let (ta, tb) = if round % 2 == 0 {
                let ta = ours();
                (ta, theirs())
            } else {
                let tb = theirs();
                (ours(), tb)
            };
            a.push(ta);
            b.push(tb);
            r.push(tb / ta);
        }
        Stats {
            ours: median(a),
            theirs: median(b),
            ratio: median(r),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn medians_and_ratios() {
            assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
            assert!(median(vec![]).is_nan());
            let mut k = 0.0;
            let s = interleave(
                5,
                || 2.0,
                || {
                    k += 1.0;
                    k
                },
            );
            assert_eq!((s.ours, s.theirs, s.ratio), (2.0, 3.0, 1.5));
        }
    }
}
