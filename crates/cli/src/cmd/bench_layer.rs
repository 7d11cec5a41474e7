//! `fastzk bench layer`: the single-source layer against hand-written code — the
//! sumcheck of `a·b·c` written once on the layer (`fastzk_runtime::sumcheck`) next to the
//! hand-written `run_fused`, in one run, interleaved, the two proofs compared.

use std::time::Instant;

use anyhow::{ensure, Context, Result};
use fastzk_field::Goldilocks;
use fastzk_multilinear::sumcheck::run_fused;
use fastzk_multilinear::{Absorb, HashKind, Transcript};
use fastzk_pairing::{with_pairing_curve, Fr};
use fastzk_runtime::sumcheck::prove_product3;
use fastzk_runtime::{Context as Layer, KernelField};
use rand_core::OsRng;

use crate::args::{value_name, FieldArg};

/// Options of `fastzk bench layer`.
#[derive(clap::Args, Debug, Clone)]
pub struct LayerBenchArgs {
    #[arg(long, value_enum, default_value = "goldilocks")]
    pub field: FieldArg,
    /// log2 of the tables' length (the sumcheck's variables).
    #[arg(long, default_value_t = 20)]
    pub log_size: u32,
    /// Timed runs of each (the medians are printed).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Where the layer runs (cpu, cuda, opencl, auto); the hand-written code runs on the
    /// CPU. PoCL's timings are not GPU figures.
    #[arg(long, default_value = "cpu")]
    pub device: fastzk_gpu::DeviceChoice,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &LayerBenchArgs) -> Result<()> {
    ensure!(args.runs >= 1, "--runs must be at least 1");
    ensure!(
        (1..=28).contains(&args.log_size),
        "--log-size must be between 1 and 28"
    );
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = args.threads {
        b = b.num_threads(t);
    }
    let pool = b.build().context("building the thread pool")?;
    let layer = Layer::open(args.device)?;
    pool.install(|| match args.field {
        FieldArg::Scalar(curve) => with_pairing_curve!(curve, E => bench::<Fr<E>>(args, &layer)),
        FieldArg::Goldilocks => bench::<Goldilocks>(args, &layer),
    })
}

fn bench<F: KernelField + Absorb>(args: &LayerBenchArgs, layer: &Layer) -> Result<()> {
    let n = 1usize << args.log_size;
    let tables: Vec<Vec<F>> = (0..3)
        .map(|_| (0..n).map(|_| F::random(&mut OsRng)).collect())
        .collect();
    let claim: F = (0..n)
        .map(|i| tables[0][i] * tables[1][i] * tables[2][i])
        .sum();
    let transcript = || {
        let mut t = Transcript::new(HashKind::Blake3, b"fastzk bench layer");
        t.append_elements(b"sumcheck claim", &[claim]);
        t
    };
    let vars = args.log_size as usize;
    let (mut hand, mut on_layer) = (Vec::new(), Vec::new());
    for _ in 0..args.runs {
        let input = [tables[0].clone(), tables[1].clone(), tables[2].clone()];
        let mut t = transcript();
        let s = Instant::now();
        let (rounds, ..) = run_fused(
            input,
            3,
            |v: &[F; 3]| v[0] * v[1] * v[2],
            claim,
            vars,
            None,
            &mut t,
        )?;
        hand.push(s.elapsed().as_secs_f64() * 1e3);

        let input = [tables[0].clone(), tables[1].clone(), tables[2].clone()];
        let mut t = transcript();
        let s = Instant::now();
        let mut task = layer.deferred_task()?;
        let (l_rounds, ..) = prove_product3(&mut task, input, claim, &mut t)?;
        task.sync()?;
        on_layer.push(s.elapsed().as_secs_f64() * 1e3);
        ensure!(
            l_rounds == rounds,
            "the layer's sumcheck disagrees with the hand-written one"
        );
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let (h, l) = (median(&mut hand), median(&mut on_layer));
    let field = value_name(&args.field);
    let threads = rayon::current_num_threads();
    let traffic = layer.traffic();
    if args.json {
        println!(
            "{{\"op\":\"sumcheck a*b*c\",\"field\":\"{field}\",\"log_size\":{},\"threads\":{threads},\"layer_on\":{:?},\"runs\":{},\"hand_written_median_ms\":{h:.3},\"layer_median_ms\":{l:.3},\"layer_over_hand_written\":{:.3},\"launches\":{},\"streams\":{},\"uploads\":{},\"upload_bytes\":{},\"downloads\":{},\"checked\":\"same proof\"}}",
            args.log_size,
            layer.describe(),
            args.runs,
            l / h,
            traffic.launches,
            traffic.streams,
            traffic.uploads,
            traffic.upload_bytes,
            traffic.downloads,
        );
    } else {
        println!(
            "sumcheck a·b·c {field} 2^{} threads {threads}: hand-written {h:.2} ms, layer on {} {l:.2} ms ({:.3}×; medians of {}; same proof)",
            args.log_size,
            layer.describe(),
            l / h,
            args.runs
        );
        if traffic.launches > 0 {
            println!(
                "  device traffic over all runs: {} launches on {} streams, {} uploads ({} bytes), {} downloads ({} bytes), {} control copies",
                traffic.launches,
                traffic.streams,
                traffic.uploads,
                traffic.upload_bytes,
                traffic.downloads,
                traffic.download_bytes,
                traffic.control_copies
            );
        }
    }
    Ok(())
}
