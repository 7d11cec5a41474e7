//! The Groth16 prover's SpMV, NTTs and MSMs on a device ([`fastzk_groth16::Offload`]):
//! `a = A·z`, `b = B·z`, `c = a∘b`, their inverse and coset transforms and `a·b − c` stay
//! on the device from the witness's upload to the quotient's download, and every MSM
//! (G1 and G2) runs the device engine. As in cuZK §5, transfers overlap the work: while
//! the quotient's kernels run on the device's queue, a second thread uploads the key's
//! MSM bases on a stream of their own (when they take at most half the device's memory),
//! and the MSMs that follow find them resident.

use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use fastzk_curve::{Affine, Jacobian};
use fastzk_field::Field;
use fastzk_groth16::{Offload, ProveError, ProvingKey};
use fastzk_msm::{MsmEngine, MsmError};
use fastzk_pairing::PairingCurve;
use fastzk_poly::{Order, Subgroup, Transform};

use crate::msm::ResidentBases;
use crate::source::{from_words, to_words, DeviceCurve, DeviceField};
use crate::spmv::DeviceSpmv;
use crate::{Device, DeviceMsm, DeviceNtt, GpuError};

/// Groth16's heavy steps on one device.
pub struct DeviceOffload {
    msm: DeviceMsm,
    /// The key's bases uploaded during the quotient, each taken by the MSM over them.
    prefetched: Mutex<Vec<Prefetched>>,
    /// MSMs that found their bases prefetched.
    on_prefetched: AtomicU64,
}

/// Bases on the device, known by the address and length of the host slice they came from
/// (the proving key, borrowed for the whole proof).
struct Prefetched {
    at: usize,
    len: usize,
    bases: Box<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for DeviceOffload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceOffload({:?})", self.msm)
    }
}

impl DeviceOffload {
    pub fn new(device: Arc<Device>) -> Self {
        Self {
            msm: DeviceMsm::new(device),
            prefetched: Mutex::new(Vec::new()),
            on_prefetched: AtomicU64::new(0),
        }
    }

    /// How many MSMs so far ran on bases uploaded during the quotient.
    pub fn msms_on_prefetched_bases(&self) -> u64 {
        self.on_prefetched.load(Ordering::Relaxed)
    }

    pub fn device(&self) -> &Arc<Device> {
        self.msm.device()
    }

    fn prefetched(&self) -> std::sync::MutexGuard<'_, Vec<Prefetched>> {
        self.prefetched.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `bases` on the device. A failure (out of device memory, say) only means that the
    /// MSM will upload them itself.
    fn prefetch<C: DeviceCurve>(&self, bases: &[Affine<C>]) -> Option<Prefetched> {
        let resident = self.msm.upload_bases(bases).ok()?;
        Some(Prefetched {
            at: bases.as_ptr() as usize,
            len: bases.len(),
            bases: Box::new(resident),
        })
    }

    /// The MSM over `bases`: on the prefetched copy when there is one.
    fn msm<C: DeviceCurve>(
        &self,
        bases: &[Affine<C>],
        scalars: &[C::Scalar],
    ) -> Result<Jacobian<C>, MsmError> {
        let found = {
            let mut list = self.prefetched();
            let at = bases.as_ptr() as usize;
            list.iter()
                .position(|p| {
                    p.at == at && p.len == bases.len() && p.bases.is::<ResidentBases<C>>()
                })
                .map(|i| list.swap_remove(i))
        };
        match found.and_then(|p| p.bases.downcast::<ResidentBases<C>>().ok()) {
            Some(resident) => {
                self.on_prefetched.fetch_add(1, Ordering::Relaxed);
                self.msm.msm_resident(&resident, scalars)
            }
            None => self.msm.msm(bases, scalars),
        }
    }

