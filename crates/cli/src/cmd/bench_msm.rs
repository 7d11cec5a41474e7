//! `fastzk bench msm`: builds seeded inputs, checks the chosen engine against a second
//! engine at small sizes, and prints the median time (and the engine and window used).

use std::time::Instant;

use anyhow::{ensure, Result};
use clap::ValueEnum;
use fastzk_curve::random_points;
use fastzk_field::Field;
use fastzk_msm::{msm_with, CpuEngine, MsmConfig, MsmCurve, PrecomputedBases};
use fastzk_pairing::{with_pairing_curve, PairingCurve};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::args::{value_name, CurveArg, GroupArg, MsmEngineArg};

/// How the scalars are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScalarDist {
    /// Uniform.
    Random,
    /// 32 distinct values.
    Clustered,
    /// A circom-like mix: zeros, ones, small values, random ones.
    Witness,
}

#[derive(clap::Args, Debug, Clone)]
pub struct MsmBenchArgs {
    #[arg(long, value_enum, default_value = "bn254")]
    pub curve: CurveArg,
    #[arg(long, value_enum, default_value = "g1")]
    pub group: GroupArg,
    /// log2 of the number of points.
    #[arg(long, default_value_t = 16)]
    pub log_size: u32,
    #[arg(long, value_enum, default_value = "random")]
    pub scalars: ScalarDist,
    #[arg(long, value_enum, default_value = "auto")]
    pub engine: MsmEngineArg,
    /// Window size override.
    #[arg(long)]
    pub window: Option<u32>,
    /// Force GLV on (true) or off (false).
    #[arg(long)]
    pub glv: Option<bool>,
    /// Threads (default: all).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Timed runs (median reported).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// RNG seed for points and scalars.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Skip the cross-check even at small sizes.
    #[arg(long)]
    pub no_check: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also time the fixed-base mode at the same window: every window's shift of each
    /// base computed once (as for a proving key's points), one MSM a single window over
    /// them. Reports the table's size and build time beside the median (with --device,
    /// the table resident on the device and the device memory it takes).
    #[arg(long)]
    pub precompute: bool,
    /// Run on a device (cuda, opencl, auto) instead of the CPU engines; timed host to
    /// host (uploads and downloads included) and with the bases already on the device.
    /// PoCL's timings are not GPU figures.
    #[arg(long, default_value = "cpu")]
    pub device: fastzk_gpu::DeviceChoice,
}

fn make_scalars<C: MsmCurve>(n: usize, kind: ScalarDist, seed: u64) -> Vec<C::Scalar> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(31).wrapping_add(1));
    match kind {
        ScalarDist::Random => (0..n).map(|_| C::Scalar::random(&mut rng)).collect(),
        ScalarDist::Clustered => {
            let vals: Vec<C::Scalar> = (0..32).map(|_| C::Scalar::random(&mut rng)).collect();
            (0..n).map(|_| vals[rng.gen_range(0..32)]).collect()
        }
        ScalarDist::Witness => (0..n)
            .map(|_| match rng.gen_range(0..8) {
                0..=2 => C::Scalar::ZERO,
                3 | 4 => C::Scalar::ONE,
                5 => C::Scalar::from_u64(rng.gen_range(0..1 << 16)),
                _ => C::Scalar::random(&mut rng),
            })
            .collect(),
    }
}

/// The curve, group and scalar distribution, as the output names them.
fn names(args: &MsmBenchArgs) -> (&'static str, String, String) {
    (
        args.curve.0.name(),
        value_name(&args.group),
        value_name(&args.scalars),
    )
}

