//! `Σ_k w_k·M_kᵀ·v`: sparse matrices over a base field read by their columns, weighted
//! by an extension vector over their rows (Spartan's `M(r_x, ·)`, where `v = eq(r_x, ·)`)
//! — a library call, like the SpMV: the kernel subset cannot read integer index arrays.
//!
//! On the CPU the products are scattered into buckets of columns and each block of
//! columns then sums its buckets (no write lands at random in a table larger than a
//! cache). On a device the matrices are transposed once into segments, one per column
//! and matrix, cut into chunks of at most [`CHUNK`] entries as cuZK's balanced CSR
//! scheme: one thread per chunk gathers `v`, one per column adds its chunks with the
//! weights.

use std::sync::Arc;

use fastzk_gpu::runtime::{Arg, Buffer, Program};
use fastzk_gpu::source::{to_words, DeviceField, Source};
use fastzk_gpu::spmv::CHUNK;
use fastzk_r1cs::Csr;
use rayon::prelude::*;

use crate::library::PerDevice;
use crate::{FieldVec, KernelField, RuntimeError, Task};

/// Matrices of one shape for [`Task::spmv_transposed`], borrowed from the host (a
/// circuit's): transposed for a device at their first product there, then kept.
pub struct Transposed<'a, B> {
    mats: Vec<&'a Csr<B>>,
    device: PerDevice<DeviceColumns>,
}

impl<'a, B: KernelField> Transposed<'a, B> {
    /// The matrices, all of one shape (an error names the first that is not).
    pub fn new(mats: &[&'a Csr<B>]) -> Result<Self, RuntimeError> {
        if let Some((k, m)) = mats
            .iter()
            .enumerate()
            .find(|(_, m)| (m.n_rows(), m.n_cols()) != (mats[0].n_rows(), mats[0].n_cols()))
        {
            return Err(call(format!(
                "matrix {k} is {}×{}, matrix 0 {}×{}",
                m.n_rows(),
                m.n_cols(),
                mats[0].n_rows(),
                mats[0].n_cols()
            )));
        }
        Ok(Self {
            mats: mats.to_vec(),
            device: PerDevice::default(),
        })
    }

    pub fn n_rows(&self) -> usize {
        self.mats.first().map_or(0, |m| m.n_rows())
    }

    pub fn n_cols(&self) -> usize {
        self.mats.first().map_or(0, |m| m.n_cols())
    }
}

fn call(what: String) -> RuntimeError {
    RuntimeError::Call {
        kernel: "spmv_transposed",
        what,
    }
}

impl Task<'_> {
    /// `Σ_k weights[k]·M_kᵀ·v` as a new vector over the columns, for `v` over the rows:
    /// base-field matrices, extension-field vectors (or one field for both). On a
    /// device the result stays there; the device's work runs on its own queue, so the
    /// call synchronises this task.
    pub fn spmv_transposed<E: KernelField>(
        &mut self,
        m: &Transposed<'_, E::Base>,
        weights: &[E],
        v: &FieldVec<E>,
    ) -> Result<FieldVec<E>, RuntimeError> {
        if weights.len() != m.mats.len() {
            return Err(call(format!(
                "{} weights for {} matrices",
                weights.len(),
                m.mats.len()
            )));
        }
        if v.len() != m.n_rows() {
            return Err(call(format!(
                "a vector of {} elements for matrices of {} rows",
                v.len(),
                m.n_rows()
            )));
        }
        let ctx = self.context();
        let dev = match ctx.device_handle() {
            Some(dev) if m.n_cols() > 0 => dev,
            _ => {
                let out = scatter(&m.mats, weights, &v.host()?, SCATTER_ROUND_BYTES);
                return Ok(ctx.vec(out));
            }
        };
        let engine = ctx.cached(vec![], || ColumnsEngine::<E>::new(dev))?;
        let on = m
            .device
            .get_or_upload(dev, || DeviceColumns::build(dev, &m.mats))?;
        let (vb, ready) = v.device_copy(|w| self.upload(dev, w))?;
        self.sync()?;
        ready.wait()?;
        let w = to_words(weights);
        ctx.counters().uploaded(w.len() * 8);
        let y = engine.apply(&on, &w, &vb)?;
        dev.finish()?;
        Ok(FieldVec::from_device(
            ctx.shared(),
            m.n_cols(),
            Arc::new(y),
            Arc::new(self.record()?),
        ))
    }
}

