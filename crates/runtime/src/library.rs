//! Library kernels a task calls on its vectors beside the loops written once: the
//! operations the kernel subset cannot say, each with a CPU engine and a device one
//! (`fastzk-poly`'s NTT and `fastzk-gpu`'s `DeviceNtt`), kept per context and size.

use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex, OnceLock};

use fastzk_curve::{Affine, Jacobian};
use fastzk_field::NttField;
use fastzk_gpu::msm::ResidentBases;
use fastzk_gpu::spmv::{DeviceMatrix, DeviceSpmv};
use fastzk_gpu::{DeviceCurve, DeviceMsm, DeviceNtt};
use fastzk_msm::PreparedBases;
use fastzk_multilinear::mle::eq_table;
use fastzk_poly::{Order, Radix2Domain, Subgroup, Transform, TwoAdicTransform};
use fastzk_r1cs::Csr;
use rayon::prelude::*;

use crate::{kernel, Arg, FieldVec, KernelField, RuntimeError, Task};

/// A copy (the NTT transforms a fresh vector in place: vectors are immutable).
#[kernel]
fn copy<F: KernelField>(i: usize, v: &[F]) -> F {
    v[i]
}

/// Element `i` of rows of `2^log_width` values holding rows of `k` values padded with
/// zeros. (The kernel dialect takes a value `if` in a `let` only.)
#[kernel]
#[allow(clippy::let_and_return)]
fn zero_padded<F: KernelField>(i: usize, m: &[F], k: usize, log_width: usize) -> F {
    let row = i >> log_width;
    let col = i - (row << log_width);
    let v = if col < k { m[row * k + col] } else { F::ZERO };
    v
}

/// Entry `i` of `eq(r, ·)` from the tables of `r`'s two halves: the high half's entry at
/// `i`'s top bits times the low half's at its `lo_bits` low bits.
#[kernel]
fn eq_from_halves<F: KernelField>(i: usize, hi: &[F], lo: &[F], lo_bits: usize) -> F {
    hi[i >> lo_bits] * lo[i & ((1 << lo_bits) - 1)]
}

/// Variables below which `eq(r, ·)` is made whole on the host (a table of at most
/// 2^11 entries).
const EQ_ON_HOST_BELOW: usize = 12;

