//! Dense products over a field and its base as library calls: `Σ m[j]·v[j]` and `wᵀ·M`
//! (Orion's openings, Spartan's mask sums). A kernel reduces every product it makes; on
//! the CPU these sums are `fastzk_pcs`'s, which reduce once per sum
//! (`ExtensionOf::dot_base`: Goldilocks' cubic extension accumulates its 128-bit
//! products); on a device they are kernels.

use fastzk_field::NttField;
use fastzk_pcs::ExtensionOf;
use rayon::prelude::*;

use crate::{kernel, Arg, FieldVec, KernelField, RuntimeError, Sum, Task};

/// Products per parallel CPU sum.
const CHUNK: usize = 1 << 13;

/// `m[j]·v[j]`, `v` in the base field.
#[kernel]
fn times_base<F: KernelField>(j: usize, m: &[F], v: &[F::Base]) -> F {
    m[j].mul_by_base(v[j])
}

/// Entry `j` of `wᵀ·M` for the row-major base-field matrix `m` with rows of `k` values,
/// over its first `rows` rows.
#[kernel]
fn combine_row_entry<F: KernelField>(j: usize, m: &[F::Base], w: &[F], rows: usize, k: usize) -> F {
    let mut acc = F::ZERO;
    for i in 0..rows {
        acc += w[i].mul_by_base(m[i * k + j]);
    }
    acc
}

/// `w` weighs at most every row of a matrix of `len` values in rows of `k`.
fn rows_fit(len: usize, k: usize, weights: usize) -> Result<(), RuntimeError> {
    if k == 0 || !len.is_multiple_of(k) || weights > len / k {
        return Err(RuntimeError::Call {
            kernel: "combine_rows",
            what: format!("{weights} weights for {len} values in rows of {k}"),
        });
    }
    Ok(())
}

impl Task<'_> {
    /// `Σ_j m[j]·v[j]` over `m`'s length (`v`, in the base field, at least as long).
    pub fn dot_base<E>(&mut self, m: &FieldVec<E>, v: &FieldVec<E::Base>) -> Result<E, RuntimeError>
    where
        E: KernelField + ExtensionOf<E::Base>,
        E::Base: NttField,
    {
        if v.len() < m.len() {
            return Err(RuntimeError::Call {
                kernel: "dot_base",
                what: format!("{} values by {} base values", m.len(), v.len()),
            });
        }
        if self.context().device_handle().is_some() {
            let args = [Arg::Vec(m), Arg::BaseVec(v)];
            return Ok(self.map_reduce(TimesBase, Sum, m.len(), &args)?[0]);
        }
        let (m, v) = (m.host()?, v.host()?);
        Ok(m.par_chunks(CHUNK)
            .zip(v[..m.len()].par_chunks(CHUNK))
            .map(|(a, b)| E::dot_base(a.iter().copied().zip(b.iter().copied())))
            .sum())
    }

    /// `wᵀ·M` for the row-major base-field matrix `m` with rows of `k` values, `w` at
    /// most as long as the row count (the other rows get weight zero).
    pub fn combine_rows<E>(
        &mut self,
        m: &FieldVec<E::Base>,
        k: usize,
        w: &FieldVec<E>,
    ) -> Result<FieldVec<E>, RuntimeError>
    where
        E: KernelField + ExtensionOf<E::Base>,
        E::Base: NttField,
    {
        rows_fit(m.len(), k, w.len())?;
        if self.context().device_handle().is_some() {
            let args = [Arg::BaseVec(m), Arg::Vec(w), Arg::Int(w.len()), Arg::Int(k)];
            return self.map(CombineRowEntry, k, &args);
        }
        self.combine_rows_host(&m.host()?, k, &w.host()?)
    }

    /// [`Task::combine_rows`] of a matrix and weights on the host (a commitment's
    /// messages, say): read where they are on the CPU, uploaded once to a device.
    pub fn combine_rows_host<E>(
        &mut self,
        m: &[E::Base],
        k: usize,
        w: &[E],
    ) -> Result<FieldVec<E>, RuntimeError>
    where
        E: KernelField + ExtensionOf<E::Base>,
        E::Base: NttField,
    {
        let ctx = self.context();
        if ctx.device_handle().is_some() {
            return self.combine_rows(&ctx.vec(m.to_vec()), k, &ctx.vec(w.to_vec()));
        }
        rows_fit(m.len(), k, w.len())?;
        let combined =
            fastzk_pcs::combine_rows(m, k, w).map_err(|e| RuntimeError::Internal(e.to_string()))?;
        Ok(ctx.vec(combined))
    }
}

/// The device programs of [`Task::dot_base`] and [`Task::combine_rows`] over `E`, at
/// work-groups of `group` threads: to compile them elsewhere (NVRTC in CI).
pub fn dense_sources<E: KernelField>(group: usize) -> Vec<(&'static str, String)> {
    use crate::program_source;
    vec![
        ("times_base", program_source::<E, TimesBase, Sum>(0, group)),
        (
            "combine_row_entry",
            program_source::<E, CombineRowEntry, Sum>(1, group),
        ),
    ]
}
