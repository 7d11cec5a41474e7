//! `fastzk`: the command line. One module per command under `cmd/`; typed arguments in
//! `args.rs`; what a command shows while it runs in `progress.rs`.

mod args;
mod cache;
mod cmd;
mod progress;

use anyhow::Result;
use clap::{Parser, Subcommand};

use cmd::{bench_msm, bench_ntt, demo, groth16, plonk, protocol, r1cs, witness};

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
    Groth16(groth16::Groth16Command),
    /// Plonk with circom / snarkjs files: prove, verify, setup, export-vk.
    #[command(subcommand)]
    Plonk(plonk::PlonkCommand),
    /// Prove with whichever protocol the zkey holds (Groth16 or Plonk).
    Prove(args::ProveArgs),
    /// Compute the witness from circom's .wasm and input.json, then prove with whichever
    /// protocol the zkey holds: `fullprove input.json circuit.wasm circuit.zkey proof.json
    /// public.json` (snarkjs' order).
    Fullprove(args::FullproveArgs),
    /// Verify with whichever protocol the verification key names (exit 0/1/2).
    Verify(args::VerifyArgs),
    /// Witnesses from circom's WebAssembly witness generator, without Node.
    #[command(subcommand)]
    Witness(witness::WitnessCommand),
    /// Constraint systems: info, check, synth.
    #[command(subcommand)]
    R1cs(r1cs::R1csCommand),
    /// Exercise the field and curve arithmetic end to end and report what was checked.
    Selftest {
        /// Elements per batch step (batch inversion, batch normalisation).
        #[arg(long, default_value_t = 1 << 14)]
        batch: usize,
    },
    /// Print what this CPU offers fastzk (MULX/ADX, AVX2, AVX-512, IFMA) and what is in use.
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
        Command::Groth16(cmd) => groth16::run(&cmd),
        Command::Plonk(cmd) => plonk::run(&cmd),
        Command::Prove(args) => protocol::prove(&(&args).into()),
        Command::Fullprove(args) => protocol::prove(&(&args).into()),
        Command::Witness(cmd) => witness::run(&cmd),
        Command::Verify(args) => protocol::verify(&args),
        Command::R1cs(cmd) => r1cs::run(&cmd),
        Command::Selftest { batch } => cmd::selftest::run(batch).map(|()| 0),
        Command::Info => {
            cmd::info::run();
            Ok(0)
        }
        Command::Bench { kernel } => match kernel {
            BenchKernel::Msm(args) => bench_msm::run(&args),
            BenchKernel::Ntt(args) => bench_ntt::run(&args),
        }
        .map(|()| 0),
    }
}