/// Columns per bucket of [`scatter`]'s second pass: 2^13 extension elements (192 KiB
/// for `GoldilocksExt3`) stay in a core's L2 cache.
const SCATTER_BUCKET_BITS: usize = 13;
/// Bytes of `(column, value)` pairs [`scatter`] buffers per round: rounds reuse the
/// buckets, so the scratch stays a few MiB however large the matrices (fresh pages cost
/// more here than the products written to them: a single round, 32 bytes per nonzero,
/// was 6 % slower at 2^18 constraints and no faster at 2^20).
const SCATTER_ROUND_BYTES: usize = 4 << 20;

/// The CPU's `Σ_k w_k·M_kᵀ·v`: in rounds of rows (as many as `round_bytes` of pairs
/// need), each task walks its share of the round and appends `(column, w_k·v[i]·a)` to a
/// bucket per block of `2^13` columns; then each block sums its buckets from every task.
/// (Scattering straight into a table of 2^21 elements cost a cache miss per entry.)
fn scatter<E: KernelField>(
    mats: &[&Csr<E::Base>],
    weights: &[E],
    v: &[E],
    round_bytes: usize,
) -> Vec<E> {
    let Some(first) = mats.first() else {
        return Vec::new();
    };
    let (n_rows, cols) = (first.n_rows(), first.n_cols());
    let bits = SCATTER_BUCKET_BITS;
    let n_buckets = cols.div_ceil(1 << bits);
    let tasks = rayon::current_num_threads().max(1);
    let nnz: usize = mats.iter().map(|m| m.nnz()).sum();
    let pair = size_of::<(u32, E)>();
    let rounds = (nnz * pair).div_ceil(round_bytes.max(1)).max(1);
    let round_rows = n_rows.div_ceil(rounds).max(1);
    // Each bucket's expected share of a round (buckets grow past it when a round's
    // columns are uneven), and an eighth more.
    let per_bucket = nnz.div_ceil(rounds * tasks * n_buckets.max(1));
    let reserve = per_bucket + per_bucket / 8 + 16;
    let mut parts: Vec<Vec<Vec<(u32, E)>>> = (0..tasks)
        .map(|_| {
            (0..n_buckets)
                .map(|_| Vec::with_capacity(reserve))
                .collect()
        })
        .collect();
    let mut out = vec![E::ZERO; cols];
    let mask = (1usize << bits) - 1;
    for round in (0..n_rows).step_by(round_rows) {
        let round_end = (round + round_rows).min(n_rows);
        let per_task = (round_end - round).div_ceil(tasks).max(1);
        parts.par_iter_mut().enumerate().for_each(|(k, buckets)| {
            buckets.iter_mut().for_each(Vec::clear);
            let start = (round + k * per_task).min(round_end);
            let end = (start + per_task).min(round_end);
            for (i, v_i) in (start..end).zip(&v[start..end]) {
                for (m, w) in mats.iter().zip(weights) {
                    let (cs, vs) = m.row(i);
                    if cs.is_empty() {
                        continue;
                    }
                    let wv = *w * *v_i;
                    for (c, a) in cs.iter().zip(vs) {
                        buckets[*c as usize >> bits].push((*c, wv.mul_by_base(*a)));
                    }
                }
            }
        });
        out.par_chunks_mut(1 << bits)
            .enumerate()
            .for_each(|(b, block)| {
                for part in &parts {
                    for &(col, v) in &part[b] {
                        block[col as usize & mask] += v;
                    }
                }
            });
    }
    out
}

