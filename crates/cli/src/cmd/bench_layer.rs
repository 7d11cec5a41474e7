//! `fastzk bench layer`: the single-source layer against hand-written code — a sumcheck
//! written once on the layer (`fastzk_runtime::sumcheck`) next to the hand-written one
//! (`run_fused` for `a·b·c`, `run_fused_eq` for Spartan's outer `eq·(a·b − c)`), in one
//! run, interleaved, the two proofs compared.

use std::time::Instant;

use anyhow::{ensure, Context, Result};
use fastzk_field::{Goldilocks, GoldilocksExt3};
use fastzk_multilinear::sumcheck::{run_fused, run_fused_eq};
use fastzk_multilinear::{Absorb, HashKind, Transcript};
use fastzk_pairing::{with_pairing_curve, Fr};
use fastzk_runtime::sumcheck::{prove_eq_r1cs, prove_product3};
use fastzk_runtime::{Context as Layer, KernelField};
use rand_core::OsRng;

use crate::args::{value_name, FieldArg};

/// Options of `fastzk bench layer`.
#[derive(clap::Args, Debug, Clone)]
pub struct LayerBenchArgs {
    #[arg(long, value_enum, default_value = "goldilocks")]
    pub field: FieldArg,
    /// Which sumcheck: `a·b·c`, or Spartan's outer `eq(q, ·)·(a·b − c)` with `eq`
    /// factored out (in Goldilocks' cubic extension, as Spartan runs it, when the field
    /// is Goldilocks).
    #[arg(long, value_enum, default_value = "product3")]
    pub op: LayerOp,
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

/// The sumchecks `fastzk bench layer` compares.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerOp {
    Product3,
    EqR1cs,
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
        FieldArg::Goldilocks if args.op == LayerOp::EqR1cs => bench::<GoldilocksExt3>(args, &layer),
        FieldArg::Goldilocks => bench::<Goldilocks>(args, &layer),
    })
}

/// A proof's messages, and the time it took.
type Timed<F> = (Vec<Vec<F>>, f64);

fn bench<F: KernelField + Absorb>(args: &LayerBenchArgs, layer: &Layer) -> Result<()> {
    let n = 1usize << args.log_size;
    let tables: Vec<Vec<F>> = (0..3)
        .map(|_| (0..n).map(|_| F::random(&mut OsRng)).collect())
        .collect();
    let input = || -> [Vec<F>; 3] { std::array::from_fn(|k| tables[k].clone()) };
    let vars = args.log_size as usize;
    let q: Vec<F> = (0..vars).map(|_| F::random(&mut OsRng)).collect();
    let claim: F = match args.op {
        LayerOp::Product3 => (0..n)
            .map(|i| tables[0][i] * tables[1][i] * tables[2][i])
            .sum(),
        LayerOp::EqR1cs => {
            let eq = fastzk_multilinear::eq_table(&q);
            (0..n)
                .map(|i| eq[i] * (tables[0][i] * tables[1][i] - tables[2][i]))
                .sum()
        }
    };
    let transcript = || {
        let mut t = Transcript::new(HashKind::Blake3, b"fastzk bench layer");
        t.append_elements(b"sumcheck claim", &[claim]);
        t
    };
    let timed = |f: &mut dyn FnMut(&mut Transcript) -> Result<Vec<Vec<F>>>| -> Result<Timed<F>> {
        let mut t = transcript();
        let s = Instant::now();
        let rounds = f(&mut t)?;
        Ok((rounds, s.elapsed().as_secs_f64() * 1e3))
    };
    let mut hand_written = |t: &mut Transcript| -> Result<Vec<Vec<F>>> {
        Ok(match args.op {
            LayerOp::Product3 => {
                let g = |v: &[F; 3]| v[0] * v[1] * v[2];
                run_fused(input(), 3, g, claim, vars, None, t)?.0
            }
            LayerOp::EqR1cs => {
                let g = |v: &[F; 3]| v[0] * v[1] - v[2];
                run_fused_eq(input(), &q, F::ONE, 2, g, claim, vars, None, t)?.0
            }
        })
    };
    let mut on_layer = |t: &mut Transcript| -> Result<Vec<Vec<F>>> {
        let mut task = layer.deferred_task()?;
        let rounds = match args.op {
            LayerOp::Product3 => prove_product3(&mut task, input(), claim, t)?.0,
            LayerOp::EqR1cs => {
                prove_eq_r1cs(&mut task, input(), &q, F::ONE, claim, vars, None, t)?.0
            }
        };
        task.sync()?;
        Ok(rounds)
    };
    let (mut hand, mut layered) = (Vec::new(), Vec::new());
    for _ in 0..args.runs {
        let (rounds, h) = timed(&mut hand_written)?;
        let (l_rounds, l) = timed(&mut on_layer)?;
        hand.push(h);
        layered.push(l);
        ensure!(
            l_rounds == rounds,
            "the layer's sumcheck disagrees with the hand-written one"
        );
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let (h, l) = (median(&mut hand), median(&mut layered));
    let op = match args.op {
        LayerOp::Product3 => "sumcheck a*b*c",
        LayerOp::EqR1cs => "sumcheck eq*(a*b-c)",
    };
    let field = match (args.field, args.op) {
        (FieldArg::Goldilocks, LayerOp::EqR1cs) => "goldilocks-ext3".to_string(),
        (f, _) => value_name(&f),
    };
    let threads = rayon::current_num_threads();
    let traffic = layer.traffic();
    if args.json {
        println!(
            "{{\"op\":\"{op}\",\"field\":\"{field}\",\"log_size\":{},\"threads\":{threads},\"layer_on\":{:?},\"runs\":{},\"hand_written_median_ms\":{h:.3},\"layer_median_ms\":{l:.3},\"layer_over_hand_written\":{:.3},\"launches\":{},\"streams\":{},\"uploads\":{},\"upload_bytes\":{},\"downloads\":{},\"checked\":\"same proof\"}}",
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
            "{op} {field} 2^{} threads {threads}: hand-written {h:.2} ms, layer on {} {l:.2} ms ({:.3}×; medians of {}; same proof)",
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
