//! The roofline bound of a workload: the kernels the runtime launches for it, each with
//! its operation counts, bounded by issue, the integer multiply-add pipe, device memory
//! and its longest thread; host-link transfers added (not overlapped with the kernels,
//! which the runtime now partly does: an upper bound). Everything here is a model, never
//! a measurement.

// The runtime's own plan (window, chunks, segments, NTT passes), so the model cannot
// drift from what it launches.
use fastzk_gpu::msm::{default_window, CHUNK as CHUNK_ENTRIES, MAX_SEGMENTS};
use fastzk_gpu::ntt::{passes as ntt_passes, tiles_per_group};
use serde::Serialize;

use crate::compile::Compiled;
use crate::sass::Function;
use crate::Arch;

/// Efficiency band until calibrated on a device: estimate = bound ÷ efficiency.
pub const EFFICIENCY_BAND: (f64, f64) = (0.6, 0.85);
/// The efficiency the acceptance targets are judged at.
pub const EFFICIENCY_TARGET: f64 = 0.7;

/// One kernel launch (or a run of identical ones) in a workload.
#[derive(Clone, Debug, Serialize)]
pub struct KernelCost {
    pub kernel: String,
    pub launches: u64,
    pub threads: u64,
    /// Thread instructions, all launches.
    pub instructions: f64,
    pub imad_slots: f64,
    /// Device-memory bytes read and written.
    pub bytes: f64,
    /// Instructions of the longest thread.
    pub serial: f64,
    pub seconds: f64,
    /// What bounds it: issue, imad, memory or serial.
    pub limit: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct Workload {
    pub name: String,
    pub kernels: Vec<KernelCost>,
    pub host_link_bytes: f64,
    pub host_link_seconds: f64,
    /// Lower bound, seconds.
    pub bound: f64,
    /// Bound ÷ efficiency at the band's ends (slow, fast).
    pub estimate: (f64, f64),
    pub at_target_efficiency: f64,
    /// The target, seconds, where the issues set one.
    pub target: Option<f64>,
}

/// Per-thread cost of a piece of code: instructions and multiply-add slots.
#[derive(Clone, Copy, Debug, Default)]
struct Cost {
    instr: f64,
    imad: f64,
}

impl Cost {
    fn of(compiled: &Compiled, f: &Function) -> Self {
        let (instr, imad) = compiled.inclusive(f);
        Self {
            instr: f64::from(instr),
            imad: f64::from(imad),
        }
    }
}

struct Builder<'a> {
    compiled: &'a Compiled,
    arch: &'a Arch,
    kernels: Vec<KernelCost>,
    link: f64,
}

impl<'a> Builder<'a> {
    fn body(&self, kernel: &str) -> Cost {
        // The kernel's own code only: what it calls is counted per call by the caller.
        let f = self
            .compiled
            .kernel(kernel)
            .unwrap_or_else(|| panic!("kernel {kernel} is not in the compiled source"));
        Cost {
            instr: f64::from(f.instructions()),
            imad: f64::from(f.imad_slots()),
        }
    }
    fn callee(&self, kernel: &str, name: &str) -> Cost {
        self.compiled
            .called(kernel, name)
            .map(|f| Cost::of(self.compiled, f))
            .unwrap_or_else(|| panic!("{name} is not called from {kernel}"))
    }

    /// `threads` threads in `launches` launches, each running the kernel's own code
    /// `body_trips` times, and `units` calls of a primitive costing `unit` in all; the
    /// longest thread makes `serial_units` of those calls; `bytes` of device memory.
    #[allow(clippy::too_many_arguments)]
    fn kernel(
        &mut self,
        kernel: &str,
        launches: u64,
        threads: u64,
        body_trips: f64,
        units: f64,
        unit: Cost,
        serial_units: f64,
        bytes: f64,
    ) {
        let body = self.body(kernel);
        let instructions = threads as f64 * body.instr * body_trips + units * unit.instr;
        let imad_slots = threads as f64 * body.imad * body_trips + units * unit.imad;
        let serial = body.instr * body_trips + serial_units * unit.instr;
        let a = self.arch;
        let times = [
            (instructions / a.issue_rate(), "issue"),
            (imad_slots / a.imad_rate(), "imad"),
            (bytes / a.memory_bandwidth, "memory"),
            (serial * launches as f64 / (a.clock_ghz * 1e9), "serial"),
        ];
        let (seconds, limit) =
            times
                .into_iter()
                .fold((0.0, "issue"), |m, t| if t.0 > m.0 { t } else { m });
        self.kernels.push(KernelCost {
            kernel: kernel.to_string(),
            launches,
            threads,
            instructions,
            imad_slots,
            bytes,
            serial,
            seconds,
            limit,
        });
    }

