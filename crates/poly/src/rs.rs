//! Reed–Solomon encoding: a message of `n` coefficients evaluated on `n / rate` points.

use fastzk_field::NttField;
use rayon::prelude::*;

use crate::domain::Radix2Domain;
use crate::PolyError;
use crate::{Order, TwoAdicTransform};

/// A Reed–Solomon encoder with rate `2^−log_blowup` (rate 1/4: `log_blowup = 2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReedSolomon {
    pub log_blowup: u32,
    /// Order of the codeword (bit-reversed saves a permutation; FRI-style provers use it).
    pub output: Order,
}

impl ReedSolomon {
    /// Rate 1/4 with natural-order codewords.
    pub fn rate_quarter() -> Self {
        Self {
            log_blowup: 2,
            output: Order::Natural,
        }
    }

    /// The codeword of `message` (its coefficients; the length must be a power of two):
    /// zero-pad to `len << log_blowup`, then NTT.
    pub fn encode<F: NttField>(&self, message: &[F]) -> Result<Vec<F>, PolyError> {
        let n = message.len();
        if !n.is_power_of_two() {
            return Err(PolyError::NotPowerOfTwo(n));
        }
        let log_n = n.trailing_zeros() + self.log_blowup;
        let domain = Radix2Domain::<F>::cached(log_n)?;
        let mut out = message.to_vec();
        out.resize(domain.size(), F::ZERO);
        domain.forward(&mut out, Order::Natural, self.output)?;
        Ok(out)
    }

    /// Encodes each row of a row-major `R × n` matrix; returns the `R × (n << log_blowup)`
    /// matrix of codewords.
    pub fn encode_batch<F: NttField>(
        &self,
        rows: &[F],
        row_len: usize,
    ) -> Result<Vec<F>, PolyError> {
        if !row_len.is_power_of_two() {
            return Err(PolyError::NotPowerOfTwo(row_len));
        }
        if !rows.len().is_multiple_of(row_len) {
            return Err(PolyError::LengthMismatch {
                expected: rows.len().next_multiple_of(row_len),
                got: rows.len(),
            });
        }
        let log_n = row_len.trailing_zeros() + self.log_blowup;
        let domain = Radix2Domain::<F>::cached(log_n)?;
        let m = domain.size();
        let mut out = vec![F::ZERO; rows.len() / row_len * m];
        out.par_chunks_mut(m)
            .zip(rows.par_chunks(row_len))
            .for_each(|(o, r)| o[..row_len].copy_from_slice(r));
        domain.forward_batch(&mut out, Order::Natural, self.output)?;
        Ok(out)
    }
}
