//! `fastzk witness calculate`, and the witness step of every `fullprove`: circom's
//! WebAssembly witness generator run in process (see `fastzk-witness`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use fastzk_field::PrimeField;
use fastzk_formats::{read_wtns, wtns_from_bytes};
use fastzk_witness::{parse_inputs, Witness};

use crate::args::WitnessSource;
use crate::cache;
use crate::cmd::groth16::name;

#[derive(clap::Subcommand, Debug)]
pub enum WitnessCommand {
    /// Compute a witness as `snarkjs wtns calculate` does (the same .wtns bytes):
    /// `calculate circuit.wasm input.json witness.wtns`.
    Calculate {
        wasm: PathBuf,
        input: PathBuf,
        wtns: PathBuf,
    },
}

pub fn run(cmd: &WitnessCommand) -> Result<i32> {
    match cmd {
        WitnessCommand::Calculate { wasm, input, wtns } => {
            let w = calculate(wasm, input)?;
            std::fs::write(wtns, w.to_wtns_bytes())
                .with_context(|| format!("writing {}", name(wtns)))?;
            Ok(0)
        }
    }
}

/// Runs `wasm` on the inputs in `input`; the circuit's `log` lines go to stderr.
pub fn calculate(wasm: &Path, input: &Path) -> Result<Witness> {
    let text =
        std::fs::read_to_string(input).with_context(|| format!("reading {}", name(input)))?;
    let inputs = parse_inputs(&text, &name(input))?;
    let bytes = std::fs::read(wasm).with_context(|| format!("reading {}", name(wasm)))?;
    let calc = cache::witness_calculator(&bytes).with_context(|| name(wasm))?;
    calc.calculate(&inputs, |line| eprintln!("{line}"))
        .with_context(|| {
            format!(
                "computing the witness of {} for {}",
                name(wasm),
                name(input)
            )
        })
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