    fn finish(self, name: String, target: Option<f64>) -> Workload {
        let host_link_seconds = self.link / self.arch.host_link;
        let bound = self.kernels.iter().map(|k| k.seconds).sum::<f64>() + host_link_seconds;
        Workload {
            name,
            kernels: self.kernels,
            host_link_bytes: self.link,
            host_link_seconds,
            bound,
            estimate: (bound / EFFICIENCY_BAND.0, bound / EFFICIENCY_BAND.1),
            at_target_efficiency: bound / EFFICIENCY_TARGET,
            target,
        }
    }
}

/// A group's sizes for the MSM model.
#[derive(Clone, Copy, Debug)]
pub struct GroupShape {
    pub name: &'static str,
    /// 64-bit words of a base-field element.
    pub base_words: u64,
    pub scalar_bits: u32,
}

pub const BN254_G1: GroupShape = GroupShape {
    name: "bn254_g1",
    base_words: 4,
    scalar_bits: 254,
};
pub const BN254_G2: GroupShape = GroupShape {
    name: "bn254_g2",
    base_words: 8,
    scalar_bits: 254,
};
pub const BLS12_381_G1: GroupShape = GroupShape {
    name: "bls12_381_g1",
    base_words: 6,
    scalar_bits: 255,
};

const CHUNK: f64 = CHUNK_ENTRIES as f64;

/// What a kernel does in one workload, as the model counts it: threads, primitive calls
/// and the bytes it reads and writes in device memory — the same quantities a counting
/// device measures ([`fastzk_gpu::count`]), so the two can be compared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Counted {
    /// The kernel's name after the type prefix (`msm_chunk_sums`).
    pub kernel: &'static str,
    /// The primitive it calls and how often (`xyzz_add_affine`, `butterfly`, …).
    pub primitive: Option<(&'static str, f64)>,
    pub read: f64,
    pub write: f64,
}

/// How the runtime lays out an MSM of `n` points (`DeviceMsm::msm`), with the expected
/// digit and chunk counts for uniformly random scalars.
#[derive(Clone, Copy, Debug)]
pub struct MsmPlan {
    pub n: u64,
    pub windows: u64,
    pub half: u64,
    pub buckets: u64,
    /// Nonzero digits (taken as every digit).
    pub entries: f64,
    pub chunks: f64,
    pub segments: u64,
}

impl MsmPlan {
    pub fn new(g: GroupShape, n: u64) -> Self {
        let c = default_window(n as usize);
        let windows = u64::from((g.scalar_bits + 1).div_ceil(c));
        let half = 1u64 << (c - 1);
        let buckets = windows * half;
        let entries = (n * windows) as f64;
        let per_bucket = entries / buckets as f64;
        Self {
            n,
            windows,
            half,
            buckets,
            entries,
            chunks: buckets as f64 * (per_bucket / CHUNK).ceil().max(1.0),
            segments: half.min(MAX_SEGMENTS as u64),
        }
    }
}

