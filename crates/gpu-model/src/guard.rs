//! The regression guard: a committed baseline of registers, spills, occupancy and SASS
//! counts, and the check CI runs against it. A kernel may not start to spill, fall below
//! the baseline's occupancy, or a primitive grow by more than 5% — unless the same change
//! updates the baseline (`fastzk gpu model --write-baseline`) and says why.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::report::Report;

/// How much a primitive's SASS may grow before the guard fails.
pub const GROWTH: f64 = 1.05;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelBaseline {
    pub registers: u32,
    pub spill_bytes: u32,
    /// The floor.
    pub occupancy: f64,
    pub instructions: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub arch: String,
    pub kernels: BTreeMap<String, KernelBaseline>,
    /// SASS instructions per primitive.
    pub primitives: BTreeMap<String, u32>,
}

impl Baseline {
    pub fn from_report(r: &Report) -> Self {
        Self {
            arch: r.arch.name.to_string(),
            kernels: r
                .kernels
                .iter()
                .map(|k| {
                    (
                        k.kernel.clone(),
                        KernelBaseline {
                            registers: k.registers,
                            spill_bytes: k.spill_bytes,
                            occupancy: k.occupancy,
                            instructions: k.instructions,
                        },
                    )
                })
                .collect(),
            primitives: r
                .primitives
                .iter()
                .map(|p| (p.primitive.clone(), p.instructions))
                .collect(),
        }
    }

    pub fn parse(text: &str) -> Result<Self, crate::ModelError> {
        serde_json::from_str(text).map_err(|e| crate::ModelError::Baseline(e.to_string()))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("plain data") + "\n"
    }
}

/// Why the guard fails.
#[derive(Clone, Debug, PartialEq)]
pub enum Violation {
    Spills {
        kernel: String,
        bytes: u32,
        baseline: u32,
    },
    Occupancy {
        kernel: String,
        now: f64,
        floor: f64,
    },
    Grew {
        primitive: String,
        now: u32,
        baseline: u32,
    },
    /// In the report, not in the baseline (a new kernel or primitive must be added to it).
    Unlisted(String),
    /// In the baseline, gone from the report.
    Missing(String),
    WrongArch {
        report: String,
        baseline: String,
    },
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Violation::Spills {
                kernel,
                bytes,
                baseline,
            } => write!(f, "{kernel} spills {bytes} bytes (baseline {baseline})"),
            Violation::Occupancy { kernel, now, floor } => write!(
                f,
                "{kernel}: occupancy {:.1}% below the baseline's {:.1}%",
                now * 100.0,
                floor * 100.0
            ),
            Violation::Grew {
                primitive,
                now,
                baseline,
            } => write!(
                f,
                "{primitive}: {now} SASS instructions, more than {:.0}% over the baseline's \
                 {baseline}",
                (GROWTH - 1.0) * 100.0
            ),
            Violation::Unlisted(what) => write!(f, "{what} is not in the baseline"),
            Violation::Missing(what) => write!(f, "{what} is in the baseline but not compiled"),
            Violation::WrongArch { report, baseline } => {
                write!(f, "the report is for {report}, the baseline for {baseline}")
            }
        }
    }
}

/// Everything in `report` that breaks `baseline`.
pub fn check(report: &Report, baseline: &Baseline) -> Vec<Violation> {
    let mut out = Vec::new();
    if report.arch.name != baseline.arch {
        out.push(Violation::WrongArch {
            report: report.arch.name.into(),
            baseline: baseline.arch.clone(),
        });
        return out;
    }
    for k in &report.kernels {
        let Some(b) = baseline.kernels.get(&k.kernel) else {
            out.push(Violation::Unlisted(k.kernel.clone()));
            continue;
        };
        if k.spill_bytes > b.spill_bytes {
            out.push(Violation::Spills {
                kernel: k.kernel.clone(),
                bytes: k.spill_bytes,
                baseline: b.spill_bytes,
            });
        }
        if k.occupancy + 1e-9 < b.occupancy {
            out.push(Violation::Occupancy {
                kernel: k.kernel.clone(),
                now: k.occupancy,
                floor: b.occupancy,
            });
        }
    }
    for name in baseline.kernels.keys() {
        if !report.kernels.iter().any(|k| &k.kernel == name) {
            out.push(Violation::Missing(name.clone()));
        }
    }
    for p in &report.primitives {
        match baseline.primitives.get(&p.primitive) {
            None => out.push(Violation::Unlisted(p.primitive.clone())),
            Some(&b) if f64::from(p.instructions) > GROWTH * f64::from(b) => {
                out.push(Violation::Grew {
                    primitive: p.primitive.clone(),
                    now: p.instructions,
                    baseline: b,
                })
            }
            Some(_) => {}
        }
    }
    for name in baseline.primitives.keys() {
        if report.primitive(name).is_none() {
            out.push(Violation::Missing(name.clone()));
        }
    }
    out
}
