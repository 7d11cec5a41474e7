//! A static model of the GPU kernels' speed, from the machine code alone.
//!
//! Every kernel fastzk has, and a probe kernel per arithmetic primitive, is compiled for an
//! NVIDIA architecture the way the runtime compiles it (NVRTC), assembled by `ptxas` and
//! disassembled by `nvdisasm` — no GPU needed. From that: registers, spills and shared
//! memory per kernel, the occupancy at its launch configuration, and the SASS instruction
//! mix of every function. Operation counts per launch times the primitives' SASS give a
//! roofline bound on a named GPU ([`arch`]), never a measurement. A committed baseline
//! ([`guard`]) keeps kernels from starting to spill or growing.
//!
//! `docs/GPU-MODEL.md` explains the model, its constants and what it ignores.

pub mod arch;
pub mod compile;
pub mod guard;
pub mod probes;
pub mod report;
pub mod roofline;
pub mod sass;

pub use arch::Arch;
pub use compile::{compile, Compiled, Toolchain};
pub use guard::{check, Baseline, Violation};
pub use report::Report;

/// Compiles every kernel and probe for `arch` and builds the report.
pub fn model(tools: &Toolchain, arch: &Arch) -> Result<Report, ModelError> {
    let compiled = compile(tools, probes::everything().text(), arch, &[])?;
    Ok(report::build(&compiled, arch))
}

/// What can stop the model.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{tool} not found ({why}); {install}")]
    ToolMissing {
        tool: &'static str,
        why: String,
        install: &'static str,
    },
    #[error("{tool} failed: {log}")]
    ToolFailed { tool: &'static str, log: String },
    #[error(transparent)]
    Gpu(#[from] fastzk_gpu::GpuError),
    #[error("unknown architecture {0}: sm_90 (H100) or sm_80 (A100)")]
    UnknownArch(String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("baseline: {0}")]
    Baseline(String),
}