/// The MSM's kernels, counted.
pub fn msm_counts(g: GroupShape, p: &MsmPlan) -> Vec<Counted> {
    let affine = (16 * g.base_words) as f64;
    let xyzz = (32 * g.base_words) as f64;
    let (n, w, e) = (p.n as f64, p.windows as f64, p.entries);
    let buckets = p.buckets as f64;
    vec![
        Counted {
            kernel: "msm_digits",
            primitive: None,
            read: 32.0 * n + 4.0 * e,
            write: 4.0 * w * n + 4.0 * e,
        },
        Counted {
            kernel: "msm_scatter",
            primitive: None,
            read: 4.0 * n * w + 4.0 * e,
            write: 8.0 * e,
        },
        Counted {
            kernel: "msm_chunk_sums",
            primitive: Some(("xyzz_add_affine", e)),
            read: e * (4.0 + affine) + 8.0 * p.chunks,
            write: p.chunks * xyzz,
        },
        Counted {
            kernel: "msm_bucket_sums",
            primitive: Some(("xyzz_add", p.chunks)),
            read: p.chunks * xyzz + 8.0 * buckets,
            write: buckets * xyzz,
        },
        Counted {
            kernel: "msm_reduce",
            primitive: Some(("xyzz_add", 2.0 * buckets)),
            read: buckets * xyzz,
            write: 2.0 * (p.windows * p.segments) as f64 * xyzz,
        },
    ]
}

fn add_msm(b: &mut Builder<'_>, g: GroupShape, n: u64, resident: bool) {
    let p = MsmPlan::new(g, n);
    let counts = msm_counts(g, &p);
    let bytes = |k: &str| {
        let c = counts.iter().find(|c| c.kernel == k).expect("counted");
        c.read + c.write
    };
    let affine = (16 * g.base_words) as f64;
    let xyzz = (32 * g.base_words) as f64;
    let k = |s: &str| format!("{}_msm_{s}", g.name);
    let per_bucket = p.entries / p.buckets as f64;

    b.kernel(
        "fz_msm_digits",
        1,
        n,
        p.windows as f64,
        0.0,
        Cost::default(),
        0.0,
        bytes("msm_digits"),
    );
    // The rows on the device: two prefix sums over the counts (work-group scans, their
    // totals scanned and added back), the chunk table and the scatter's cursors (not
    // counted on the device: a few words a bucket).
    let group = 256u64;
    let mut level = p.buckets + 1;
    while level > 1 {
        let groups = level.div_ceil(group);
        b.kernel(
            "fz_scan_groups",
            2,
            2 * groups * group,
            1.0,
            0.0,
            Cost::default(),
            0.0,
            2.0 * 12.0 * level as f64,
        );
        if groups > 1 {
            b.kernel(
                "fz_scan_add",
                2,
                2 * groups * group,
                1.0,
                0.0,
                Cost::default(),
                0.0,
                2.0 * 8.0 * level as f64,
            );
        }
        level = groups;
    }
    b.kernel(
        "fz_msm_chunk_table",
        1,
        p.buckets,
        p.chunks / p.buckets as f64,
        0.0,
        Cost::default(),
        0.0,
        16.0 * p.buckets as f64 + 4.0 * p.chunks,
    );
    b.kernel(
        "fz_msm_scatter",
        1,
        n * p.windows,
        1.0,
        0.0,
        Cost::default(),
        0.0,
        bytes("msm_scatter"),
    );
    let name = k("chunk_sums");
    let madd = b.callee(&name, &format!("{}_xyzz_add_affine", g.name));
    b.kernel(
        &name,
        1,
        p.chunks as u64,
        1.0,
        p.entries,
        madd,
        CHUNK.min(per_bucket.max(1.0)),
        bytes("msm_chunk_sums"),
    );
    let name = k("bucket_sums");
    let add = b.callee(&name, &format!("{}_xyzz_add", g.name));
    b.kernel(
        &name,
        1,
        p.buckets,
        1.0,
        p.chunks,
        add,
        p.chunks / p.buckets as f64,
        bytes("msm_bucket_sums"),
    );
    let name = k("reduce");
    let add = b.callee(&name, &format!("{}_xyzz_add", g.name));
    b.kernel(
        &name,
        1,
        p.windows * p.segments,
        1.0,
        2.0 * p.buckets as f64,
        add,
        2.0 * (p.half / p.segments) as f64,
        bytes("msm_reduce"),
    );
    // Scalars up; segment sums down (the counts, rows and chunks never cross).
    b.link += n as f64 * 32.0 + (p.windows * p.segments) as f64 * 2.0 * xyzz;
    if !resident {
        b.link += n as f64 * affine;
    }
}