/// Matrices transposed on a device: segment `j·K + k` holds column `j` of matrix `k`
/// (its rows and values, rows ascending), cut into chunks of at most [`CHUNK`] entries.
pub(crate) struct DeviceColumns {
    mats: usize,
    cols: usize,
    chunks: usize,
    rows: Buffer,
    vals: Buffer,
    chunk_start: Buffer,
    seg_chunks: Buffer,
}

impl DeviceColumns {
    fn build<B: DeviceField>(
        dev: &fastzk_gpu::Device,
        mats: &[&Csr<B>],
    ) -> Result<Self, RuntimeError> {
        let k = mats.len();
        let cols = mats[0].n_cols();
        let nnz: usize = mats.iter().map(|m| m.nnz()).sum();
        let segs = cols * k;
        if u32::try_from(nnz).is_err() || u32::try_from(mats[0].n_rows()).is_err() {
            return Err(call(format!(
                "matrices with {nnz} nonzeros on a device (32-bit indices)"
            )));
        }
        // Counting sort by segment; rows come out ascending within each.
        let mut start = vec![0usize; segs + 1];
        for (m, mat) in mats.iter().enumerate() {
            for c in mat.cols() {
                start[*c as usize * k + m + 1] += 1;
            }
        }
        for s in 0..segs {
            start[s + 1] += start[s];
        }
        let mut next = start.clone();
        let mut rows = vec![0u32; nnz.max(1)];
        let mut vals = vec![B::ZERO; nnz.max(1)];
        for (m, mat) in mats.iter().enumerate() {
            for r in 0..mat.n_rows() {
                let (cs, vs) = mat.row(r);
                for (c, a) in cs.iter().zip(vs) {
                    let at = &mut next[*c as usize * k + m];
                    rows[*at] = r as u32;
                    vals[*at] = *a;
                    *at += 1;
                }
            }
        }
        let mut chunk_start = Vec::new();
        let mut seg_chunks = Vec::with_capacity(segs + 1);
        for s in 0..segs {
            seg_chunks.push(chunk_start.len() as u32);
            chunk_start.extend((start[s]..start[s + 1]).step_by(CHUNK).map(|e| e as u32));
        }
        seg_chunks.push(chunk_start.len() as u32);
        let chunks = chunk_start.len();
        chunk_start.push(nnz as u32);
        Ok(Self {
            mats: k,
            cols,
            chunks,
            rows: dev.upload(&rows)?,
            vals: dev.upload(&to_words(&vals))?,
            chunk_start: dev.upload(&chunk_start)?,
            seg_chunks: dev.upload(&seg_chunks)?,
        })
    }
}

/// The two kernels for an extension `FZ_F` over `FZ_B` (a prime field its own base).
const COLUMNS_C: &str = r#"
KERNEL fzt_chunks(GLOBAL const u32 *rows, GLOBAL const FZ_B *vals, GLOBAL const FZ_F *v,
                  GLOBAL const u32 *chunk_start, u32 chunks, GLOBAL FZ_F *partial FZ_COUNTERS) {
  u64 t = GLOBAL_ID();
  if (t >= chunks) return;
  FZ_F acc = KF(zero)();
  for (u32 k = chunk_start[t]; k < chunk_start[t + 1]; k++)
    acc = KF(add)(acc, KF(mul_base)(v[rows[k]], vals[k]));
  partial[t] = acc;
}
KERNEL fzt_columns(GLOBAL const FZ_F *partial, GLOBAL const u32 *seg_chunks,
                   GLOBAL const FZ_F *w, u32 mats, u32 cols, GLOBAL FZ_F *y FZ_COUNTERS) {
  u64 j = GLOBAL_ID();
  if (j >= cols) return;
  FZ_F acc = KF(zero)();
  for (u32 m = 0; m < mats; m++) {
    FZ_F s = KF(zero)();
    u64 seg = j * mats + m;
    for (u32 k = seg_chunks[seg]; k < seg_chunks[seg + 1]; k++) s = KF(add)(s, partial[k]);
    acc = KF(add)(acc, KF(mul)(w[m], s));
  }
  y[j] = acc;
}
"#;

