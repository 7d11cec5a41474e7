//! `fastzk witness calculate`, and the witness step of every `fullprove`: circom's
//! WebAssembly witness generator run in process (see `fastzk-witness`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use fastzk_field::PrimeField;
use fastzk_formats::{read_wtns, wtns_from_bytes};
use fastzk_witness::{parse_inputs, Witness};

use crate::args::WitnessSource;
use crate::cmd::groth16::name;
use crate::progress::print_timings;

#[derive(clap::Subcommand, Debug)]
pub enum WitnessCommand {
    /// Compute a witness as `snarkjs wtns calculate` does (the same .wtns bytes):
    /// `calculate circuit.wasm input.json witness.wtns`.
    Calculate {
        wasm: PathBuf,
        input: PathBuf,
        wtns: PathBuf,
        /// Time each phase on stderr, and say which field multiplication ran.
        #[arg(long)]
        timings: bool,
    },
}

pub fn run(cmd: &WitnessCommand) -> Result<i32> {
    match cmd {
        WitnessCommand::Calculate {
            wasm,
            input,
            wtns,
            timings,
        } => {
            let start = Instant::now();
            let (w, mut phases) = calculate_timed(wasm, input)?;
            let t = Instant::now();
            std::fs::write(wtns, w.to_wtns_bytes())
                .with_context(|| format!("writing {}", name(wtns)))?;
            phases.push(("write witness", t.elapsed()));
            if *timings {
                print_timings(&phases, &[], start.elapsed());
            }
            Ok(0)
        }
    }
}

/// Runs `wasm` on the inputs in `input`; the circuit's `log` lines go to stderr.
pub fn calculate(wasm: &Path, input: &Path) -> Result<Witness> {
    Ok(calculate_timed(wasm, input)?.0)
}

/// [`calculate`], with its phases for `--timings`.
fn calculate_timed(wasm: &Path, input: &Path) -> Result<(Witness, Vec<(&'static str, Duration)>)> {
    let t = Instant::now();
    let text =
        std::fs::read_to_string(input).with_context(|| format!("reading {}", name(input)))?;
    let inputs = parse_inputs(&text, &name(input))?;
    let bytes = std::fs::read(wasm).with_context(|| format!("reading {}", name(wasm)))?;
    generate(wasm, input, &bytes, &inputs, t)
}

/// Compiles (or loads from the cache) and runs the generator `bytes` read from `wasm`;
/// the first phase counts from `t`.
#[cfg(feature = "witness-runtime")]
fn generate(
    wasm: &Path,
    input: &Path,
    bytes: &[u8],
    inputs: &[fastzk_witness::InputSignal],
    t: Instant,
) -> Result<(Witness, Vec<(&'static str, Duration)>)> {
    let calc = crate::cache::witness_calculator(bytes).with_context(|| name(wasm))?;
    let load = if calc.uses_wide_mul() {
        "load module (64-bit field mul)"
    } else {
        "load module (circom's field mul)"
    };
    let mut phases = vec![(load, t.elapsed())];
    let t = Instant::now();
    let w = calc
        .calculate(inputs, |line| eprintln!("{line}"))
        .with_context(|| {
            format!(
                "computing the witness of {} for {}",
                name(wasm),
                name(input)
            )
        })?;
    phases.push(("calculate", t.elapsed()));
    Ok((w, phases))
}

#[cfg(not(feature = "witness-runtime"))]
fn generate(
    wasm: &Path,
    _: &Path,
    _: &[u8],
    _: &[fastzk_witness::InputSignal],
    _: Instant,
) -> Result<(Witness, Vec<(&'static str, Duration)>)> {
    anyhow::bail!(
        "{}: this fastzk was built without the WebAssembly witness runtime (the cargo \
         feature `witness-runtime`): give a witness file (.wtns) instead",
        name(wasm)
    )
}

impl WitnessSource {
    /// The witness as field elements of `F` (a generator over another prime is refused).
    pub fn load<F: PrimeField>(&self) -> Result<Vec<F>> {
        match self {
            WitnessSource::File(path) => Ok(read_wtns::<F>(path)?),
            WitnessSource::Circuit { wasm, input } => {
                let w = calculate(wasm, input)?;
                Ok(wtns_from_bytes::<F>(
                    &w.to_wtns_bytes(),
                    &format!("the witness {} computed", name(wasm)),
                )?)
            }
        }
    }

    /// The prover's first phase, as `--timings` names it.
    pub fn phase(&self) -> &'static str {
        match self {
            WitnessSource::File(_) => "read zkey + witness",
            WitnessSource::Circuit { .. } => "read zkey + compute witness",
        }
    }

    /// How errors name it.
    pub fn describe(&self) -> String {
        match self {
            WitnessSource::File(path) => name(path),
            WitnessSource::Circuit { wasm, input } => {
                format!("the witness of {} for {}", name(wasm), name(input))
            }
        }
    }
}
