//! Library kernels a task calls on its vectors beside the loops written once: the
//! operations the kernel subset cannot say, each with a CPU engine and a device one
//! (`fastzk-poly`'s NTT and `fastzk-gpu`'s `DeviceNtt`), kept per context and size.

use std::any::{Any, TypeId};
use std::sync::Arc;

use fastzk_curve::{Affine, Jacobian};
use fastzk_field::NttField;
use fastzk_gpu::spmv::{DeviceMatrix, DeviceSpmv};
use fastzk_gpu::{DeviceCurve, DeviceMsm, DeviceNtt};
use fastzk_msm::MsmEngine;
use fastzk_poly::{Order, Radix2Domain, Subgroup, Transform, TwoAdicTransform};
use fastzk_r1cs::Csr;

use crate::{kernel, Arg, FieldVec, KernelField, RuntimeError, Task};

/// A copy (the NTT transforms a fresh vector in place: vectors are immutable).
#[kernel]
fn copy<F: KernelField>(i: usize, v: &[F]) -> F {
    v[i]
}

impl Task<'_> {
    /// `kind` over the vector (one transform of its length, a power of two within the
    /// field's two-adicity), as a new vector: the CPU's radix-2 engine, or the device's
    /// (which synchronises this task first: it runs on the device's own queue).
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
        let log_n = n.trailing_zeros();
        let ctx = self.context();
        let Some(dev) = ctx.device_handle() else {
            let engine = ctx.cached(log_n, || -> Result<_, RuntimeError> {
                Ok(Radix2Domain::<F>::new(log_n)?)
            })?;
            let mut a = v.to_vec()?;
            engine.apply(kind, &mut a, input, output)?;
            return Ok(ctx.vec(a));
        };
        let engine = ctx.cached(log_n, || -> Result<_, RuntimeError> {
            Ok(DeviceNtt::<F>::new(dev.clone(), Subgroup::new(log_n)?)?)
        })?;
        let out = self.map(Copy, n, &[Arg::Vec(v)])?;
        self.sync()?;
        let buf = out
            .device_buffer()
            .ok_or_else(|| RuntimeError::Internal("a copy made on the device".into()))?;
        engine.apply_on_device(kind, &buf, 1, input, output)?;
        dev.finish()?;
        Ok(out)
    }
}

impl Task<'_> {
    /// `Σ scalars[i]·bases[i]` with the scalars a vector of this task's context: the CPU's
    /// MSM, or the device's (cuZK's, `DeviceMsm`). Both take the scalars from the host
    /// (downloaded if they are only on the device, as the traffic shows); the device's
    /// uploads them in pieces as it does for any caller. A sum of points is the MSM with
    /// every scalar one.
    pub fn msm<C: DeviceCurve>(
        &mut self,
        bases: &[Affine<C>],
        scalars: &FieldVec<C::Scalar>,
    ) -> Result<Jacobian<C>, RuntimeError>
    where
        C::Scalar: KernelField,
    {
        let ctx = self.context();
        let host = scalars.host()?;
        let r = match ctx.device_handle() {
            None => fastzk_msm::msm(bases, &host),
            Some(dev) => {
                self.sync()?;
                let engine = ctx.cached(0, || Ok(DeviceMsm::new(dev.clone())))?;
                engine.msm(bases, &host)
            }
        };
        r.map_err(|e| RuntimeError::Call {
            kernel: "msm",
            what: e.to_string(),
        })
    }
}

/// A sparse matrix for [`Task::spmv`]: held on the host, and uploaded to a device at its
/// first product there, then kept (one copy per device).
pub struct Matrix<F> {
    csr: Arc<Csr<F>>,
    device: std::sync::Mutex<Vec<(Arc<fastzk_gpu::Device>, Arc<DeviceMatrix>)>>,
}

impl<F: KernelField> Matrix<F> {
    pub fn new(csr: Csr<F>) -> Self {
        Self {
            csr: Arc::new(csr),
            device: std::sync::Mutex::new(Vec::new()),
        }
    }

    pub fn csr(&self) -> &Csr<F> {
        &self.csr
    }
}

impl Task<'_> {
    /// `m · z` as a new vector (`z` of `m`'s column count): the CPU's SpMV (the scheme
    /// chosen from the rows), or the device's (cuZK's balanced CSR, the matrix uploaded
    /// once), its result left on the device. The device's runs on its own queue, so the
    /// call synchronises this task.
    pub fn spmv<F: KernelField>(
        &mut self,
        m: &Matrix<F>,
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
            return Ok(ctx.vec(fastzk_r1cs::spmv(&m.csr, &z.host()?)));
        };
        let engine = ctx.cached(0, || Ok(DeviceSpmv::<F>::new(dev.clone())?))?;
        let (zb, ready) = z.device_copy(|w| self.upload(dev, w))?;
        let on_device = {
            let mut held = m.device.lock().unwrap_or_else(|e| e.into_inner());
            match held.iter().find(|(d, _)| Arc::ptr_eq(d, dev)) {
                Some((_, on)) => on.clone(),
                None => {
                    let on = Arc::new(engine.upload(&m.csr)?);
                    held.push((dev.clone(), on.clone()));
                    on
                }
            }
        };
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
    /// The engine of type `E` for size `2^log_n`, made once per context.
    fn cached<E: Any + Send + Sync>(
        &self,
        log_n: u32,
        make: impl FnOnce() -> Result<E, RuntimeError>,
    ) -> Result<Arc<E>, RuntimeError> {
        let key = (TypeId::of::<E>(), log_n);
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