impl Task<'_> {
    /// `eq(r, x)` for every `x` of the hypercube, in `fastzk_multilinear::eq_table`'s
    /// order, on the context: the tables of `r`'s two halves (`2^(n/2)` entries each)
    /// are made on the host and their products where the context runs, so a device
    /// receives two short tables, not the `2^n` entries.
    pub fn eq_table<F: KernelField>(&mut self, r: &[F]) -> Result<FieldVec<F>, RuntimeError> {
        let ctx = self.context();
        if r.len() < EQ_ON_HOST_BELOW {
            return Ok(ctx.vec(eq_table(r)));
        }
        let h = r.len() / 2;
        let (hi, lo) = (ctx.vec(eq_table(&r[..h])), ctx.vec(eq_table(&r[h..])));
        let args = [Arg::Vec(&hi), Arg::Vec(&lo), Arg::Int(r.len() - h)];
        self.map(EqFromHalves, 1 << r.len(), &args)
    }

    /// The Reed–Solomon codewords of the rows of `k` values in `messages` (row-major):
    /// each row padded with zeros to `width` (a power of two, at least `k`) and
    /// transformed on the field's subgroup of that size, in one batch. Orion's encoding
    /// (`fastzk_pcs::encode_rows` on the CPU; [`Task::merkle_columns`] hashes the result).
    pub fn rs_encode<F: KernelField + NttField>(
        &mut self,
        messages: &FieldVec<F>,
        k: usize,
        width: usize,
    ) -> Result<FieldVec<F>, RuntimeError> {
        if k == 0 || k > width || !width.is_power_of_two() || !messages.len().is_multiple_of(k) {
            return Err(RuntimeError::Call {
                kernel: "rs_encode",
                what: format!(
                    "rows of {k} values into codewords of {width} (a power of two, at least \
                     the row) from {} values",
                    messages.len()
                ),
            });
        }
        let rows = messages.len() / k;
        let padded = if self.context().device_handle().is_some() {
            let log_width = width.trailing_zeros() as usize;
            let args = [Arg::Vec(messages), Arg::Int(k), Arg::Int(log_width)];
            self.map(ZeroPadded, rows * width, &args)?
        } else {
            // On the CPU a row is one copy (the kernel would take an index at a time).
            let m = messages.host()?;
            let mut p = vec![F::ZERO; rows * width];
            p.par_chunks_mut(width)
                .zip(m.par_chunks(k))
                .for_each(|(o, r)| o[..k].copy_from_slice(r));
            self.context().vec(p)
        };
        self.ntt_rows_into(
            Subgroup::new(width.trailing_zeros())?,
            padded,
            Transform::Forward,
            Order::Natural,
            Order::Natural,
        )
    }

    /// `kind` over the vector on the field's own subgroup of its length (a power of two
    /// within the field's two-adicity): [`Task::ntt_on`] with [`Subgroup::new`].
    pub fn ntt<F: KernelField + NttField>(
        &mut self,
        v: &FieldVec<F>,
        kind: Transform,
        input: Order,
        output: Order,
    ) -> Result<FieldVec<F>, RuntimeError> {
        let n = v.len();
        if !n.is_power_of_two() {
            return Err(RuntimeError::Call {
                kernel: "ntt",
                what: format!("a transform of {n} elements (not a power of two)"),
            });
        }
        self.ntt_on(Subgroup::new(n.trailing_zeros())?, v, kind, input, output)
    }

    /// `kind` over the vector on `subgroup` (its root and coset: a key's Lagrange basis
    /// fixes which root a prover must use), as a new vector: the CPU's radix-2 engine, or
    /// the device's (which synchronises this task first: it runs on the device's own
    /// queue), each made once per context and subgroup.
    pub fn ntt_on<F: KernelField + NttField>(
        &mut self,
        subgroup: Subgroup<F>,
        v: &FieldVec<F>,
        kind: Transform,
        input: Order,
        output: Order,
    ) -> Result<FieldVec<F>, RuntimeError> {
        self.transform(subgroup, Input::Borrowed(v), 1, kind, input, output)
    }

    /// [`Task::ntt_on`] of a vector given up: on the CPU its host copy is transformed in
    /// place when nothing else shares it (no copy).
    pub fn ntt_into<F: KernelField + NttField>(
        &mut self,
        subgroup: Subgroup<F>,
        v: FieldVec<F>,
        kind: Transform,
        input: Order,
        output: Order,
    ) -> Result<FieldVec<F>, RuntimeError> {
        self.transform(subgroup, Input::Owned(v), 1, kind, input, output)
    }

    /// `kind` on every row of a row-major matrix of rows of `subgroup`'s size, in one
    /// batch (a Reed–Solomon encoding of many rows, say), the vector given up as
    /// [`Task::ntt_into`].
    pub fn ntt_rows_into<F: KernelField + NttField>(
        &mut self,
        subgroup: Subgroup<F>,
        v: FieldVec<F>,
        kind: Transform,
        input: Order,
        output: Order,
    ) -> Result<FieldVec<F>, RuntimeError> {
        if v.is_empty() {
            return Ok(v);
        }
        let rows = v.len() / subgroup.size();
        self.transform(subgroup, Input::Owned(v), rows, kind, input, output)
    }

    fn transform<F: KernelField + NttField>(
        &mut self,
        subgroup: Subgroup<F>,
        v: Input<'_, F>,
        rows: usize,
        kind: Transform,
        input: Order,
        output: Order,
    ) -> Result<FieldVec<F>, RuntimeError> {
        let v_ref = match &v {
            Input::Borrowed(v) => *v,
            Input::Owned(v) => v,
        };
        let n = v_ref.len();
        if n != rows * subgroup.size() {
            return Err(RuntimeError::Call {
                kernel: "ntt",
                what: format!(
                    "a transform of {n} elements on a subgroup of {} ({rows} rows)",
                    subgroup.size()
                ),
            });
        }
        let mut key = vec![subgroup.log_size() as u8];
        key.extend(subgroup.generator().to_le_bytes());
        key.extend(subgroup.coset_shift().to_le_bytes());
        let ctx = self.context();
        let Some(dev) = ctx.device_handle() else {
            let engine = ctx.cached(key, || Ok(Radix2Domain::on(subgroup)))?;
            let mut a = match v {
                Input::Borrowed(v) => v.to_vec()?,
                Input::Owned(v) => v.into_vec()?,
            };
            engine.apply_batch(kind, &mut a, input, output)?;
            return Ok(ctx.vec(a));
        };
        let engine = ctx.cached(key, || -> Result<_, RuntimeError> {
            Ok(DeviceNtt::<F>::new(dev.clone(), subgroup)?)
        })?;
        let out = self.map(Copy, n, &[Arg::Vec(v_ref)])?;
        self.sync()?;
        let buf = out
            .device_buffer()
            .ok_or_else(|| RuntimeError::Internal("a copy made on the device".into()))?;
        engine.apply_on_device(kind, &buf, rows, input, output)?;
        dev.finish()?;
        Ok(out)
    }
}

