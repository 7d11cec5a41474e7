//! `fastzk bench ntt`: time NTTs and print the median in milliseconds.

use std::time::Instant;

use anyhow::{ensure, Context, Result};
use clap::ValueEnum;
use fastzk_field::{Goldilocks, NttField};
use fastzk_pairing::{with_pairing_curve, Fr};
use fastzk_poly::{reverse_bits, NaiveDft, Order, Radix2Domain, Transform, TwoAdicTransform};
use rand_core::OsRng;

use crate::args::{value_name, FieldArg};

/// Options of `fastzk bench ntt`.
#[derive(clap::Args, Debug, Clone)]
pub struct NttBenchArgs {
    #[arg(long, value_enum, default_value = "bn254")]
    pub field: FieldArg,
    /// log2 of the transform size.
    #[arg(long, default_value_t = 20)]
    pub log_size: u32,
    /// Number of rows (independent transforms of the same size) in one batch.
    #[arg(long, default_value_t = 1)]
    pub batch: usize,
    /// Evaluate on the coset g·H instead of H.
    #[arg(long)]
    pub coset: bool,
    #[arg(long, value_enum, default_value = "fastzk")]
    pub engine: NttEngine,
    /// Timed runs (the median is printed).
    #[arg(long, default_value_t = 7)]
    pub runs: usize,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Run on a device (cuda, opencl, auto): timed host to host and device-resident,
    /// checked against the CPU engine. PoCL's timings are not GPU figures.
    #[arg(long, default_value = "cpu")]
    pub device: fastzk_gpu::DeviceChoice,
}

/// Runs the benchmark described by `args`.
pub fn run(args: &NttBenchArgs) -> Result<()> {
    let pool = {
        let mut b = rayon::ThreadPoolBuilder::new();
        if let Some(t) = args.threads {
            b = b.num_threads(t);
        }
        b.build().context("building the thread pool")?
    };
    if let Some(device) = args.device.open()? {
        let device = std::sync::Arc::new(device);
        return match args.field {
            FieldArg::Scalar(curve) => {
                with_pairing_curve!(curve, E => bench_device::<Fr<E>>(args, device))
            }
            FieldArg::Goldilocks => bench_device::<Goldilocks>(args, device),
        };
    }
    pool.install(|| match args.field {
        FieldArg::Scalar(curve) => with_pairing_curve!(curve, E => bench::<Fr<E>>(args)),
        FieldArg::Goldilocks => bench::<Goldilocks>(args),
    })
}

/// `--device`: the device transform, host to host and on a resident buffer, checked
/// against the CPU engine.
fn bench_device<F: NttField + fastzk_gpu::DeviceField>(
    args: &NttBenchArgs,
    device: std::sync::Arc<fastzk_gpu::Device>,
) -> Result<()> {
    use fastzk_gpu::source::to_words;
    ensure!(
        args.batch >= 1 && args.runs >= 1,
        "--batch and --runs must be at least 1"
    );
    ensure!(
        args.engine != Engine::Naive,
        "--engine naive runs on the CPU only"
    );
    let d = Radix2Domain::<F>::new(args.log_size)?;
    let t = fastzk_gpu::DeviceNtt::new(device.clone(), *d.subgroup())?;
    let total = d
        .size()
        .checked_mul(args.batch)
        .context("batch × size overflows")?;
    let input: Vec<F> = (0..total).map(|_| F::random(&mut OsRng)).collect();
    let (kind, out) = transform_of(args.engine, args.coset);
    let mut on_device = input.clone();
    t.apply_batch(kind, &mut on_device, Order::Natural, out)?;
    let mut on_cpu = input.clone();
    d.apply_batch(kind, &mut on_cpu, Order::Natural, out)?;
    ensure!(
        on_device == on_cpu,
        "the device and the CPU engine disagree"
    );
    let mut host = Vec::with_capacity(args.runs);
    for _ in 0..args.runs {
        let mut v = input.clone();
        let s = Instant::now();
        t.apply_batch(kind, &mut v, Order::Natural, out)?;
        host.push(s.elapsed().as_secs_f64() * 1e3);
    }
    let buf = device.upload(&to_words(&input))?;
    let mut resident = Vec::with_capacity(args.runs);
    for _ in 0..args.runs {
        let s = Instant::now();
        t.apply_on_device(kind, &buf, args.batch, Order::Natural, out)?;
        device.finish()?;
        resident.push(s.elapsed().as_secs_f64() * 1e3);
    }
    host.sort_by(|a, b| a.total_cmp(b));
    resident.sort_by(|a, b| a.total_cmp(b));
    let (h, r) = (host[host.len() / 2], resident[resident.len() / 2]);
    let info = device.info();
    if args.json {
        println!(
            "{{\"field\":\"{}\",\"log_size\":{},\"batch\":{},\"coset\":{},\"engine\":\"{}\",\"device\":{:?},\"host_to_host_median_ms\":{h:.3},\"resident_median_ms\":{r:.3},\"runs\":{},\"checked_against\":\"cpu\"}}",
            value_name(&args.field), args.log_size, args.batch, args.coset, value_name(&args.engine), info.to_string(), args.runs
        );
    } else {
        println!(
            "ntt {} 2^{} ×{} {}{}: median {h:.2} ms host to host, {r:.2} ms resident ({} runs) on {info} (check: cpu)",
            value_name(&args.field), args.log_size, args.batch, value_name(&args.engine),
            if args.coset { " coset" } else { "" }, args.runs
        );
    }
    Ok(())
}

