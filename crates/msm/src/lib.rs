//! Multi-scalar multiplication `Σ k_i·P_i` on CPU threads for BN254 and BLS12-381
//! G1 and G2.
//!
//! * [`msm`] / [`msm_with`]: the entry points; [`CpuEngine`] selects an algorithm,
//!   [`MsmConfig`] overrides the planner (window, GLV, threads, partitioning).
//! * [`MsmEngine`]: the open interface every MSM backend implements (the CPU engines
//!   through [`MsmConfig`]; device backends in their own crates).
//! * Engines: the naive sum (tests), serial Pippenger with the BDLO12 reduction, the
//!   three naive parallelisations of cuZK §3.1, cuZK's sparse-matrix algorithm, and
//!   the fast engine (signed digits, batch-affine buckets, GLV, size partitioning,
//!   grouping of repeated scalar values) that `Auto` uses.
//! * [`MsmStream`] (start/update/finish with bounded memory), [`PrecomputedBases`]
//!   (fixed bases), [`msm_batch`] (several scalar vectors over the same bases).
//! * With the `ark` feature, [`ark::msm_ark`] over arkworks slices.

pub mod bucket;
mod curves;
pub mod fast;
pub mod ifma_flush;
pub mod membership;
pub mod pippenger;
pub mod planner;
pub mod precompute;
pub mod prepared;
pub mod scalar;
pub mod sparse_matrix;
pub mod stream;

#[cfg(feature = "ark")]
pub mod ark;

use std::collections::HashMap;

use fastzk_curve::{Affine, Jacobian, Xyzz};
use fastzk_field::PrimeField;
use rayon::prelude::*;

pub use curves::MsmCurve;
pub use fast::FastOptions;
pub use planner::{Calibration, Plan};
pub use precompute::PrecomputedBases;
pub use prepared::PreparedBases;
pub use stream::MsmStream;

/// Why an MSM could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MsmError {
    #[error("{bases} bases but {scalars} scalars")]
    LengthMismatch { bases: usize, scalars: usize },
    #[error("window size {0} is outside 2..=24")]
    InvalidWindow(u32),
    #[error("could not build a thread pool: {0}")]
    ThreadPool(String),
    #[error("unknown engine {0:?}")]
    UnknownEngine(String),
    /// A device engine's driver or kernel failed (the message names which).
    #[error("device: {0}")]
    Device(String),
}

/// A way to compute MSMs: the CPU engines of this crate (through [`MsmConfig`]), or a
/// device backend in another crate. The conformance suite (`fastzk-testing`) runs any
/// implementation against the naive sum on every input shape, so a new backend is
/// tested the way the CPU engines are.
pub trait MsmEngine<C: MsmCurve>: Sync {
    /// What runs, for reports and test messages.
    fn name(&self) -> String;
    /// `Σ scalars[i]·bases[i]`; an error when the lengths differ.
    fn msm(&self, bases: &[Affine<C>], scalars: &[C::Scalar]) -> Result<Jacobian<C>, MsmError>;
}

impl<C: MsmCurve> MsmEngine<C> for MsmConfig {
    fn name(&self) -> String {
        format!("{self:?}")
    }
    fn msm(&self, bases: &[Affine<C>], scalars: &[C::Scalar]) -> Result<Jacobian<C>, MsmError> {
        msm_with(bases, scalars, self).map(|o| o.result)
    }
}

/// The CPU algorithms [`MsmConfig`] chooses among.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpuEngine {
    /// Planner's choice (today always [`CpuEngine::Fast`]).
    Auto,
    /// One scalar multiplication per point (reference; slow).
    Naive,
    /// Serial Pippenger, BDLO12 bucket reduction (cuZK Algorithms 1–2).
    Serial,
    /// cuZK §3.1 approach 1: windows in parallel.
    ParallelWindows,
    /// cuZK §3.1 approach 2: independent Pippengers over point chunks.
    ParallelChunks,
    /// cuZK §3.1 approach 3: chunks × windows.
    ParallelHybrid,
    /// cuZK §3.2: ELL → CSR → transpose → SpMV with ones → Algorithm 4.
    Cuzk,
    /// Signed digits, batch-affine buckets, GLV, size partitioning, grouping.
    Fast,
}

impl CpuEngine {
    pub const ALL: [CpuEngine; 8] = [
        CpuEngine::Auto,
        CpuEngine::Naive,
        CpuEngine::Serial,
        CpuEngine::ParallelWindows,
        CpuEngine::ParallelChunks,
        CpuEngine::ParallelHybrid,
        CpuEngine::Cuzk,
        CpuEngine::Fast,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            CpuEngine::Auto => "auto",
            CpuEngine::Naive => "naive",
            CpuEngine::Serial => "serial",
            CpuEngine::ParallelWindows => "par-windows",
            CpuEngine::ParallelChunks => "par-chunks",
            CpuEngine::ParallelHybrid => "par-hybrid",
            CpuEngine::Cuzk => "cuzk",
            CpuEngine::Fast => "fast",
        }
    }
}