/// A transform's input: borrowed (copied), or given up.
enum Input<'a, F> {
    Borrowed(&'a FieldVec<F>),
    Owned(FieldVec<F>),
}

/// Points many MSMs run over (a key's powers of tau, say): on the CPU prepared once for
/// its MSM engine, on a device uploaded once (at [`Task::prepare`] or the first MSM there)
/// and kept, one copy per device.
pub struct Points<'a, C: DeviceCurve> {
    host: &'a [Affine<C>],
    prepared: OnceLock<PreparedBases<'a, C>>,
    device: PerDevice<ResidentBases<C>>,
}

impl<'a, C: DeviceCurve> Points<'a, C> {
    pub fn new(host: &'a [Affine<C>]) -> Self {
        Self {
            host,
            prepared: OnceLock::new(),
            device: PerDevice::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.host.len()
    }

    pub fn is_empty(&self) -> bool {
        self.host.is_empty()
    }

    fn prepared(&self) -> &PreparedBases<'a, C> {
        self.prepared.get_or_init(|| PreparedBases::new(self.host))
    }

    /// The copy on `ctx`'s device, uploaded if there is none yet (an upload in the
    /// context's traffic).
    fn on_device(
        &self,
        ctx: &crate::Context,
        dev: &Arc<fastzk_gpu::Device>,
    ) -> Result<Arc<ResidentBases<C>>, RuntimeError> {
        self.device.get_or_upload(dev, || {
            let on = ctx.msm_engine(dev)?.upload_bases(self.host)?;
            ctx.counters().uploaded(on.device_bytes());
            Ok(on)
        })
    }
}

/// A copy of something per device, made at its first use there (a key's points, a
/// matrix): host data outlives contexts, so the copy is kept by the data.
pub(crate) struct PerDevice<T>(Mutex<Vec<(Arc<fastzk_gpu::Device>, Arc<T>)>>);

impl<T> Default for PerDevice<T> {
    fn default() -> Self {
        Self(Mutex::new(Vec::new()))
    }
}

impl<T> PerDevice<T> {
    pub(crate) fn get_or_upload(
        &self,
        dev: &Arc<fastzk_gpu::Device>,
        upload: impl FnOnce() -> Result<T, RuntimeError>,
    ) -> Result<Arc<T>, RuntimeError> {
        let mut held = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, on)) = held.iter().find(|(d, _)| Arc::ptr_eq(d, dev)) {
            return Ok(on.clone());
        }
        let on = Arc::new(upload()?);
        held.push((dev.clone(), on.clone()));
        Ok(on)
    }
}

impl Task<'_> {
    /// Makes `points` ready for this context's MSMs now (prepared on the CPU, uploaded to
    /// the device on a stream of its own, through pinned memory), so that a caller can
    /// overlap it with other work; an MSM does it itself otherwise.
    pub fn prepare<C: DeviceCurve>(&mut self, points: &Points<'_, C>) -> Result<(), RuntimeError>
    where
        C::Scalar: KernelField,
    {
        let ctx = self.context();
        match ctx.device_handle() {
            None => {
                points.prepared();
            }
            Some(dev) => {
                points.on_device(ctx, dev)?;
            }
        }
        Ok(())
    }

    /// `Σ scalars[i]·points[i]` over the first `scalars.len()` points, the scalars a
    /// vector of this context (downloaded first if they are only on the device, as the
    /// traffic shows): [`Task::msm_host`].
    pub fn msm<C: DeviceCurve>(
        &mut self,
        points: &Points<'_, C>,
        scalars: &FieldVec<C::Scalar>,
    ) -> Result<Jacobian<C>, RuntimeError>
    where
        C::Scalar: KernelField,
    {
        self.msm_host(points, &scalars.host()?)
    }

    /// `Σ scalars[i]·points[i]` over the first `scalars.len()` points, the scalars on the
    /// host: the CPU's MSM on the prepared points, or the device's (cuZK's, `DeviceMsm`,
    /// on the points' device copy, the scalars uploaded in pieces through pinned memory
    /// while the first are processed). Each call runs on streams of its own, so MSMs
    /// from concurrent tasks overlap. A sum of points is the MSM with every scalar one.
    pub fn msm_host<C: DeviceCurve>(
        &mut self,
        points: &Points<'_, C>,
        scalars: &[C::Scalar],
    ) -> Result<Jacobian<C>, RuntimeError>
    where
        C::Scalar: KernelField,
    {
        let call = |what: String| RuntimeError::Call {
            kernel: "msm",
            what,
        };
        if scalars.len() > points.len() {
            return Err(call(format!(
                "{} scalars for {} points",
                scalars.len(),
                points.len()
            )));
        }
        let ctx = self.context();
        let r = match ctx.device_handle() {
            None => points.prepared().msm(scalars),
            Some(dev) => {
                self.sync()?;
                let on = points.on_device(ctx, dev)?;
                // The scalars cross too (in the engine's pieces): one upload.
                ctx.counters()
                    .uploaded(scalars.len() * <C::Scalar as fastzk_gpu::DeviceField>::WORDS * 8);
                ctx.msm_engine(dev)?.msm_resident(&on, scalars)
            }
        };
        r.map_err(|e| call(e.to_string()))
    }
}