    /// `p` on the odd coset, everything resident from the witness's upload on.
    fn quotient_on_device<E: PairingCurve>(
        &self,
        pk: &ProvingKey<E>,
        witness: &[E::Fr],
    ) -> Result<Vec<E::Fr>, ProveError>
    where
        E::Fr: DeviceField,
    {
        let d = self.device();
        let n = 1usize << pk.log_domain;
        if pk.a_matrix.n_rows() != n || pk.b_matrix.n_rows() != n {
            return Err(ProveError::Key(format!(
                "the matrices have {} and {} rows, the domain {n}",
                pk.a_matrix.n_rows(),
                pk.b_matrix.n_rows()
            )));
        }
        // a = A·z, b = B·z, c = a∘b on H, all resident; then each to the odd coset.
        let spmv = DeviceSpmv::<E::Fr>::new(d.clone()).map_err(prove_err)?;
        let z = d.upload(&to_words(witness)).map_err(prove_err)?;
        let a = spmv
            .apply(&spmv.upload(&pk.a_matrix).map_err(prove_err)?, &z)
            .map_err(prove_err)?;
        let b = spmv
            .apply(&spmv.upload(&pk.b_matrix).map_err(prove_err)?, &z)
            .map_err(prove_err)?;
        let bytes = n * E::Fr::WORDS * 8;
        let zero = d.alloc(bytes).map_err(prove_err)?;
        let c = d.alloc(bytes).map_err(prove_err)?;
        spmv.mul_sub(&a, &b, &zero, n, &c).map_err(prove_err)?;
        let h = Subgroup::with_root(pk.log_domain, pk.omega_2n.square())?;
        let domain = DeviceNtt::new(d.clone(), h).map_err(prove_err)?;
        let coset = DeviceNtt::new(d.clone(), h.with_coset(pk.omega_2n)?).map_err(prove_err)?;
        for v in [&a, &b, &c] {
            domain
                .apply_on_device(Transform::Inverse, v, 1, Order::Natural, Order::Natural)
                .map_err(prove_err)?;
            coset
                .apply_on_device(
                    Transform::CosetForward,
                    v,
                    1,
                    Order::Natural,
                    Order::Natural,
                )
                .map_err(prove_err)?;
        }
        spmv.mul_sub(&a, &b, &c, n, &zero).map_err(prove_err)?;
        let w: Vec<u64> = d.read_vec(&zero, n * E::Fr::WORDS).map_err(prove_err)?;
        Ok(from_words(&w))
    }
}

fn prove_err(e: GpuError) -> ProveError {
    ProveError::Poly(fastzk_poly::PolyError::Device(e.to_string()))
}

impl<E: PairingCurve> Offload<E> for DeviceOffload
where
    E::G1: DeviceCurve,
    E::G2: DeviceCurve,
    E::Fr: DeviceField,
{
    fn msm_g1(
        &self,
        bases: &[Affine<E::G1>],
        scalars: &[E::Fr],
    ) -> Result<Jacobian<E::G1>, MsmError> {
        self.msm(bases, scalars)
    }

    fn msm_g2(
        &self,
        bases: &[Affine<E::G2>],
        scalars: &[E::Fr],
    ) -> Result<Jacobian<E::G2>, MsmError> {
        self.msm(bases, scalars)
    }

    fn quotient(&self, pk: &ProvingKey<E>, witness: &[E::Fr]) -> Result<Vec<E::Fr>, ProveError> {
        self.prefetched().clear();
        // The five base sets stay resident until their MSMs: only when they take at most
        // half the device's memory, so that the quotient's buffers still fit beside them.
        // (The host's affine size: the device's plus a flag, near enough for a budget.)
        let g1 = size_of::<Affine<E::G1>>();
        let g2 = size_of::<Affine<E::G2>>();
        let bases_bytes = g1
            * (pk.h_query.len() + pk.a_query.len() + pk.b_g1_query.len() + pk.c_query.len())
            + g2 * pk.b_g2_query.len();
        if bases_bytes as u64 > self.device().info().memory / 2 {
            return self.quotient_on_device(pk, witness);
        }
        std::thread::scope(|s| {
            let fetch = s.spawn(|| {
                [
                    self.prefetch(&pk.h_query),
                    self.prefetch(&pk.a_query),
                    self.prefetch(&pk.b_g1_query),
                    self.prefetch(&pk.c_query),
                    self.prefetch(&pk.b_g2_query),
                ]
            });
            let p = self.quotient_on_device(pk, witness);
            if let Ok(got) = fetch.join() {
                self.prefetched().extend(got.into_iter().flatten());
            }
            p
        })
    }
}