impl std::str::FromStr for CpuEngine {
    type Err = MsmError;
    fn from_str(s: &str) -> Result<Self, MsmError> {
        CpuEngine::ALL
            .iter()
            .find(|e| e.name() == s)
            .copied()
            .ok_or_else(|| MsmError::UnknownEngine(s.to_string()))
    }
}

impl std::fmt::Display for CpuEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Caller overrides; `Default` lets the planner decide everything.
#[derive(Clone, Debug)]
pub struct MsmConfig {
    pub engine: CpuEngine,
    /// Window size in bits (`2..=24`); `None` = planner.
    pub window: Option<u32>,
    /// Force GLV on/off (fast engine, G1 only); `None` = planner.
    pub glv: Option<bool>,
    /// Split scalars by size (fast engine).
    pub partition: bool,
    /// Sum points sharing a scalar value first when values repeat (fast engine).
    pub group_equal: bool,
    /// Merge equal bases by adding their scalars (SimdMSM §5.2), all engines.
    pub dedup_points: bool,
    /// Flush buckets on eight lanes (AVX-512 IFMA's, else AVX2's FMA lanes) where the
    /// CPU and group have them (fast engine): `None` where they are cheaper than the
    /// scalar flush ([`planner::default_lane_flush`]), `Some(true)` always,
    /// `Some(false)` never.
    pub simd: Option<bool>,
    /// Unless `simd` is `Some(false)`, run the eight-lane flush on the software model of
    /// the IFMA lanes instead of the CPU's instructions: any host, slow; for tests and
    /// debugging.
    #[cfg(feature = "ifma-model")]
    pub ifma_model: bool,
    /// Unless `simd` is `Some(false)`, run the flush on the FMA lanes even where IFMA is
    /// present (tests).
    #[cfg(feature = "ifma-model")]
    pub fma_lanes: bool,
    /// Run on a pool of this many threads; `None` = the global rayon pool.
    pub threads: Option<usize>,
}

impl Default for MsmConfig {
    fn default() -> Self {
        Self {
            engine: CpuEngine::Auto,
            window: None,
            glv: None,
            partition: true,
            group_equal: true,
            dedup_points: false,
            simd: None,
            #[cfg(feature = "ifma-model")]
            ifma_model: false,
            #[cfg(feature = "ifma-model")]
            fma_lanes: false,
            threads: None,
        }
    }
}

impl MsmConfig {
    pub fn engine(engine: CpuEngine) -> Self {
        Self {
            engine,
            ..Self::default()
        }
    }
}

/// The result and what was chosen to compute it.
#[derive(Clone, Debug)]
pub struct MsmOutcome<C: MsmCurve> {
    pub result: Jacobian<C>,
    pub engine: CpuEngine,
    pub window: u32,
    pub glv: bool,
    /// Whether equal scalar values were grouped (clustered input).
    pub grouped: bool,
    /// Whether the buckets were flushed on eight lanes (IFMA's or the FMA lanes').
    pub simd: bool,
}

pub(crate) fn check_window(c: u32) -> Result<u32, MsmError> {
    if (2..=24).contains(&c) {
        Ok(c)
    } else {
        Err(MsmError::InvalidWindow(c))
    }
}

/// `Σ scalars[i]·bases[i]` with the planner's choice. Empty input gives the identity;
/// different lengths give [`MsmError::LengthMismatch`].
pub fn msm<C: MsmCurve>(
    bases: &[Affine<C>],
    scalars: &[C::Scalar],
) -> Result<Jacobian<C>, MsmError> {
    msm_with(bases, scalars, &MsmConfig::default()).map(|o| o.result)
}

/// [`msm`] with caller overrides, reporting the engine and window used.
pub fn msm_with<C: MsmCurve>(
    bases: &[Affine<C>],
    scalars: &[C::Scalar],
    cfg: &MsmConfig,
) -> Result<MsmOutcome<C>, MsmError> {
    if bases.len() != scalars.len() {
        return Err(MsmError::LengthMismatch {
            bases: bases.len(),
            scalars: scalars.len(),
        });
    }
    if let Some(c) = cfg.window {
        check_window(c)?;
    }
    match cfg.threads {
        Some(t) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t.max(1))
                .build()
                .map_err(|e| MsmError::ThreadPool(e.to_string()))?;
            pool.install(|| run(bases, scalars, cfg))
        }
        None => run(bases, scalars, cfg),
    }
}

