//! `fastzk`: the command line.

mod bench_msm;
mod bench_ntt;
mod cache;
mod demo;
mod groth16_cmd;

use std::time::Instant;

use anyhow::{ensure, Result};
use clap::{Parser, Subcommand};
use fastzk_curve::serialize::{
    ArkCompressed, PointEncoding, SerializableCurve, SnarkjsLem, Validate,
};
use fastzk_curve::{batch_normalize, bls12_381 as bls, bn254, CurveConfig, Jacobian};
use fastzk_field::{batch_inverse, uses_adx, Field, Goldilocks, GoldilocksExt2, PrimeField};
use rand_core::OsRng;

#[derive(Parser)]
#[command(
    name = "fastzk",
    version,
    about = "Fast zero-knowledge proof generation"
)]
struct Cli {
    /// Worker threads (default: all cores).
    #[arg(long, global = true)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Groth16 end to end on a built-in synthetic circuit: synthesize, set up, prove,
    /// verify (and reject a tampered statement), with timings.
    Demo(demo::DemoArgs),
    /// Groth16 with circom / snarkjs files: prove, verify, setup, export-vk.
    #[command(subcommand)]
    Groth16(groth16_cmd::Groth16Command),
    /// Constraint systems: info, check, synth.
    #[command(subcommand)]
    R1cs(groth16_cmd::R1csCommand),
    /// Exercise the field and curve arithmetic end to end and report what was checked.
    Selftest {
        /// Elements per batch step (batch inversion, batch normalisation).
        #[arg(long, default_value_t = 1 << 14)]
        batch: usize,
    },
    /// Print what this CPU offers fastzk (MULX/ADX, AVX-512 IFMA).
    Info,
    /// Time a kernel on generated inputs (checked against a second engine at small sizes).
    Bench {
        #[command(subcommand)]
        kernel: BenchKernel,
    },
}

#[derive(Subcommand)]
enum BenchKernel {
    /// Multi-scalar multiplication.
    Msm(bench_msm::MsmBenchArgs),
    /// Number-theoretic transform.
    Ntt(bench_ntt::NttBenchArgs),
}

fn main() {
    let cli = Cli::parse();
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            2
        }
    };
    std::process::exit(code);
}

/// Runs the command; the result is the exit status.
fn run(cli: Cli) -> Result<i32> {
    if let Some(n) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| anyhow::anyhow!("--threads {n}: {e}"))?;
    }
    match cli.command {
        Command::Demo(args) => demo::run(&args).map(|()| 0),
        Command::Groth16(cmd) => groth16_cmd::run_groth16(&cmd),
        Command::R1cs(cmd) => groth16_cmd::run_r1cs(&cmd),
        Command::Selftest { batch } => selftest(batch).map(|()| 0),
        Command::Info => {
            info();
            Ok(0)
        }
        Command::Bench { kernel } => match kernel {
            BenchKernel::Msm(args) => bench_msm::run(&args),
            BenchKernel::Ntt(args) => bench_ntt::run(&args),
        }
        .map(|()| 0),
    }
}

