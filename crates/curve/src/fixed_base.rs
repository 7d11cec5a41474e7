//! Many multiples of one fixed point, for building keys: `[k₀]G, [k₁]G, …`.
//!
//! A table of `d·2^{cw}·G` for every window `w` and digit `d < 2^c` turns each product
//! into one mixed addition per window (32 for 255-bit scalars with `c = 8`), with no
//! doublings; results are normalised to affine in batches sharing one inversion.

use crate::{batch_normalize, batch_normalize_xyzz, Affine, CurveConfig, Jacobian, Xyzz};
use fastzk_field::PrimeField;
use rayon::prelude::*;

const WINDOW: u32 = 8;

pub struct FixedBase<C: CurveConfig> {
    /// `tables[w][d − 1] = d·2^{8w}·G`.
    tables: Vec<Vec<Affine<C>>>,
}

impl<C: CurveConfig> FixedBase<C> {
    pub fn new(base: &Affine<C>) -> Self {
        let bits = C::Scalar::modulus().bits() as u32;
        let windows = bits.div_ceil(WINDOW) as usize;
        let digits = (1usize << WINDOW) - 1;
        let mut start = Jacobian::from(*base);
        let mut jac = Vec::with_capacity(windows * digits);
        for _ in 0..windows {
            let mut acc = start;
            for _ in 0..digits {
                jac.push(acc);
                acc += &start;
            }
            start = acc; // 2^8 · start
        }
        let flat = batch_normalize(&jac);
        Self {
            tables: flat.chunks(digits).map(<[_]>::to_vec).collect(),
        }
    }

    pub fn mul(&self, k: &C::Scalar) -> Xyzz<C> {
        let bytes = k.to_le_bytes();
        let mut acc = Xyzz::identity();
        for (table, &d) in self.tables.iter().zip(&bytes) {
            if d != 0 {
                acc = acc.add_affine(&table[d as usize - 1]);
            }
        }
        acc
    }

    /// `[kᵢ]G` for every scalar, in parallel.
    pub fn mul_many(&self, scalars: &[C::Scalar]) -> Vec<Affine<C>> {
        scalars
            .par_chunks(1 << 10)
            .flat_map_iter(|chunk| {
                let xyzz: Vec<Xyzz<C>> = chunk.iter().map(|k| self.mul(k)).collect();
                batch_normalize_xyzz(&xyzz)
            })
            .collect()
    }
}