/// What is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NttEngine {
    /// Forward, natural order in and out.
    Fastzk,
    /// Forward, natural in, bit-reversed out (no permutation).
    FastzkBitrev,
    /// Inverse, natural order in and out.
    Inverse,
    /// The O(n²) reference (log-size ≤ 14).
    Naive,
}
use NttEngine as Engine;

/// The transform and output order `engine` times (input in natural order).
fn transform_of(engine: Engine, coset: bool) -> (Transform, Order) {
    let out = if engine == Engine::FastzkBitrev {
        Order::BitReversed
    } else {
        Order::Natural
    };
    let kind = match (engine, coset) {
        (Engine::Inverse, false) => Transform::Inverse,
        (Engine::Inverse, true) => Transform::CosetInverse,
        (_, false) => Transform::Forward,
        (_, true) => Transform::CosetForward,
    };
    (kind, out)
}

fn apply<F: NttField>(d: &Radix2Domain<F>, engine: Engine, coset: bool, v: &mut [F]) -> Result<()> {
    let (kind, out) = transform_of(engine, coset);
    if engine == Engine::Naive {
        NaiveDft::on(*d.subgroup()).apply_batch(kind, v, Order::Natural, out)?
    } else {
        d.apply_batch(kind, v, Order::Natural, out)?
    }
    Ok(())
}

fn bench<F: NttField>(args: &NttBenchArgs) -> Result<()> {
    let engine = args.engine;
    ensure!(args.batch >= 1, "--batch must be at least 1");
    ensure!(args.runs >= 1, "--runs must be at least 1");
    ensure!(
        engine != Engine::Naive || args.log_size <= 14,
        "the naive engine is O(n²): use --log-size 14 or less"
    );
    let d = Radix2Domain::<F>::new(args.log_size)?;
    let total = d
        .size()
        .checked_mul(args.batch)
        .context("batch × size overflows")?;
    let input: Vec<F> = (0..total).map(|_| F::random(&mut OsRng)).collect();

    // Check against a second engine: the O(n²) DFT at small sizes, otherwise the inverse
    // transform (and spot evaluations by Horner).
    let mut out = input.clone();
    apply(&d, engine, args.coset, &mut out)?;
    let check = if engine != Engine::Naive && args.log_size <= 10 {
        let mut want = input.clone();
        let reference = if engine == Engine::Inverse {
            // inverse ∘ naive forward = identity
            apply(&d, Engine::Naive, args.coset, &mut want)?;
            let mut back = want.clone();
            apply(&d, Engine::Inverse, args.coset, &mut back)?;
            ensure!(back == input, "inverse NTT disagrees with the naive DFT");
            "naive DFT"
        } else {
            apply(&d, Engine::Naive, args.coset, &mut want)?;
            if engine == Engine::FastzkBitrev {
                for row in want.chunks_mut(d.size()) {
                    fastzk_poly::bit_reverse_permute(row)?;
                }
            }
            ensure!(out == want, "NTT disagrees with the naive DFT");
            "naive DFT"
        };
        reference
    } else if engine != Engine::Naive {
        let mut back = out.clone();
        if engine == Engine::FastzkBitrev {
            for row in back.chunks_mut(d.size()) {
                fastzk_poly::bit_reverse_permute(row)?;
            }
        }
        let mut back_engine = Engine::Inverse;
        if engine == Engine::Inverse {
            back_engine = Engine::Fastzk;
        }
        apply(&d, back_engine, args.coset, &mut back)?;
        ensure!(back == input, "forward and inverse NTT do not round-trip");
        if engine != Engine::Inverse {
            let shift = if args.coset { d.coset_shift() } else { F::ONE };
            let j = d.size() / 3;
            let j_out = if engine == Engine::FastzkBitrev {
                reverse_bits(j, args.log_size)
            } else {
                j
            };
            let x = shift * d.element(j);
            let p = input[..d.size()]
                .iter()
                .rev()
                .fold(F::ZERO, |acc, &c| acc * x + c);
            ensure!(
                out[j_out] == p,
                "NTT output disagrees with Horner evaluation"
            );
        }
        "round trip + Horner spot check"
    } else {
        "none (naive engine)"
    };

    let mut times = Vec::with_capacity(args.runs);
    for _ in 0..args.runs {
        let mut v = input.clone();
        let t = Instant::now();
        apply(&d, engine, args.coset, &mut v)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(&v);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let median = times[times.len() / 2];
    let threads = rayon::current_num_threads();
    let backend = format!("{:?}", fastzk_field::goldilocks::packed::Backend::detect());
    let (field, engine_name) = (value_name(&args.field), value_name(&args.engine));
    if args.json {
        println!(
            "{{\"field\":\"{}\",\"log_size\":{},\"batch\":{},\"coset\":{},\"engine\":\"{}\",\"threads\":{},\"goldilocks_backend\":\"{}\",\"runs\":{},\"median_ms\":{:.4},\"min_ms\":{:.4},\"checked_against\":\"{}\"}}",
            field, args.log_size, args.batch, args.coset, engine_name, threads, backend,
            args.runs, median, times[0], check
        );
    } else {
        println!(
            "ntt {} 2^{} × {}{} engine {} threads {}: median {:.3} ms (min {:.3}, {} runs; checked: {})",
            field,
            args.log_size,
            args.batch,
            if args.coset { " coset" } else { "" },
            engine_name,
            threads,
            median,
            times[0],
            args.runs,
            check
        );
    }
    Ok(())
}