fn info() {
    #[cfg(target_arch = "x86_64")]
    {
        let f = |b: bool| if b { "yes" } else { "no" };
        println!(
            "bmi2+adx (MULX/ADX field multiplication): {}",
            f(std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("adx"))
        );
        println!(
            "avx512ifma: {}",
            f(std::is_x86_feature_detected!("avx512ifma"))
        );
        println!("avx512vl: {}", f(std::is_x86_feature_detected!("avx512vl")));
    }
    println!(
        "field multiplication in use: {}",
        if uses_adx() {
            "MULX/ADX assembly"
        } else {
            "portable"
        }
    );
    println!(
        "threads available: {}",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
}

/// Runs `f`, printing its label, wall time and outcome.
fn step<T>(label: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let start = Instant::now();
    let out = f()?;
    println!(
        "  ok  {label:<58} {:>9.2} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(out)
}

fn field_checks<F: PrimeField>(name: &str, batch: usize) -> Result<()> {
    println!(
        "{name} ({} bits, 2-adicity {})",
        F::MODULUS_BITS,
        F::TWO_ADICITY
    );
    let rng = &mut OsRng;
    let (a, b) = (F::random(rng), F::random(rng));
    step(
        "(a·b)·b⁻¹ = a, a + b − b = a, (a+b)² = a² + 2ab + b²",
        || {
            let b_inv = b
                .inverse()
                .ok_or_else(|| anyhow::anyhow!("random b was zero"))?;
            ensure!(a * b * b_inv == a && a + b - b == a);
            ensure!((a + b).square() == a.square() + (a * b).double() + b.square());
            Ok(())
        },
    )?;
    step("√(a²)² = a², Fermat: a^(p−1) = 1", || {
        let sq = a.square();
        ensure!(sq.sqrt().map(|s| s.square()) == Some(sq));
        let p_minus_1 = (F::modulus() - 1u32).to_u64_digits();
        ensure!(a.is_zero() || a.pow(&p_minus_1) == F::ONE);
        Ok(())
    })?;
    let w = F::two_adic_root_of_unity();
    step("2-adic root of unity has order exactly 2^s", || {
        let mut x = w;
        for _ in 1..F::TWO_ADICITY {
            x = x.square();
        }
        ensure!(x == -F::ONE && x.square() == F::ONE);
        Ok(())
    })?;
    let mut xs: Vec<F> = (0..batch).map(|_| F::random(rng)).collect();
    let original = xs.clone();
    step(
        &format!("batch inversion of {batch} elements (one inversion)"),
        || {
            batch_inverse(&mut xs);
            ensure!(xs.iter().zip(&original).all(|(x, o)| (*x * *o).is_one()));
            Ok(())
        },
    )?;
    Ok(())
}

fn curve_checks<C: SerializableCurve>(batch: usize) -> Result<()> {
    println!("{}", C::NAME);
    let rng = &mut OsRng;
    let g = Jacobian::<C>::generator();
    let k = C::Scalar::random(rng);
    let kg = step("k·G by wNAF", || Ok(g.mul_wnaf(&k)))?;
    if C::glv().is_some() {
        step("k·G by GLV endomorphism equals wNAF", || {
            ensure!(g.mul_glv(&k) == Some(kg));
            Ok(())
        })?;
    }
    step("k·G + (−k)·G = O, 2·(k·G) = k·G + k·G", || {
        ensure!((kg + g.mul(&-k)).is_zero());
        ensure!(kg.double() == kg + kg);
        Ok(())
    })?;
    step("k·G on the curve and in the r-torsion subgroup", || {
        let a = kg.to_affine();
        ensure!(a.is_on_curve() && a.is_in_correct_subgroup());
        Ok(())
    })?;
    step(
        "compressed (arkworks) and snarkjs LEM encodings round-trip",
        || {
            let a = kg.to_affine();
            let compressed = ArkCompressed::encode(&a);
            ensure!(ArkCompressed::decode(&compressed, Validate::Yes)? == a);
            let lem = SnarkjsLem::encode(&a);
            ensure!(SnarkjsLem::decode(&lem, Validate::Yes)? == a);
            Ok(())
        },
    )?;
    let mut points = Vec::with_capacity(batch);
    let mut acc = kg;
    for _ in 0..batch {
        points.push(acc);
        acc = acc.add_affine(&C::generator_affine());
    }
    step(
        &format!("normalise {batch} points to affine (one inversion)"),
        || {
            let affine = batch_normalize(&points);
            ensure!(affine
                .iter()
                .zip(&points)
                .all(|(a, p)| a.to_jacobian() == *p));
            Ok(())
        },
    )?;
    Ok(())
}

/// The affine generator, for mixed additions.
trait GeneratorAffine: CurveConfig {
    fn generator_affine() -> fastzk_curve::Affine<Self> {
        fastzk_curve::Affine::generator()
    }
}
impl<C: CurveConfig> GeneratorAffine for C {}

fn selftest(batch: usize) -> Result<()> {
    let start = Instant::now();
    println!(
        "fastzk demo: field and curve arithmetic, checked as it runs (randomness from the OS)"
    );
    info();
    println!();
    field_checks::<fastzk_field::bn254::Fr>("BN254 Fr", batch)?;
    field_checks::<fastzk_field::bn254::Fq>("BN254 Fq", batch)?;
    field_checks::<fastzk_field::bls12_381::Fr>("BLS12-381 Fr", batch)?;
    field_checks::<fastzk_field::bls12_381::Fq>("BLS12-381 Fq", batch)?;
    field_checks::<Goldilocks>("Goldilocks", batch)?;
    let e = GoldilocksExt2::random(&mut OsRng);
    step("Goldilocks² : e · e⁻¹ = 1", || {
        ensure!(e.is_zero() || e * e.inverse().expect("non-zero") == GoldilocksExt2::ONE);
        Ok(())
    })?;
    println!();
    curve_checks::<bn254::G1Config>(batch)?;
    curve_checks::<bn254::G2Config>(batch / 4)?;
    curve_checks::<bls::G1Config>(batch)?;
    curve_checks::<bls::G2Config>(batch / 4)?;
    println!(
        "\nall checks passed in {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
