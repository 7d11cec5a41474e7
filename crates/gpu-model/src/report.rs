//! The model's report: per kernel and per primitive what the compiled code is, and the
//! workloads' roofline bounds; as a table or JSON.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use serde::Serialize;

use crate::compile::Compiled;
use crate::probes::{self, probe_kernel, FIELD_OPS, GROUP_OPS};
use crate::roofline::{self, Workload, EFFICIENCY_BAND, EFFICIENCY_TARGET};
use crate::Arch;

#[derive(Clone, Debug, Serialize)]
pub struct KernelRow {
    pub kernel: String,
    pub registers: u32,
    /// Spill stores and loads of the kernel and the functions it calls, bytes.
    pub spill_bytes: u32,
    pub stack_frame: u32,
    pub shared: u32,
    pub block: u32,
    pub occupancy: f64,
    pub occupancy_limit: &'static str,
    /// Its own SASS (without the functions it calls) and the functions it calls.
    pub instructions: u32,
    pub calls: Vec<String>,
    pub mix: BTreeMap<String, u32>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PrimitiveRow {
    /// `bn254_fr mul`, `bn254_g1 xyzz_add_affine`.
    pub primitive: String,
    pub instructions: u32,
    pub imad_slots: u32,
    pub mix: BTreeMap<String, u32>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub arch: Arch,
    pub kernels: Vec<KernelRow>,
    pub primitives: Vec<PrimitiveRow>,
    pub workloads: Vec<Workload>,
}

/// The kernels (not the probes) and the primitives of `compiled`, which must be
/// [`probes::everything`].
pub fn build(compiled: &Compiled, arch: &Arch) -> Report {
    let mut kernels = Vec::new();
    for k in compiled.kernels() {
        if k.kernel.starts_with("fz_probe_") {
            continue;
        }
        kernels.push(kernel_row(compiled, arch, &k.kernel));
    }
    let mut primitives = Vec::new();
    let ntt = probes::ntt_fields();
    for f in probes::fields() {
        let mut ops: Vec<&str> = FIELD_OPS.to_vec();
        if ntt.contains(&f) {
            ops.push("butterfly");
        }
        for op in ops {
            primitives.push(primitive(compiled, f, &format!("fz_probe_{f}_{op}"), op));
        }
    }
    for g in probes::groups() {
        for op in GROUP_OPS {
            primitives.push(primitive(compiled, g, &format!("{g}_{op}"), op));
        }
    }
    Report {
        arch: *arch,
        kernels,
        primitives,
        workloads: roofline::all(compiled, arch),
    }
}

/// A kernel's resources and SASS as compiled.
pub fn kernel_row(compiled: &Compiled, arch: &Arch, kernel: &str) -> KernelRow {
    let k = compiled
        .kernel(kernel)
        .unwrap_or_else(|| panic!("{kernel} not compiled"));
    let r = compiled.resources_of(k);
    let callees: Vec<_> = compiled
        .functions
        .iter()
        .filter(|f| !f.entry && f.kernel == kernel)
        .collect();
    let symbols: BTreeSet<&str> = callees.iter().map(|f| f.symbol.as_str()).collect();
    let spill_bytes = r.spill_bytes()
        + symbols
            .iter()
            .map(|s| compiled.resources.get(*s).map_or(0, |r| r.spill_bytes()))
            .sum::<u32>();
    let block = fastzk_gpu::cuda::BLOCK;
    let o = arch.occupancy(r.registers, r.shared, block);
    KernelRow {
        kernel: kernel.to_string(),
        registers: r.registers,
        spill_bytes,
        stack_frame: r.stack_frame,
        shared: r.shared,
        block,
        occupancy: o.fraction,
        occupancy_limit: o.limit,
        instructions: k.instructions(),
        calls: callees.iter().map(|f| f.name.clone()).collect(),
        mix: k.mix.clone(),
    }
}

fn primitive(compiled: &Compiled, what: &str, function: &str, op: &str) -> PrimitiveRow {
    let f = compiled
        .called(&probe_kernel(what), function)
        .unwrap_or_else(|| panic!("{function} is not called from {}", probe_kernel(what)));
    let (instructions, imad_slots) = compiled.inclusive(f);
    PrimitiveRow {
        primitive: format!("{what} {op}"),
        instructions,
        imad_slots,
        mix: f.mix.clone(),
    }
}

fn top_mix(mix: &BTreeMap<String, u32>, k: usize) -> String {
    let mut v: Vec<_> = mix.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    v.iter()
        .take(k)
        .map(|(op, n)| format!("{n} {op}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn ms(s: f64) -> String {
    if s >= 0.1 {
        format!("{:.0} ms", s * 1e3)
    } else if s >= 0.001 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

impl Report {
    pub fn primitive(&self, name: &str) -> Option<&PrimitiveRow> {
        self.primitives.iter().find(|p| p.primitive == name)
    }

    /// The report as text tables.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        self.write_text(&mut s).expect("writing to a String");
        s
    }

    fn write_text(&self, s: &mut String) -> std::fmt::Result {
        let a = &self.arch;
        writeln!(
            s,
            "MODEL, not a measurement: fastzk's GPU kernels compiled for {} ({}; {} SMs, \
             {:.2} GHz, {:.2} TB/s), NVRTC + ptxas + nvdisasm, no GPU used.\n",
            a.name,
            a.product,
            a.sms,
            a.clock_ghz,
            a.memory_bandwidth / 1e12
        )?;
        writeln!(s, "Primitives (SASS of each as a called function, with what it calls; mix of its own code):")?;
        writeln!(s, "  {:<30} {:>6} {:>6}  mix", "primitive", "SASS", "IMAD")?;
        for p in &self.primitives {
            writeln!(
                s,
                "  {:<30} {:>6} {:>6}  {}",
                p.primitive,
                p.instructions,
                p.imad_slots,
                top_mix(&p.mix, 4)
            )?;
        }
        writeln!(s, "\nKernels (block {}):", fastzk_gpu::cuda::BLOCK)?;
        writeln!(
            s,
            "  {:<30} {:>4} {:>6} {:>6} {:>9}  {:>5}  calls / mix",
            "kernel", "regs", "spill", "smem", "occupancy", "SASS"
        )?;
        for k in &self.kernels {
            let calls = if k.calls.is_empty() {
                top_mix(&k.mix, 3)
            } else {
                k.calls.join(", ")
            };
            writeln!(
                s,
                "  {:<30} {:>4} {:>6} {:>6} {:>4.0}% {:<4} {:>5}  {}",
                k.kernel,
                k.registers,
                k.spill_bytes,
                k.shared,
                k.occupancy * 100.0,
                &k.occupancy_limit[..4.min(k.occupancy_limit.len())],
                k.instructions,
                calls
            )?;
        }
        writeln!(
            s,
            "\nRoofline per workload: Σ over kernels of max(instructions ÷ issue, IMAD slots ÷ \
             IMAD rate, bytes ÷ bandwidth, longest thread ÷ clock) + host link; estimate = \
             bound ÷ efficiency {}–{} (uncalibrated), target judged at {}:",
            EFFICIENCY_BAND.0, EFFICIENCY_BAND.1, EFFICIENCY_TARGET
        )?;
        writeln!(
            s,
            "  {:<44} {:>10} {:>21} {:>10}  target",
            "workload", "bound", "estimate", "at 0.7"
        )?;
        for w in &self.workloads {
            let target = match w.target {
                Some(t) if w.at_target_efficiency <= t => format!("≤ {} met", ms(t)),
                Some(t) => format!("≤ {} MISSED", ms(t)),
                None => String::new(),
            };
            writeln!(
                s,
                "  {:<44} {:>10} {:>21} {:>10}  {}",
                w.name,
                ms(w.bound),
                format!("{} – {}", ms(w.estimate.1), ms(w.estimate.0)),
                ms(w.at_target_efficiency),
                target
            )?;
            for k in &w.kernels {
                writeln!(
                    s,
                    "      {:<40} {:>9} ({}; {} launches)",
                    k.kernel,
                    ms(k.seconds),
                    k.limit,
                    k.launches
                )?;
            }
            if w.host_link_bytes > 0.0 {
                writeln!(
                    s,
                    "      {:<40} {:>9} ({:.0} MB)",
                    "host link",
                    ms(w.host_link_seconds),
                    w.host_link_bytes / 1e6
                )?;
            }
        }
        writeln!(s, "\nConstants: {}", a.sources)
    }
}
