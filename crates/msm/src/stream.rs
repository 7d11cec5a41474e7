//! Streaming MSM in three stages (SimdMSM §5.3): `start` allocates one set of buckets
//! per window, `update` distributes a chunk of points into them (the chunk can be
//! dropped afterwards), `finish` reduces the buckets and combines the windows. Memory
//! is `windows × 2^(c−1)` affine buckets however many points stream through.

use fastzk_curve::{Affine, Jacobian};
use fastzk_field::PrimeField;
use rayon::prelude::*;

use crate::bucket::BucketAcc;
use crate::fast::combine_windows;
use crate::scalar::SignedScalars;
use crate::MsmCurve;
use crate::MsmError;

/// A streaming MSM in progress.
pub struct MsmStream<C: MsmCurve> {
    c: u32,
    bits: u32,
    accs: Vec<BucketAcc<C>>,
    points: usize,
}

impl<C: MsmCurve> MsmStream<C> {
    /// Starts a stream with window `c` (or the planner's choice for about
    /// `expected_points` points). Fails for windows outside `2..=24`.
    pub fn start(window: Option<u32>, expected_points: usize) -> Result<Self, MsmError> {
        let bits = <C::Scalar as PrimeField>::MODULUS_BITS;
        let c = match window {
            Some(c) => crate::check_window(c)?,
            None => crate::planner::plan_window::<C>(expected_points.max(1), bits).window,
        };
        let m = SignedScalars::windows_for(bits, c);
        let nb = 1usize << (c - 1);
        let batch = BucketAcc::<C>::default_batch(nb);
        Ok(Self {
            c,
            bits,
            accs: (0..m).map(|_| BucketAcc::new(nb, batch)).collect(),
            points: 0,
        })
    }

    /// Window size in use.
    pub fn window(&self) -> u32 {
        self.c
    }

    /// Bytes held by the buckets (the stream's memory bound).
    pub fn memory_bytes(&self) -> usize {
        self.accs.len()
            * self.accs.first().map_or(0, |a| a.n_buckets())
            * (size_of::<Affine<C>>() + 1)
    }

    /// Points consumed so far.
    pub fn points(&self) -> usize {
        self.points
    }

    /// Adds `Σ scalars[i]·bases[i]` for one chunk.
    pub fn update(&mut self, bases: &[Affine<C>], scalars: &[C::Scalar]) -> Result<(), MsmError> {
        if bases.len() != scalars.len() {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars: scalars.len(),
            });
        }
        let limbs: Vec<[u64; 4]> = scalars.par_iter().map(C::scalar_limbs).collect();
        let rec = SignedScalars::new(&limbs, self.bits, self.c);
        self.accs.par_iter_mut().enumerate().for_each(|(w, acc)| {
            for (i, p) in bases.iter().enumerate() {
                let d = rec.digit(i, w as u32);
                if d > 0 {
                    acc.add((d - 1) as usize, p);
                } else if d < 0 {
                    acc.add((-d - 1) as usize, &-*p);
                }
            }
        });
        self.points += bases.len();
        Ok(())
    }

    /// Reduces the buckets and returns the MSM.
    pub fn finish(mut self) -> Jacobian<C> {
        let sums: Vec<_> = self.accs.par_iter_mut().map(|a| a.reduce()).collect();
        Jacobian::from(combine_windows(&sums, self.c))
    }
}
