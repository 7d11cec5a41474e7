//! The guard fires: a probe compiled with too few registers spills, and the check against
//! the same probe's unconstrained figures reports it. Needs NVRTC, ptxas and nvdisasm (CI
//! installs them); reported ignored, with the reason, where they are missing.

use fastzk_gpu_model::probes::{spill_probe, SPILL_PROBE};
use fastzk_gpu_model::report::{kernel_row, Report};
use fastzk_gpu_model::{check, compile, Arch, Baseline, Toolchain, Violation};
use fastzk_testing::Trials;

fn tools() -> Result<(), &'static str> {
    Toolchain::find()
        .map(drop)
        .map_err(|_| "NVRTC, ptxas or nvdisasm missing (see .ci/run for the pip wheels)")
}

fn report_of(ptxas_args: &[&str]) -> Report {
    let arch = Arch::named("sm_90").unwrap();
    let tools = Toolchain::find().unwrap();
    let compiled = compile(&tools, spill_probe().text(), &arch, ptxas_args).unwrap();
    Report {
        arch,
        kernels: vec![kernel_row(&compiled, &arch, SPILL_PROBE)],
        primitives: Vec::new(),
        workloads: Vec::new(),
    }
}

fn spill_probe_trips_the_guard() {
    let free = report_of(&[]);
    let baseline = Baseline::from_report(&free);
    assert_eq!(
        check(&free, &baseline),
        vec![],
        "a report passes its own baseline"
    );
    let squeezed = report_of(&["--maxrregcount", "32"]);
    let k = &squeezed.kernels[0];
    assert!(
        k.spill_bytes > free.kernels[0].spill_bytes,
        "32 registers should make {SPILL_PROBE} spill ({} bytes, unconstrained {})",
        k.spill_bytes,
        free.kernels[0].spill_bytes
    );
    let v = check(&squeezed, &baseline);
    assert!(
        v.iter()
            .any(|v| matches!(v, Violation::Spills { kernel, .. } if kernel == SPILL_PROBE)),
        "the guard did not report the spill: {v:?}"
    );
    // Fewer registers also means more warps: the occupancy floor is not what fires here.
    assert!(k.occupancy >= free.kernels[0].occupancy);
}

/// The committed baseline parses and covers every primitive the model probes.
fn baseline_is_complete() {
    let text = include_str!("../baseline/sm_90.json");
    let b = Baseline::parse(text).unwrap();
    assert_eq!(b.arch, "sm_90");
    for f in fastzk_gpu_model::probes::fields() {
        assert!(b.primitives.contains_key(&format!("{f} mul")), "{f} mul");
    }
    for g in fastzk_gpu_model::probes::groups() {
        assert!(
            b.primitives.contains_key(&format!("{g} xyzz_add_affine")),
            "{g}"
        );
    }
    assert!(b.kernels.contains_key("bn254_g1_msm_chunk_sums"));
    // The acceptance bound on the BN254 Fr multiplication holds in what is committed.
    assert!(b.primitives["bn254_fr mul"] <= 450);
}

fn main() {
    let mut t = Trials::default();
    t.when(
        "model::spill_probe_trips_the_guard",
        tools(),
        spill_probe_trips_the_guard,
    );
    t.when("model::baseline_is_complete", Ok(()), baseline_is_complete);
    t.run();
}
