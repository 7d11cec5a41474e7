//! The model's operation counts against a counting device (PoCL): what each kernel of an
//! MSM and an NTT calls and moves, measured by the instrumented build of the same kernels.
//! Reported ignored, with the reason, where no OpenCL device is present.

use std::sync::Arc;

use fastzk_curve::bn254;
use fastzk_field::{Field, Goldilocks, NttField};
use fastzk_gpu::{Backend, Device, DeviceField, DeviceMsm, DeviceNtt};
use fastzk_gpu_model::roofline::{
    bn254_fr, goldilocks, msm_counts, ntt_counts, MsmPlan, NttShape, BN254_G1,
};
use fastzk_msm::MsmEngine;
use fastzk_poly::{Order, Transform, TwoAdicTransform};
use fastzk_testing::gen::{elements, points, rng};
use fastzk_testing::Trials;

fn opencl() -> Result<(), &'static str> {
    Device::open(Backend::OpenCl, 0)
        .map(drop)
        .map_err(|_| "no OpenCL device (install pocl-opencl-icd)")
}

fn counting() -> Arc<Device> {
    Arc::new(Device::open_counting(Backend::OpenCl, 0).unwrap())
}

fn close(what: &str, counted: u64, model: f64, tolerance: f64) {
    let c = counted as f64;
    assert!(
        (c - model).abs() <= tolerance * model.max(1.0),
        "{what}: counted {counted}, the model says {model:.0} (tolerance {:.0}%)",
        tolerance * 100.0
    );
}

/// BN254 G1, 2^10 random points: every kernel's calls and bytes within 3% of the model's
/// (which takes every digit as nonzero and chunks by expectation); the reduction's calls
/// and the digits' scalar reads exactly.
fn msm_counts_match() {
    let n = 1 << 10;
    let bases = points::<bn254::G1Config>(n, 1);
    // Uniform scalars, as the model assumes (the suites' generator mixes in edge values).
    let mut r = rng(2);
    let scalars: Vec<fastzk_field::bn254::Fr> = (0..n).map(|_| Field::random(&mut r)).collect();
    let d = counting();
    let got = DeviceMsm::new(d.clone()).msm(&bases, &scalars).unwrap();
    let plain = Arc::new(Device::open(Backend::OpenCl, 0).unwrap());
    let want = DeviceMsm::new(plain).msm(&bases, &scalars).unwrap();
    assert_eq!(got, want, "the counting build computes the same MSM");
    let counts = d.counts().unwrap().expect("a counting device");
    let plan = MsmPlan::new(BN254_G1, n as u64);
    for c in msm_counts(BN254_G1, &plan) {
        close(
            &format!("{} read", c.kernel),
            counts.get(c.kernel, "read"),
            c.read,
            0.03,
        );
        close(
            &format!("{} write", c.kernel),
            counts.get(c.kernel, "write"),
            c.write,
            0.03,
        );
        if let Some((op, k)) = c.primitive {
            close(
                &format!("{} {op}", c.kernel),
                counts.get(c.kernel, op),
                k,
                0.03,
            );
        }
    }
    assert_eq!(
        counts.get("msm_reduce", "xyzz_add") as f64,
        2.0 * plan.buckets as f64
    );
    assert!(counts.get("msm_digits", "read") >= 32 * n as u64);
    // Nothing else ran.
    assert_eq!(counts.get("ntt_tile", "butterfly"), 0);
}

/// A forward NTT of 2^12 (two passes through local memory): exactly the model's counts.
fn ntt_counts_match<F: DeviceField + NttField>(shape: NttShape) {
    let log_n = 12;
    let d = counting();
    let t = DeviceNtt::<F>::with_log_size(d.clone(), log_n).unwrap();
    let mut x: Vec<F> = elements(&mut rng(3), 1 << log_n);
    d.reset_counts().unwrap();
    t.apply(Transform::Forward, &mut x, Order::Natural, Order::Natural)
        .unwrap();
    let counts = d.counts().unwrap().expect("a counting device");
    for c in ntt_counts(shape, log_n) {
        assert_eq!(
            counts.get(c.kernel, "read") as f64,
            c.read,
            "{} read",
            c.kernel
        );
        assert_eq!(
            counts.get(c.kernel, "write") as f64,
            c.write,
            "{} write",
            c.kernel
        );
        if let Some((op, k)) = c.primitive {
            assert_eq!(counts.get(c.kernel, op) as f64, k, "{} {op}", c.kernel);
        }
    }
}

fn main() {
    let mut t = Trials::default();
    t.when("counts::msm_bn254_g1", opencl(), msm_counts_match);
    t.when("counts::ntt_bn254_fr", opencl(), || {
        ntt_counts_match::<fastzk_field::bn254::Fr>(bn254_fr())
    });
    t.when("counts::ntt_goldilocks", opencl(), || {
        ntt_counts_match::<Goldilocks>(goldilocks())
    });
    t.run();
}