/// The device program of [`Task::spmv_transposed`] over `E` (to compile it elsewhere:
/// NVRTC in CI).
pub fn transposed_source<E: KernelField>() -> String {
    let mut src = Source::new();
    src.field::<E::Base>().field::<E>();
    let mut c = format!(
        "#define FZ_F {}\n#define FZ_B {}\n#define KF(x) FZ_NAME(FZ_F, x)\n",
        E::DEVICE_NAME,
        <E::Base as DeviceField>::DEVICE_NAME
    );
    c.push_str(crate::context::base_products::<E>());
    c.push_str(COLUMNS_C);
    c.push_str("#undef KF\n#undef FZ_B\n#undef FZ_F\n");
    src.append(&c);
    src.text().to_string()
}

/// The program of [`COLUMNS_C`] over `E`, one per context.
struct ColumnsEngine<E> {
    device: Arc<fastzk_gpu::Device>,
    program: Arc<Program>,
    _field: std::marker::PhantomData<E>,
}

impl<E: KernelField> ColumnsEngine<E> {
    fn new(device: &Arc<fastzk_gpu::Device>) -> Result<Self, RuntimeError> {
        Ok(Self {
            program: device.program(&transposed_source::<E>())?,
            device: device.clone(),
            _field: std::marker::PhantomData,
        })
    }

    fn apply(&self, m: &DeviceColumns, w: &[u64], v: &Buffer) -> Result<Buffer, RuntimeError> {
        let d = &self.device;
        let bytes = E::WORDS * 8;
        let partial = d.alloc(m.chunks.max(1) * bytes)?;
        d.launch(
            &self.program,
            "fzt_chunks",
            m.chunks,
            &[
                Arg::Buf(&m.rows),
                Arg::Buf(&m.vals),
                Arg::Buf(v),
                Arg::Buf(&m.chunk_start),
                Arg::U32(m.chunks as u32),
                Arg::Buf(&partial),
            ],
        )?;
        let wb = d.upload(w)?;
        let y = d.alloc(m.cols * bytes)?;
        d.launch(
            &self.program,
            "fzt_columns",
            m.cols,
            &[
                Arg::Buf(&partial),
                Arg::Buf(&m.seg_chunks),
                Arg::Buf(&wb),
                Arg::U32(m.mats as u32),
                Arg::U32(m.cols as u32),
                Arg::Buf(&y),
            ],
        )?;
        Ok(y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastzk_field::{Field, Goldilocks, GoldilocksExt3};
    use rand::{Rng, SeedableRng};

    /// The scatter in any number of rounds (a pair per round up to one round) against the
    /// sum over the entries, on matrices wider than a bucket.
    #[test]
    fn scatter_matches_the_entry_sum_in_any_rounds() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let (rows, cols) = (300, (1 << SCATTER_BUCKET_BITS) + 77);
        let mats: Vec<Csr<Goldilocks>> = (0..3)
            .map(|_| {
                let t: Vec<(u32, u32, Goldilocks)> = (0..900)
                    .map(|_| {
                        let v = Goldilocks::random(&mut rng);
                        (
                            rng.gen_range(0..rows) as u32,
                            rng.gen_range(0..cols) as u32,
                            v,
                        )
                    })
                    .collect();
                Csr::from_triplets(rows, cols, &t).unwrap()
            })
            .collect();
        let refs: Vec<&Csr<Goldilocks>> = mats.iter().collect();
        let v: Vec<GoldilocksExt3> = (0..rows)
            .map(|_| GoldilocksExt3::random(&mut rng))
            .collect();
        let w: Vec<GoldilocksExt3> = (0..3).map(|_| GoldilocksExt3::random(&mut rng)).collect();
        let mut want = vec![GoldilocksExt3::ZERO; cols];
        for (m, wk) in refs.iter().zip(&w) {
            for (i, c, a) in m.triplets() {
                want[c as usize] += *wk * v[i] * GoldilocksExt3::lift(a);
            }
        }
        for round_bytes in [1, 1000, 1 << 14, usize::MAX] {
            assert_eq!(scatter(&refs, &w, &v, round_bytes), want, "{round_bytes}");
        }
    }
}
