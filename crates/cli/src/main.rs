//! `fastzk`: the command line. One module per command under `cmd/`; typed arguments in
//! `args.rs`; what a command shows while it runs in `progress.rs`.

mod args;
mod cache;
mod cmd;
mod distributed;
mod memory;
mod progress;

use anyhow::Result;
use clap::{Parser, Subcommand};

use cmd::{
    bench_layer, bench_msm, bench_ntt, demo, gpu, groth16, plonk, protocol, r1cs, spartan, witness,
};

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
    /// How errors are printed on stderr: `text`, or `json` for scripts (one object:
    /// `{"error": message, "causes": [outermost first], "exit_status": 2}`).
    #[arg(long, global = true, value_enum, default_value_t = ErrorFormat::Text)]
    error_format: ErrorFormat,
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
    /// Spartan + Orion (hash-based, no trusted setup) over circom's .r1cs and .wtns in
    /// Goldilocks or BN254: prove, verify, params.
    #[command(subcommand)]
    Spartan(spartan::SpartanCommand),
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
    /// GPU tools: the static model of the kernels on an NVIDIA architecture.
    #[command(subcommand)]
    Gpu(gpu::GpuCommand),
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
    /// The single-source layer next to hand-written code (the sumcheck of a·b·c).
    Layer(bench_layer::LayerBenchArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ErrorFormat {
    Text,
    Json,
}

/// Exit status for bad input or a failed command (1 is an invalid proof).
const ERROR_STATUS: i32 = 2;

fn main() {
    quiet_on_closed_pipe();
    let cli = Cli::parse();
    let format = cli.error_format;
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{}", error_report(&e, format));
            ERROR_STATUS
        }
    };
    std::process::exit(code);
}

/// `fastzk info | head -1` ends quietly, as other Unix tools do, instead of panicking in
/// `println!` (Rust ignores SIGPIPE by default).
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called first in `main`, before any other thread exists; restores the
    // default disposition of one signal.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// An error as printed: each cause once, outermost first.
fn error_report(e: &anyhow::Error, format: ErrorFormat) -> String {
    match format {
        ErrorFormat::Text => format!("error: {e:#}"),
        ErrorFormat::Json => serde_json::json!({
            "error": format!("{e:#}"),
            "causes": e.chain().map(|c| c.to_string()).collect::<Vec<_>>(),
            "exit_status": ERROR_STATUS,
        })
        .to_string(),
    }
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
        Command::Spartan(cmd) => spartan::run(&cmd),
        Command::Prove(args) => protocol::prove(&(&args).into()),
        Command::Fullprove(args) => protocol::prove(&(&args).into()),
        Command::Witness(cmd) => witness::run(&cmd),
        Command::Verify(args) => protocol::verify(&args),
        Command::R1cs(cmd) => r1cs::run(&cmd),
        Command::Selftest { batch } => cmd::selftest::run(batch).map(|()| 0),
        Command::Gpu(c) => gpu::run(c),
        Command::Info => {
            cmd::info::run();
            Ok(0)
        }
        Command::Bench { kernel } => match kernel {
            BenchKernel::Msm(args) => bench_msm::run(&args),
            BenchKernel::Ntt(args) => bench_ntt::run(&args),
            BenchKernel::Layer(args) => bench_layer::run(&args),
        }
        .map(|()| 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn errors_print_each_cause_once_in_both_forms() {
        let e = Err::<(), _>(std::io::Error::other("file ends early"))
            .context("reading circuit.zkey")
            .unwrap_err();
        let text = error_report(&e, ErrorFormat::Text);
        assert_eq!(text, "error: reading circuit.zkey: file ends early");
        let json: serde_json::Value =
            serde_json::from_str(&error_report(&e, ErrorFormat::Json)).unwrap();
        assert_eq!(json["error"], "reading circuit.zkey: file ends early");
        assert_eq!(
            json["causes"],
            serde_json::json!(["reading circuit.zkey", "file ends early"])
        );
        assert_eq!(json["exit_status"], ERROR_STATUS);
    }
}