/// An NTT field's sizes: element bytes and levels per pass (the runtime's tile).
#[derive(Clone, Copy, Debug)]
pub struct NttShape {
    pub name: &'static str,
    pub elem_bytes: u64,
    pub tile_log: u32,
}

pub fn bn254_fr() -> NttShape {
    NttShape {
        name: "bn254_fr",
        elem_bytes: 32,
        tile_log: fastzk_gpu::source::ntt_tile::<fastzk_field::bn254::Fr>().ilog2(),
    }
}
pub fn goldilocks() -> NttShape {
    NttShape {
        name: "gl",
        elem_bytes: 8,
        tile_log: fastzk_gpu::source::ntt_tile::<fastzk_field::Goldilocks>().ilog2(),
    }
}

/// A forward transform's kernels, counted (the tile passes summed).
pub fn ntt_counts(f: NttShape, log_n: u32) -> Vec<Counted> {
    let n = (1u64 << log_n) as f64;
    let elem = f.elem_bytes as f64;
    // Pairs i < rev(i) swap; the 2^⌈k/2⌉ bit palindromes stay.
    let moved = n - (1u64 << log_n.div_ceil(2)) as f64;
    let passes = ntt_passes(log_n, f.tile_log);
    let butterflies = n / 2.0 * f64::from(log_n);
    vec![
        Counted {
            kernel: "ntt_bit_reverse",
            primitive: None,
            read: moved * elem,
            write: moved * elem,
        },
        Counted {
            kernel: "ntt_tile",
            primitive: Some(("butterfly", butterflies)),
            // The data once a pass, a twiddle per butterfly.
            read: passes.len() as f64 * n * elem + butterflies * elem,
            write: passes.len() as f64 * n * elem,
        },
    ]
}

/// `count` transforms of 2^log_n: the bit reversal, then passes of up to `tile_log` levels
/// through local memory. Device memory per pass: the data read and written once (a strided
/// element costs at least a 32-byte sector) and each distinct twiddle once (the L2 keeps
/// the rest); instructions: the butterflies (the probe's) and each thread's own code once.
fn add_ntt(b: &mut Builder<'_>, f: NttShape, log_n: u32, count: u64) {
    let n = 1u64 << log_n;
    let elem = f.elem_bytes as f64;
    let counts = ntt_counts(f, log_n);
    b.kernel(
        &format!("{}_ntt_bit_reverse", f.name),
        count,
        n * count,
        1.0,
        0.0,
        Cost::default(),
        0.0,
        (counts[0].read + counts[0].write) * count as f64,
    );
    let kernel = format!("{}_ntt_tile", f.name);
    let butterfly = Cost::of(
        b.compiled,
        b.compiled
            .called(
                &crate::probes::probe_kernel(f.name),
                &format!("fz_probe_{}_butterfly", f.name),
            )
            .unwrap_or_else(|| panic!("no butterfly probe for {}", f.name)),
    );
    let block = u64::from(fastzk_gpu::cuda::BLOCK);
    for (s, k) in ntt_passes(log_n, f.tile_log) {
        let tiles = (n >> k) * count;
        let per_group = tiles_per_group(block as usize, k, 1 << f.tile_log) as u64;
        let groups = tiles.div_ceil(per_group);
        let butterflies = (n / 2 * u64::from(k) * count) as f64;
        let per_thread = ((per_group << (k - 1)) as f64 / block as f64).ceil();
        let twiddles: u64 = (0..k).map(|t| (1u64 << (s + t)).min(n / 2)).sum();
        b.kernel(
            &kernel,
            count,
            groups * block,
            1.0,
            butterflies,
            butterfly,
            per_thread * f64::from(k),
            // The first pass reads contiguous tiles, the others strided elements.
            (2 * n * count) as f64 * if s == 0 { elem } else { elem.max(32.0) }
                + (twiddles * count) as f64 * elem,
        );
    }
}

