//! The Groth16 prover's NTTs and MSMs on a device ([`fastzk_groth16::Offload`]): the
//! quotient's three inverse and coset transforms stay on the device between the two
//! steps, and every MSM (G1 and G2) runs the device engine.

use std::sync::Arc;

use fastzk_curve::{Affine, Jacobian};
use fastzk_field::Field;
use fastzk_groth16::{Offload, ProveError};
use fastzk_msm::{MsmEngine, MsmError};
use fastzk_pairing::PairingCurve;
use fastzk_poly::{Order, Subgroup, Transform};
use rayon::prelude::*;

use crate::source::{from_words, to_words, DeviceCurve, DeviceField};
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
    fn name(&self) -> String {
        self.device().info().to_string()
    }

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

    fn odd_coset_quotient(
        &self,
        log_n: u32,
        omega_2n: E::Fr,
        abc: [Vec<E::Fr>; 3],
    ) -> Result<Vec<E::Fr>, ProveError> {
        let d = self.device();
        let h = Subgroup::with_root(log_n, omega_2n.square())?;
        let domain = DeviceNtt::new(d.clone(), h).map_err(prove_err)?;
        let coset = DeviceNtt::new(d.clone(), h.with_coset(omega_2n)?).map_err(prove_err)?;
        let mut evals = Vec::with_capacity(3);
        for v in abc {
            let buf = d.upload(&to_words(&v)).map_err(prove_err)?;
            domain
                .apply_on_device(Transform::Inverse, &buf, 1, Order::Natural, Order::Natural)
                .map_err(prove_err)?;
            coset
                .apply_on_device(
                    Transform::CosetForward,
                    &buf,
                    1,
                    Order::Natural,
                    Order::Natural,
                )
                .map_err(prove_err)?;
            let w: Vec<u64> = d
                .read_vec(&buf, v.len() * E::Fr::WORDS)
                .map_err(prove_err)?;
            evals.push(from_words::<E::Fr>(&w));
        }
        let [a, b, c] = <[Vec<E::Fr>; 3]>::try_from(evals).expect("three vectors");
        Ok(a.par_iter()
            .zip(&b)
            .zip(&c)
            .map(|((x, y), z)| *x * *y - *z)
            .collect())
    }
}