/// A sparse matrix for [`Task::spmv`], borrowed from the host (a circuit's): uploaded to
/// a device at its first product there, then kept (one copy per device).
pub struct Matrix<'a, F> {
    csr: &'a Csr<F>,
    device: PerDevice<DeviceMatrix>,
}

impl<'a, F: KernelField> Matrix<'a, F> {
    pub fn new(csr: &'a Csr<F>) -> Self {
        Self {
            csr,
            device: PerDevice::default(),
        }
    }

    pub fn csr(&self) -> &Csr<F> {
        self.csr
    }
}

impl Task<'_> {
    /// `m · z` as a new vector (`z` of `m`'s column count): the CPU's SpMV (the scheme
    /// chosen from the rows), or the device's (cuZK's balanced CSR, the matrix uploaded
    /// once), its result left on the device. The device's runs on its own queue, so the
    /// call synchronises this task.
    pub fn spmv<F: KernelField>(
        &mut self,
        m: &Matrix<'_, F>,
        z: &FieldVec<F>,
    ) -> Result<FieldVec<F>, RuntimeError> {
        if z.len() != m.csr.n_cols() {
            return Err(RuntimeError::Call {
                kernel: "spmv",
                what: format!(
                    "a vector of {} elements for a matrix of {} columns",
                    z.len(),
                    m.csr.n_cols()
                ),
            });
        }
        let ctx = self.context();
        let Some(dev) = ctx.device_handle() else {
            return Ok(ctx.vec(fastzk_r1cs::spmv(m.csr, &z.host()?)));
        };
        let engine = ctx.cached(vec![], || Ok(DeviceSpmv::<F>::new(dev.clone())?))?;
        let (zb, ready) = z.device_copy(|w| self.upload(dev, w))?;
        let on_device = m.device.get_or_upload(dev, || Ok(engine.upload(m.csr)?))?;
        self.sync()?;
        ready.wait()?;
        let y = engine.apply(&on_device, &zb)?;
        dev.finish()?;
        Ok(FieldVec::from_device(
            ctx.shared(),
            m.csr.n_rows(),
            Arc::new(y),
            Arc::new(self.record()?),
        ))
    }
}

impl crate::Context {
    /// The device's MSM engine, one per context.
    fn msm_engine(&self, dev: &Arc<fastzk_gpu::Device>) -> Result<Arc<DeviceMsm>, RuntimeError> {
        self.cached(vec![], || Ok(DeviceMsm::new(dev.clone())))
    }

    /// The engine of type `E` for what `key` names, made once per context.
    pub(crate) fn cached<E: Any + Send + Sync>(
        &self,
        key: Vec<u8>,
        make: impl FnOnce() -> Result<E, RuntimeError>,
    ) -> Result<Arc<E>, RuntimeError> {
        let key = (TypeId::of::<E>(), key);
        if let Some(e) = self.lock_engines().get(&key) {
            if let Ok(e) = e.clone().downcast::<E>() {
                return Ok(e);
            }
        }
        let e = Arc::new(make()?);
        self.lock_engines().insert(key, e.clone());
        Ok(e)
    }
}