fn bench<C: MsmCurve>(args: &MsmBenchArgs) -> Result<()> {
    ensure!(args.log_size <= 26, "--log-size above 26 is not supported");
    let n = 1usize << args.log_size;
    let (curve, group, dist) = names(args);
    // `simd` and `scalar` are the fast engine with the eight-lane flush forced on/off.
    ensure!(
        args.engine.simd != Some(true) || C::lane_flush().is_some(),
        "--engine simd: no eight-lane flush (AVX-512 IFMA, or AVX2 FMA lanes) for {curve} {group} on this CPU"
    );
    let (engine, simd) = (args.engine.engine, args.engine.simd);
    let cfg = MsmConfig {
        window: args.window,
        glv: args.glv,
        threads: args.threads,
        simd,
        ..MsmConfig::engine(engine)
    };
    let t0 = Instant::now();
    let points = random_points::<C>(n, args.seed);
    let scalars = make_scalars::<C>(n, args.scalars, args.seed);
    let setup_ms = t0.elapsed().as_secs_f64() * 1e3;
    // Warm-up (also calibrates the planner) and result.
    let first = msm_with(&points, &scalars, &cfg)?;
    let mut checked = "skipped";
    if !args.no_check && args.log_size <= 14 {
        let other = if matches!(first.engine, CpuEngine::Fast) {
            CpuEngine::ParallelWindows
        } else {
            CpuEngine::Fast
        };
        let second = msm_with(
            &points,
            &scalars,
            &MsmConfig {
                simd: Some(false),
                ..MsmConfig::engine(other)
            },
        )?;
        ensure!(
            second.result == first.result,
            "{} and {} disagree",
            first.engine,
            other
        );
        checked = if matches!(other, CpuEngine::Fast) {
            "fast"
        } else {
            "par-windows"
        };
    }
    if !args.json {
        let cal = fastzk_msm::planner::calibration::<C>();
        let glv = if C::glv().is_some() {
            format!("{:.1} ns", cal.glv_ns)
        } else {
            "n/a (no endomorphism)".to_string()
        };
        let simd_red = match cal.simd_reduce_step_ns {
            Some(ns) => format!("segmented on lanes {ns:.1} ns"),
            None => "n/a".to_string(),
        };
        let simd = match cal.simd_batch_add_ns {
            Some(ns) => format!("{ns:.1} ns"),
            None => "n/a".to_string(),
        };
        println!(
            "calibration: batch-affine add {:.1} ns (lane flush {simd}), fixed cost per flush {:.0}/{:.0} ns, reduction step {:.1} ns (segmented {:.1} ns, {simd_red}), glv split {glv}",
            cal.batch_add_ns,
            cal.flush_ns,
            cal.simd_flush_ns,
            cal.reduce_step_ns,
            cal.segmented_reduce_step_ns
        );
    }
    let times = timed_runs(args.runs, || {
        let r = msm_with(&points, &scalars, &cfg)?;
        ensure!(r.result == first.result, "runs disagree");
        Ok(())
    })?;
    let median = times[times.len() / 2];
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    let fixed = if args.precompute {
        let c = args.window.unwrap_or(first.window);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()?;
        Some(pool.install(|| bench_precomputed(args, &points, &scalars, c, &first.result))?)
    } else {
        None
    };
    if args.json {
        let fixed = fixed.map_or(String::new(), |f| {
            format!(
                ",\"precomputed\":{{\"window\":{},\"median_ms\":{:.3},\"table_bytes\":{},\"build_ms\":{:.1}}}",
                f.window, f.median_ms, f.table_bytes, f.build_ms
            )
        });
        println!(
            "{{\"curve\":\"{}\",\"group\":\"{}\",\"log_size\":{},\"scalars\":\"{}\",\"engine\":\"{}\",\"window\":{},\"glv\":{},\"grouped\":{},\"simd\":{},\"threads\":{},\"median_ms\":{:.3},\"min_ms\":{:.3},\"runs\":{},\"checked_against\":\"{}\"{}}}",
            curve, group, args.log_size, dist, first.engine, first.window,
            first.glv, first.grouped, first.simd, threads, median, times[0], times.len(), checked, fixed
        );
    } else {
        println!(
            "msm {} {} 2^{} {} scalars: median {:.2} ms (min {:.2}, {} runs) engine {} window {} glv {} grouped {} simd {} threads {} (inputs {:.0} ms, check: {})",
            curve, group, args.log_size, dist, median, times[0], times.len(),
            first.engine, first.window, first.glv, first.grouped, first.simd, threads, setup_ms, checked
        );
        if let Some(f) = fixed {
            println!(
                "  precomputed bases (window {}): median {:.2} ms, table {:.1} MiB built in {:.0} ms",
                f.window,
                f.median_ms,
                f.table_bytes as f64 / (1024.0 * 1024.0),
                f.build_ms
            );
        }
    }
    Ok(())
}

/// The fixed-base mode's figures.
struct Precomputed {
    window: u32,
    median_ms: f64,
    table_bytes: usize,
    build_ms: f64,
}

