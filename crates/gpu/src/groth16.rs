//! The Groth16 prover's SpMV, NTTs and MSMs on a device ([`fastzk_groth16::Offload`]):
//! `a = A·z`, `b = B·z`, `c = a∘b`, their inverse and coset transforms and `a·b − c` stay
//! on the device from the witness's upload to the quotient's download (cuZK §5's
//! pipeline, without the overlap yet), and every MSM (G1 and G2) runs the device engine.

use std::sync::Arc;

use fastzk_curve::{Affine, Jacobian};
use fastzk_field::Field;
use fastzk_groth16::{Offload, ProveError, ProvingKey};
use fastzk_msm::{MsmEngine, MsmError};
use fastzk_pairing::PairingCurve;
use fastzk_poly::{Order, Subgroup, Transform};

use crate::source::{from_words, to_words, DeviceCurve, DeviceField};
use crate::spmv::DeviceSpmv;
use crate::{Device, DeviceMsm, DeviceNtt, GpuError};

/// Groth16's heavy steps on one device.
#[derive(Clone, Debug)]
pub struct DeviceOffload {
    msm: DeviceMsm,
}

impl DeviceOffload {
    pub fn new(device: Arc<Device>) -> Self {
        Self {
            msm: DeviceMsm::new(device),
        }
    }

    pub fn device(&self) -> &Arc<Device> {
        self.msm.device()
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
        self.msm.msm(bases, scalars)
    }

    fn msm_g2(
        &self,
        bases: &[Affine<E::G2>],
        scalars: &[E::Fr],
    ) -> Result<Jacobian<E::G2>, MsmError> {
        self.msm.msm(bases, scalars)
    }

    fn quotient(&self, pk: &ProvingKey<E>, witness: &[E::Fr]) -> Result<Vec<E::Fr>, ProveError> {
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
