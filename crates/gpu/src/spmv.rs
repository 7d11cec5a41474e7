//! Sparse matrix × vector on a device (cuZK §4.2's balanced CSR scheme): the matrix is
//! uploaded once with a chunk table (rows cut into chunks of at most [`CHUNK`] nonzeros),
//! one thread per chunk multiplies and adds, one thread per row adds its chunks.

use std::sync::Arc;

use fastzk_r1cs::Csr;

use crate::runtime::{Arg, Buffer, Device, Program};
use crate::source::{to_words, DeviceField, Source};
use crate::GpuError;

/// Most nonzeros one thread multiplies.
pub const CHUNK: usize = 32;

/// A matrix on a device.
pub struct DeviceMatrix {
    rows: usize,
    cols: usize,
    chunks: usize,
    col_idx: Buffer,
    vals: Buffer,
    chunk_start: Buffer,
    row_chunks: Buffer,
}

impl DeviceMatrix {
    pub fn n_rows(&self) -> usize {
        self.rows
    }
    pub fn n_cols(&self) -> usize {
        self.cols
    }
}

/// The SpMV kernels for `F` on one device.
pub struct DeviceSpmv<F> {
    device: Arc<Device>,
    program: Arc<Program>,
    _field: std::marker::PhantomData<F>,
}

impl<F: DeviceField> DeviceSpmv<F> {
    pub fn new(device: Arc<Device>) -> Result<Self, GpuError> {
        let mut src = Source::new();
        src.spmv::<F>();
        Ok(Self {
            program: device.program(src.text())?,
            device,
            _field: std::marker::PhantomData,
        })
    }

    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// `m` and its chunk table on the device.
    pub fn upload(&self, m: &Csr<F>) -> Result<DeviceMatrix, GpuError> {
        let too_big = || {
            GpuError::Unsupported(format!(
                "a matrix with {} nonzeros on a device (32-bit indices)",
                m.nnz()
            ))
        };
        u32::try_from(m.nnz()).map_err(|_| too_big())?;
        u32::try_from(m.n_rows() + 1).map_err(|_| too_big())?;
        let ptr = m.row_ptr();
        let mut chunk_start = Vec::new();
        let mut row_chunks = Vec::with_capacity(m.n_rows() + 1);
        for r in 0..m.n_rows() {
            row_chunks.push(chunk_start.len() as u32);
            let mut k = ptr[r];
            while k < ptr[r + 1] {
                chunk_start.push(k as u32);
                k += CHUNK;
            }
        }
        row_chunks.push(chunk_start.len() as u32);
        let chunks = chunk_start.len();
        chunk_start.push(m.nnz() as u32);
        let d = &self.device;
        Ok(DeviceMatrix {
            rows: m.n_rows(),
            cols: m.n_cols(),
            chunks,
            col_idx: d.upload(m.cols())?,
            vals: d.upload(&to_words(m.vals()))?,
            chunk_start: d.upload(&chunk_start)?,
            row_chunks: d.upload(&row_chunks)?,
        })
    }

    /// `m · z` for `z` on the device (`m.n_cols()` elements); the result stays there.
    pub fn apply(&self, m: &DeviceMatrix, z: &Buffer) -> Result<Buffer, GpuError> {
        if z.len() < m.cols * F::WORDS * 8 {
            return Err(GpuError::Unsupported(format!(
                "a vector of {} bytes for a matrix with {} columns",
                z.len(),
                m.cols
            )));
        }
        let d = &self.device;
        let bytes = F::WORDS * 8;
        let partial = d.alloc(m.chunks * bytes)?;
        d.launch(
            &self.program,
            &format!("{}_spmv_chunks", F::DEVICE_NAME),
            m.chunks,
            &[
                Arg::Buf(&m.col_idx),
                Arg::Buf(&m.vals),
                Arg::Buf(z),
                Arg::Buf(&m.chunk_start),
                Arg::U32(m.chunks as u32),
                Arg::Buf(&partial),
            ],
        )?;
        let y = d.alloc(m.rows * bytes)?;
        d.launch(
            &self.program,
            &format!("{}_spmv_rows", F::DEVICE_NAME),
            m.rows,
            &[
                Arg::Buf(&partial),
                Arg::Buf(&m.row_chunks),
                Arg::U32(m.rows as u32),
                Arg::Buf(&y),
            ],
        )?;
        Ok(y)
    }

    /// `out[i] = a[i]·b[i] − c[i]` for `n` elements on the device.
    pub fn mul_sub(
        &self,
        a: &Buffer,
        b: &Buffer,
        c: &Buffer,
        n: usize,
        out: &Buffer,
    ) -> Result<(), GpuError> {
        self.device.launch(
            &self.program,
            &format!("{}_mul_sub", F::DEVICE_NAME),
            n,
            &[
                Arg::Buf(a),
                Arg::Buf(b),
                Arg::Buf(c),
                Arg::U64(n as u64),
                Arg::Buf(out),
            ],
        )
    }
}