/// Builds the fixed-base table at window `c`, checks its result against the plain
/// engine's and times it.
fn bench_precomputed<C: MsmCurve>(
    args: &MsmBenchArgs,
    points: &[fastzk_curve::Affine<C>],
    scalars: &[C::Scalar],
    c: u32,
    expected: &fastzk_curve::Jacobian<C>,
) -> Result<Precomputed> {
    let t = Instant::now();
    let table = PrecomputedBases::new(points, c)?;
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    ensure!(
        table.msm(scalars)? == *expected,
        "the precomputed bases' MSM disagrees with the engine's"
    );
    let times = timed_runs(args.runs, || {
        ensure!(table.msm(scalars)? == *expected, "runs disagree");
        Ok(())
    })?;
    Ok(Precomputed {
        window: c,
        median_ms: times[times.len() / 2],
        table_bytes: table.memory_bytes(),
        build_ms,
    })
}

/// Runs `run` at least once and `runs` times in all; milliseconds, sorted.
fn timed_runs(runs: usize, mut run: impl FnMut() -> Result<()>) -> Result<Vec<f64>> {
    let mut times = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        run()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(times)
}

/// `--group pair`: the G1 and G2 MSMs over one scalar vector (Groth16's B query).
fn bench_pair<G1: MsmCurve, G2: MsmCurve<Scalar = G1::Scalar>>(args: &MsmBenchArgs) -> Result<()> {
    let n = 1usize << args.log_size;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(
            args.threads
                .unwrap_or_else(rayon::current_num_threads)
                .max(1),
        )
        .build()?;
    let (curve, _, dist) = names(args);
    let p = random_points::<G1>(n, args.seed);
    let q = random_points::<G2>(n, args.seed ^ 1);
    let ks = make_scalars::<G1>(n, args.scalars, args.seed);
    let first = pool.install(|| fastzk_msm::msm_pair(&p, &q, &ks))?;
    let mut checked = "skipped";
    if !args.no_check && args.log_size <= 14 {
        let reference = MsmConfig {
            simd: Some(false),
            ..MsmConfig::engine(CpuEngine::ParallelWindows)
        };
        ensure!(
            msm_with(&p, &ks, &reference)?.result == first.0
                && msm_with(&q, &ks, &reference)?.result == first.1,
            "pair MSM and par-windows disagree"
        );
        checked = "par-windows";
    }
    let times = timed_runs(args.runs, || {
        let r = pool.install(|| fastzk_msm::msm_pair(&p, &q, &ks))?;
        ensure!(r == first, "runs disagree");
        Ok(())
    })?;
    let median = times[times.len() / 2];
    let threads = pool.current_num_threads();
    if args.json {
        println!(
            "{{\"curve\":\"{}\",\"group\":\"pair\",\"log_size\":{},\"scalars\":\"{}\",\"engine\":\"pair\",\"window\":0,\"glv\":false,\"grouped\":false,\"simd\":{},\"threads\":{},\"median_ms\":{:.3},\"min_ms\":{:.3},\"runs\":{},\"checked_against\":\"{}\"}}",
            curve, args.log_size, dist, fastzk_msm::planner::default_lane_flush::<G1>().is_some(), threads, median, times[0], times.len(), checked
        );
    } else {
        println!(
            "msm {} pair (G1 + G2) 2^{} {} scalars: median {:.2} ms (min {:.2}, {} runs) threads {threads} (check: {checked})",
            curve, args.log_size, dist, median, times[0], times.len()
        );
    }
    Ok(())
}

