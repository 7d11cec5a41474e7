//! Fixed-base mode: for bases used in many MSMs (a proving key), store
//! `2^(w·c)·P_i` for every window `w`, so one MSM is a single window over `n·m`
//! points: no window combination and one bucket reduction, at `n·m` stored points.

use fastzk_curve::{batch_normalize, Affine, Jacobian, Xyzz};
use fastzk_field::PrimeField;
use rayon::prelude::*;

use crate::bucket::BucketAcc;
use crate::scalar::SignedScalars;
use crate::MsmCurve;
use crate::MsmError;

/// Bases with their window shifts precomputed.
pub struct PrecomputedBases<C: MsmCurve> {
    c: u32,
    windows: u32,
    n: usize,
    table: Vec<Affine<C>>,
}

impl<C: MsmCurve> PrecomputedBases<C> {
    /// Builds the table for window `c` (`2..=24`).
    pub fn new(bases: &[Affine<C>], c: u32) -> Result<Self, MsmError> {
        let c = crate::check_window(c)?;
        let bits = <C::Scalar as PrimeField>::MODULUS_BITS;
        let m = SignedScalars::windows_for(bits, c);
        let table: Vec<Affine<C>> = bases
            .par_chunks(1024)
            .flat_map_iter(|chunk| {
                let mut jac = Vec::with_capacity(chunk.len() * m as usize);
                for p in chunk {
                    let mut q = Jacobian::from(*p);
                    for _ in 0..m {
                        jac.push(q);
                        for _ in 0..c {
                            q = q.double();
                        }
                    }
                }
                batch_normalize(&jac)
            })
            .collect();
        Ok(Self {
            c,
            windows: m,
            n: bases.len(),
            table,
        })
    }

    /// Bytes held by the table.
    pub fn memory_bytes(&self) -> usize {
        self.table.len() * size_of::<Affine<C>>()
    }

    pub fn window(&self) -> u32 {
        self.c
    }

    /// Windows per scalar: the shifts stored per base.
    pub fn windows(&self) -> u32 {
        self.windows
    }

    /// The table, base by base: entry `i·windows + w` is `2^(w·c)·P_i` (a device copies it
    /// as it is).
    pub fn table(&self) -> &[Affine<C>] {
        &self.table
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// `Σ scalars[i]·P_i`.
    pub fn msm(&self, scalars: &[C::Scalar]) -> Result<Jacobian<C>, MsmError> {
        if scalars.len() != self.n {
            return Err(MsmError::LengthMismatch {
                bases: self.n,
                scalars: scalars.len(),
            });
        }
        let bits = <C::Scalar as PrimeField>::MODULUS_BITS;
        let limbs: Vec<[u64; 4]> = scalars.par_iter().map(C::scalar_limbs).collect();
        let rec = SignedScalars::new(&limbs, bits, self.c);
        let m = self.windows as usize;
        let nb = 1usize << (self.c - 1);
        let t = rayon::current_num_threads().max(1);
        let chunk = self.n.div_ceil(t).max(1);
        let total = (0..self.n.div_ceil(chunk))
            .into_par_iter()
            .map(|ch| {
                let mut acc = BucketAcc::<C>::new(nb, BucketAcc::<C>::default_batch(nb));
                for i in ch * chunk..((ch + 1) * chunk).min(self.n) {
                    for w in 0..m {
                        let d = rec.digit(i, w as u32);
                        let p = &self.table[i * m + w];
                        if d > 0 {
                            acc.add((d - 1) as usize, p);
                        } else if d < 0 {
                            acc.add((-d - 1) as usize, &-*p);
                        }
                    }
                }
                acc.reduce()
            })
            .reduce(Xyzz::identity, |a, b| a.add_xyzz(&b));
        Ok(Jacobian::from(total))
    }
}
