//! `fastzk gpu model`: the static H100/A100 model of the GPU kernels (fastzk-gpu-model),
//! and its regression guard.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use fastzk_gpu_model::{check, model, Arch, Baseline, Toolchain};

#[derive(Subcommand)]
pub enum GpuCommand {
    /// Compile every kernel for an NVIDIA architecture (no GPU needed) and print registers,
    /// spills, occupancy, the SASS mix of each kernel and primitive, and a roofline bound
    /// per workload: a MODEL, not a measurement.
    Model(ModelArgs),
}

#[derive(Args)]
pub struct ModelArgs {
    /// sm_90 (H100 SXM5) or sm_80 (A100 SXM4).
    #[arg(long, default_value = "sm_90")]
    arch: String,
    /// The whole report as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Fail (exit 1) when a kernel spills, falls below the baseline's occupancy, or a
    /// primitive's SASS grows more than 5% over this baseline.
    #[arg(long, value_name = "BASELINE")]
    check: Option<PathBuf>,
    /// Write this run's figures as the new baseline.
    #[arg(long, value_name = "BASELINE")]
    write_baseline: Option<PathBuf>,
}

pub fn run(cmd: GpuCommand) -> Result<i32> {
    match cmd {
        GpuCommand::Model(a) => model_cmd(&a),
    }
}

fn model_cmd(a: &ModelArgs) -> Result<i32> {
    let arch = Arch::named(&a.arch)?;
    let tools = Toolchain::find()?;
    let report = model(&tools, &arch)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    if let Some(path) = &a.write_baseline {
        std::fs::write(path, Baseline::from_report(&report).to_json())
            .with_context(|| format!("writing {}", path.display()))?;
        eprintln!("baseline written to {}", path.display());
    }
    if let Some(path) = &a.check {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the baseline {}", path.display()))?;
        let baseline = Baseline::parse(&text).with_context(|| path.display().to_string())?;
        let violations = check(&report, &baseline);
        if violations.is_empty() {
            eprintln!(
                "guard: every kernel and primitive within {}",
                path.display()
            );
        } else {
            for v in &violations {
                eprintln!("guard: {v}");
            }
            if a.write_baseline.is_none() {
                bail!(
                    "{} regression(s) against {}: fix them, or update the baseline \
                     (--write-baseline) in the same change and say why in its commit",
                    violations.len(),
                    path.display()
                );
            }
        }
    }
    Ok(0)
}