/// `--device`: the device engine, checked against the CPU's fast engine.
fn bench_device<C: fastzk_gpu::DeviceCurve>(
    args: &MsmBenchArgs,
    device: fastzk_gpu::Device,
) -> Result<()> {
    use fastzk_msm::MsmEngine;
    ensure!(args.log_size <= 26, "--log-size above 26 is not supported");
    let n = 1usize << args.log_size;
    let (curve, group, dist) = names(args);
    let info = device.info().to_string();
    let mut engine = fastzk_gpu::DeviceMsm::new(std::sync::Arc::new(device));
    if let Some(c) = args.window {
        engine = engine.with_window(c)?;
    }
    let points = random_points::<C>(n, args.seed);
    let scalars = make_scalars::<C>(n, args.scalars, args.seed);
    // Warm-up: compiles (or loads) the kernels.
    let first = engine.msm(&points, &scalars)?;
    let mut checked = "skipped";
    if !args.no_check {
        let cpu = msm_with(&points, &scalars, &MsmConfig::default())?.result;
        ensure!(
            cpu == first,
            "the device and the CPU's fast engine disagree"
        );
        checked = "cpu fast";
    }
    let times = timed_runs(args.runs, || {
        ensure!(engine.msm(&points, &scalars)? == first, "runs disagree");
        Ok(())
    })?;
    // Bases uploaded once, as a prover keeps its key's points on the device.
    let resident = engine.upload_bases(&points)?;
    let resident_times = timed_runs(args.runs, || {
        ensure!(
            engine.msm_resident(&resident, &scalars)? == first,
            "runs disagree"
        );
        Ok(())
    })?;
    let median = times[times.len() / 2];
    let resident_median = resident_times[resident_times.len() / 2];
    drop(resident);
    // A fixed-base table on the device, at the engine's window (or --window).
    let fixed = if args.precompute {
        let c = args
            .window
            .unwrap_or_else(|| fastzk_gpu::msm::default_window(n));
        let t = Instant::now();
        let table = PrecomputedBases::new(&points, c)?;
        let build_ms = t.elapsed().as_secs_f64() * 1e3;
        let on_device = engine.upload_precomputed(&table)?;
        drop(table);
        ensure!(
            engine.msm_resident(&on_device, &scalars)? == first,
            "the device's precomputed MSM disagrees"
        );
        let times = timed_runs(args.runs, || {
            ensure!(
                engine.msm_resident(&on_device, &scalars)? == first,
                "runs disagree"
            );
            Ok(())
        })?;
        Some(Precomputed {
            window: c,
            median_ms: times[times.len() / 2],
            table_bytes: on_device.device_bytes(),
            build_ms,
        })
    } else {
        None
    };
    if args.json {
        let fixed = fixed.map_or(String::new(), |f| {
            format!(
                ",\"precomputed\":{{\"window\":{},\"median_ms\":{:.3},\"device_table_bytes\":{},\"build_ms\":{:.1}}}",
                f.window, f.median_ms, f.table_bytes, f.build_ms
            )
        });
        println!(
            "{{\"curve\":\"{curve}\",\"group\":\"{group}\",\"log_size\":{},\"scalars\":\"{dist}\",\"engine\":\"device\",\"device\":{:?},\"median_ms\":{median:.3},\"min_ms\":{:.3},\"resident_bases_median_ms\":{resident_median:.3},\"runs\":{},\"checked_against\":\"{checked}\"{fixed}}}",
            args.log_size, info, times[0], times.len()
        );
    } else {
        println!(
            "msm {curve} {group} 2^{} {dist} scalars: median {median:.2} ms (min {:.2}, {} runs) host to host, {resident_median:.2} ms with the bases resident, on {info} (check: {checked})",
            args.log_size, times[0], times.len()
        );
        if let Some(f) = fixed {
            println!(
                "  precomputed bases on the device (window {}): median {:.2} ms, table {:.1} MiB of device memory, built on the CPU in {:.0} ms",
                f.window,
                f.median_ms,
                f.table_bytes as f64 / (1024.0 * 1024.0),
                f.build_ms
            );
        }
    }
    Ok(())
}

/// Runs `fastzk bench msm`.
pub fn run(args: &MsmBenchArgs) -> Result<()> {
    if let Some(device) = args.device.open()? {
        return with_pairing_curve!(args.curve.0, E => match args.group {
            GroupArg::G1 => bench_device::<<E as PairingCurve>::G1>(args, device),
            GroupArg::G2 => bench_device::<<E as PairingCurve>::G2>(args, device),
            GroupArg::Pair => anyhow::bail!("--group pair runs on the CPU only (use g1 or g2 with --device)"),
        });
    }
    with_pairing_curve!(args.curve.0, E => match args.group {
        GroupArg::G1 => bench::<<E as PairingCurve>::G1>(args),
        GroupArg::G2 => bench::<<E as PairingCurve>::G2>(args),
        GroupArg::Pair => bench_pair::<<E as PairingCurve>::G1, <E as PairingCurve>::G2>(args),
    })
}