/// BN254 or BLS12-381 G1/G2 MSM of `n` points; bases resident on the device or uploaded.
pub fn msm(
    compiled: &Compiled,
    arch: &Arch,
    g: GroupShape,
    log_n: u32,
    resident: bool,
) -> Workload {
    let mut b = Builder {
        compiled,
        arch,
        kernels: Vec::new(),
        link: 0.0,
    };
    add_msm(&mut b, g, 1 << log_n, resident);
    // The issues' targets are H100 figures.
    let target = match (arch.name, g.name, log_n, resident) {
        ("sm_90", "bn254_g1", 24, true) => Some(0.100),
        ("sm_90", "bn254_g1", 20, true) => Some(0.010),
        _ => None,
    };
    let how = if resident {
        "bases resident"
    } else {
        "host to host"
    };
    b.finish(format!("MSM {} 2^{log_n}, {how}", g.name), target)
}

/// A forward NTT of 2^log_n elements resident on the device.
pub fn ntt(compiled: &Compiled, arch: &Arch, f: NttShape, log_n: u32) -> Workload {
    let mut b = Builder {
        compiled,
        arch,
        kernels: Vec::new(),
        link: 0.0,
    };
    add_ntt(&mut b, f, log_n, 1);
    let target = (arch.name == "sm_90" && f.name == "bn254_fr" && log_n == 24).then_some(0.010);
    b.finish(format!("NTT {} 2^{log_n}, resident", f.name), target)
}

/// A BN254 Groth16 proof of 2^log_n constraints as `DeviceOffload` runs it: the quotient
/// (two SpMVs of 2n nonzeros each, assumed; six NTTs with their scalings; two pointwise
/// passes) and four G1 and one G2 MSM of n points, bases uploaded per proof.
pub fn groth16(compiled: &Compiled, arch: &Arch, log_n: u32) -> Workload {
    let mut b = Builder {
        compiled,
        arch,
        kernels: Vec::new(),
        link: 0.0,
    };
    let n = 1u64 << log_n;
    let elem = 32.0;
    let nnz = 2 * n;
    b.kernel(
        "bn254_fr_spmv_chunks",
        2,
        2 * nnz / CHUNK as u64,
        CHUNK,
        0.0,
        Cost::default(),
        CHUNK,
        2.0 * nnz as f64 * (4.0 + 2.0 * elem),
    );
    b.link += n as f64 * elem + 2.0 * nnz as f64 * (4.0 + elem) + n as f64 * elem;
    add_ntt(&mut b, bn254_fr(), log_n, 6);
    b.kernel(
        "bn254_fr_ntt_scale",
        6,
        6 * n,
        1.0,
        0.0,
        Cost::default(),
        0.0,
        6.0 * n as f64 * 3.0 * elem,
    );
    b.kernel(
        "bn254_fr_mul_sub",
        2,
        2 * n,
        1.0,
        0.0,
        Cost::default(),
        0.0,
        2.0 * n as f64 * 4.0 * elem,
    );
    for _ in 0..4 {
        add_msm(&mut b, BN254_G1, n, false);
    }
    add_msm(&mut b, BN254_G2, n, false);
    b.finish(format!("Groth16 BN254 2^{log_n} (quotient and MSMs)"), None)
}

/// The workloads of the report.
pub fn all(compiled: &Compiled, arch: &Arch) -> Vec<Workload> {
    let mut out = Vec::new();
    for log_n in [20, 24] {
        out.push(msm(compiled, arch, BN254_G1, log_n, true));
        out.push(msm(compiled, arch, BN254_G1, log_n, false));
        out.push(msm(compiled, arch, BLS12_381_G1, log_n, true));
    }
    for log_n in [20, 24] {
        out.push(ntt(compiled, arch, bn254_fr(), log_n));
        out.push(ntt(compiled, arch, goldilocks(), log_n));
    }
    out.push(groth16(compiled, arch, 20));
    out
}