fn run<C: MsmCurve>(
    bases: &[Affine<C>],
    scalars: &[C::Scalar],
    cfg: &MsmConfig,
) -> Result<MsmOutcome<C>, MsmError> {
    let mut limbs: Vec<[u64; 4]> = scalars.par_iter().map(C::scalar_limbs).collect();
    let deduped;
    let mut points = bases;
    if cfg.dedup_points {
        let (p, k) = dedup_points::<C>(bases, scalars);
        deduped = p;
        limbs = k;
        points = &deduped;
    }
    let engine = match cfg.engine {
        CpuEngine::Auto => CpuEngine::Fast,
        e => e,
    };
    let bits = <C::Scalar as PrimeField>::MODULUS_BITS;
    let mut out = MsmOutcome {
        result: Jacobian::identity(),
        engine,
        window: 0,
        glv: false,
        grouped: false,
        simd: false,
    };
    if points.is_empty() {
        return Ok(out);
    }
    let window = || {
        cfg.window.unwrap_or_else(|| {
            planner::plan_window::<C>(points.len(), bits)
                .window
                .clamp(2, 16)
        })
    };
    let r: Xyzz<C> = match engine {
        CpuEngine::Naive => pippenger::naive(points, &limbs),
        CpuEngine::Serial => {
            out.window = window();
            pippenger::serial(points, &limbs, bits, out.window)
        }
        CpuEngine::ParallelWindows => {
            out.window = window();
            pippenger::parallel_windows(points, &limbs, bits, out.window)
        }
        CpuEngine::ParallelChunks => {
            out.window = window();
            pippenger::parallel_chunks(points, &limbs, bits, out.window)
        }
        CpuEngine::ParallelHybrid => {
            out.window = window();
            pippenger::parallel_hybrid(points, &limbs, bits, out.window)
        }
        CpuEngine::Cuzk => {
            out.window = window();
            sparse_matrix::msm(points, &limbs, bits, out.window)
        }
        CpuEngine::Fast | CpuEngine::Auto => {
            let opts = FastOptions {
                window: cfg.window,
                glv: cfg.glv,
                partition: cfg.partition,
                group_equal: cfg.group_equal,
                simd: cfg.simd,
                #[cfg(feature = "ifma-model")]
                ifma_model: cfg.ifma_model,
                #[cfg(feature = "ifma-model")]
                fma_lanes: cfg.fma_lanes,
            };
            let mut rep = fast::FastReport::default();
            let r = fast::msm_fast_limbs(points, &limbs, &opts, &mut rep);
            out.window = rep.window;
            out.glv = rep.glv;
            out.grouped = rep.grouped;
            out.simd = rep.simd;
            r
        }
    };
    out.result = Jacobian::from(r);
    Ok(out)
}

/// Merges equal bases (SimdMSM §5.2): one entry per distinct point, scalars summed.
fn dedup_points<C: MsmCurve>(
    bases: &[Affine<C>],
    scalars: &[C::Scalar],
) -> (Vec<Affine<C>>, Vec<[u64; 4]>) {
    let mut index: HashMap<Affine<C>, usize> = HashMap::with_capacity(bases.len());
    let mut pts = Vec::with_capacity(bases.len());
    let mut ks: Vec<C::Scalar> = Vec::with_capacity(bases.len());
    for (p, k) in bases.iter().zip(scalars) {
        match index.get(p) {
            Some(&j) => ks[j] += *k,
            None => {
                index.insert(*p, pts.len());
                pts.push(*p);
                ks.push(*k);
            }
        }
    }
    let limbs = ks.iter().map(C::scalar_limbs).collect();
    (pts, limbs)
}

/// Several MSMs over the same bases (one result per scalar vector). Each vector must
/// have the bases' length.
pub fn msm_batch<C: MsmCurve>(
    bases: &[Affine<C>],
    scalar_sets: &[&[C::Scalar]],
) -> Result<Vec<Jacobian<C>>, MsmError> {
    for s in scalar_sets {
        if s.len() != bases.len() {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars: s.len(),
            });
        }
    }
    scalar_sets.iter().map(|s| msm(bases, s)).collect()
}

/// `(Σ kᵢ·Pᵢ, Σ kᵢ·Qᵢ)` for bases in two groups that share one scalar vector, as
/// Groth16's B query needs (`B` in G1 and in G2 over the same witness). The scalars are
/// converted and checked once and the two MSMs run side by side on the thread pool with
/// the fast engine (the IFMA flush where available). Lengths must all agree.
pub fn msm_pair<G1: MsmCurve, G2: MsmCurve<Scalar = G1::Scalar>>(
    bases_g1: &[Affine<G1>],
    bases_g2: &[Affine<G2>],
    scalars: &[G1::Scalar],
) -> Result<(Jacobian<G1>, Jacobian<G2>), MsmError> {
    for n in [bases_g1.len(), bases_g2.len()] {
        if n != scalars.len() {
            return Err(MsmError::LengthMismatch {
                bases: n,
                scalars: scalars.len(),
            });
        }
    }
    let limbs: Vec<[u64; 4]> = scalars.par_iter().map(G1::scalar_limbs).collect();
    let opts = FastOptions::default();
    let (a, b) = rayon::join(
        || fast::msm_fast_limbs(bases_g1, &limbs, &opts, &mut fast::FastReport::default()),
        || fast::msm_fast_limbs(bases_g2, &limbs, &opts, &mut fast::FastReport::default()),
    );
    Ok((Jacobian::from(a), Jacobian::from(b)))
}
