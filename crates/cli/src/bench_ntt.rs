//! `fastzk bench ntt`: time NTTs and print the median in milliseconds.

use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use fastzk_field::{bls12_381, bn254, Goldilocks, PrimeField};
use fastzk_poly::{naive, Order, Radix2Domain};
use rand_core::OsRng;

/// Options of `fastzk bench ntt`.
#[derive(clap::Args, Debug, Clone)]
pub struct NttBenchArgs {
    /// Field: bn254 | bls12-381 | goldilocks.
    #[arg(long, default_value = "bn254")]
    pub field: String,
    /// log2 of the transform size.
    #[arg(long, default_value_t = 20)]
    pub log_size: u32,
    /// Number of rows (independent transforms of the same size) in one batch.
    #[arg(long, default_value_t = 1)]
    pub batch: usize,
    /// Evaluate on the coset g·H instead of H.
    #[arg(long)]
    pub coset: bool,
    /// Engine: fastzk (natural order in and out) | fastzk-bitrev (natural in, bit-reversed
    /// out: no permutation) | inverse (natural in and out) | naive (O(n²), log-size ≤ 14).
    #[arg(long, default_value = "fastzk")]
    pub engine: String,
    /// Timed runs (the median is printed).
    #[arg(long, default_value_t = 7)]
    pub runs: usize,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
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
    pool.install(|| match args.field.as_str() {
        "bn254" => bench::<bn254::Fr>(args),
        "bls12-381" | "bls12_381" => bench::<bls12_381::Fr>(args),
        "goldilocks" => bench::<Goldilocks>(args),
        other => bail!("unknown field {other:?} (bn254, bls12-381, goldilocks)"),
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Engine {
    Fastzk,
    FastzkBitrev,
    Inverse,
    Naive,
}

fn apply<F: PrimeField>(
    d: &Radix2Domain<F>,
    engine: Engine,
    coset: bool,
    batch: usize,
    v: &mut [F],
) -> Result<()> {
    let out = if engine == Engine::FastzkBitrev {
        Order::BitReversed
    } else {
        Order::Natural
    };
    match (engine, coset, batch) {
        (Engine::Naive, _, _) => {
            let shift = if coset { d.coset_shift() } else { F::ONE };
            for row in v.chunks_mut(d.size()) {
                let r = naive::dft(row, shift)?;
                row.copy_from_slice(&r);
            }
        }
        (Engine::Inverse, false, 1) => d.inverse(v, Order::Natural, Order::Natural)?,
        (Engine::Inverse, true, 1) => d.coset_inverse(v, Order::Natural, Order::Natural)?,
        (Engine::Inverse, false, _) => d.inverse_batch(v, Order::Natural, Order::Natural)?,
        (Engine::Inverse, true, _) => d.coset_inverse_batch(v, Order::Natural, Order::Natural)?,
        (_, false, 1) => d.forward(v, Order::Natural, out)?,
        (_, true, 1) => d.coset_forward(v, Order::Natural, out)?,
        (_, false, _) => d.forward_batch(v, Order::Natural, out)?,
        (_, true, _) => d.coset_forward_batch(v, Order::Natural, out)?,
    }
    Ok(())
}

fn bench<F: PrimeField>(args: &NttBenchArgs) -> Result<()> {
    let engine = match args.engine.as_str() {
        "fastzk" => Engine::Fastzk,
        "fastzk-bitrev" => Engine::FastzkBitrev,
        "inverse" => Engine::Inverse,
        "naive" => Engine::Naive,
        other => bail!("unknown engine {other:?} (fastzk, fastzk-bitrev, inverse, naive)"),
    };
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
    apply(&d, engine, args.coset, args.batch, &mut out)?;
    let check = if engine != Engine::Naive && args.log_size <= 10 {
        let mut want = input.clone();
        let reference = if engine == Engine::Inverse {
            // inverse ∘ naive forward = identity
            apply(&d, Engine::Naive, args.coset, args.batch, &mut want)?;
            let mut back = want.clone();
            apply(&d, Engine::Inverse, args.coset, args.batch, &mut back)?;
            ensure!(back == input, "inverse NTT disagrees with the naive DFT");
            "naive DFT"
        } else {
            apply(&d, Engine::Naive, args.coset, args.batch, &mut want)?;
            if engine == Engine::FastzkBitrev {
                for row in want.chunks_mut(d.size()) {
                    bitrev(row);
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
                bitrev(row);
            }
        }
        let mut back_engine = Engine::Inverse;
        if engine == Engine::Inverse {
            back_engine = Engine::Fastzk;
        }
        apply(&d, back_engine, args.coset, args.batch, &mut back)?;
        ensure!(back == input, "forward and inverse NTT do not round-trip");
        if engine != Engine::Inverse {
            let shift = if args.coset { d.coset_shift() } else { F::ONE };
            let j = d.size() / 3;
            let j_out = if engine == Engine::FastzkBitrev {
                j.reverse_bits() >> (usize::BITS - args.log_size).min(usize::BITS - 1)
            } else {
                j
            };
            let j_out = if args.log_size == 0 { 0 } else { j_out };
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
        apply(&d, engine, args.coset, args.batch, &mut v)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(&v);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let median = times[times.len() / 2];
    let threads = rayon::current_num_threads();
    let backend = format!("{:?}", fastzk_field::packed::Backend::detect());
    if args.json {
        println!(
            "{{\"field\":\"{}\",\"log_size\":{},\"batch\":{},\"coset\":{},\"engine\":\"{}\",\"threads\":{},\"goldilocks_backend\":\"{}\",\"runs\":{},\"median_ms\":{:.4},\"min_ms\":{:.4},\"checked_against\":\"{}\"}}",
            args.field, args.log_size, args.batch, args.coset, args.engine, threads, backend,
            args.runs, median, times[0], check
        );
    } else {
        println!(
            "ntt {} 2^{} × {}{} engine {} threads {}: median {:.3} ms (min {:.3}, {} runs; checked: {})",
            args.field,
            args.log_size,
            args.batch,
            if args.coset { " coset" } else { "" },
            args.engine,
            threads,
            median,
            times[0],
            args.runs,
            check
        );
    }
    Ok(())
}

fn bitrev<F: Copy>(v: &mut [F]) {
    let k = v.len().trailing_zeros();
    if k == 0 {
        return;
    }
    for i in 0..v.len() {
        let j = i.reverse_bits() >> (usize::BITS - k);
        if i < j {
            v.swap(i, j);
        }
    }
}
