//! The typed values commands take: curves from the registry (every name and alias it
//! knows), NTT fields, groups, MSM engines. clap lists the choices in `--help` and
//! rejects anything else before a command runs.

use std::path::PathBuf;
use std::sync::OnceLock;

use clap::builder::PossibleValue;
use clap::ValueEnum;
use fastzk_msm::CpuEngine;
use fastzk_pairing::CurveId;

/// A pairing curve, by any name the registry knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CurveArg(pub CurveId);

impl ValueEnum for CurveArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: OnceLock<Vec<CurveArg>> = OnceLock::new();
        ALL.get_or_init(|| CurveId::ALL.iter().map(|c| CurveArg(*c)).collect())
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()).aliases(self.0.aliases().iter().copied()))
    }
}

/// A field the NTT runs on: a registry curve's scalar field, or Goldilocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldArg {
    /// The scalar field `Fr` of a pairing curve.
    Scalar(CurveId),
    Goldilocks,
}

impl ValueEnum for FieldArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: OnceLock<Vec<FieldArg>> = OnceLock::new();
        ALL.get_or_init(|| {
            let mut v: Vec<FieldArg> = CurveId::ALL.iter().map(|c| FieldArg::Scalar(*c)).collect();
            v.push(FieldArg::Goldilocks);
            v
        })
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            FieldArg::Scalar(c) => PossibleValue::new(c.name())
                .aliases(c.aliases().iter().copied())
                .help(format!("the scalar field of {}", c.name())),
            FieldArg::Goldilocks => PossibleValue::new("goldilocks").help("2^64 − 2^32 + 1"),
        })
    }
}

/// Which group of a curve an MSM runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GroupArg {
    G1,
    G2,
    /// G1 and G2 over one scalar vector (Groth16's B query).
    Pair,
}

/// An MSM engine: a [`CpuEngine`], or the fast engine with the eight-lane flush (IFMA's,
/// else the FMA lanes') forced on (`simd`) or off (`scalar`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsmEngineArg {
    pub engine: CpuEngine,
    /// `Some(true)`: require the lane flush; `Some(false)`: forbid it.
    pub simd: Option<bool>,
}

impl ValueEnum for MsmEngineArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: OnceLock<Vec<MsmEngineArg>> = OnceLock::new();
        ALL.get_or_init(|| {
            let plain = CpuEngine::ALL
                .iter()
                .map(|&engine| MsmEngineArg { engine, simd: None });
            let fast = |simd| MsmEngineArg {
                engine: CpuEngine::Fast,
                simd: Some(simd),
            };
            plain.chain([fast(true), fast(false)]).collect()
        })
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self.simd {
            Some(true) => PossibleValue::new("simd").help("fast, with the eight-lane flush"),
            Some(false) => PossibleValue::new("scalar").help("fast, with the scalar flush"),
            None => PossibleValue::new(self.engine.name()),
        })
    }
}

/// The name a value has on the command line.
pub fn value_name<T: ValueEnum>(v: &T) -> String {
    v.to_possible_value()
        .map_or_else(String::new, |p| p.get_name().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registry_name_parses_as_a_curve_and_a_field() {
        for c in CurveId::ALL {
            for name in std::iter::once(c.name()).chain(c.aliases().iter().copied()) {
                assert_eq!(CurveArg::from_str(name, true), Ok(CurveArg(*c)));
                assert_eq!(FieldArg::from_str(name, true), Ok(FieldArg::Scalar(*c)));
            }
        }
        assert!(CurveArg::from_str("secp256k1", true).is_err());
        assert_eq!(
            FieldArg::from_str("goldilocks", true),
            Ok(FieldArg::Goldilocks)
        );
        for e in CpuEngine::ALL {
            assert_eq!(
                MsmEngineArg::from_str(e.name(), true).map(|a| a.engine),
                Ok(e)
            );
        }
        assert_eq!(
            MsmEngineArg::from_str("simd", true).map(|a| a.simd),
            Ok(Some(true))
        );
    }

    #[test]
    fn sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("4 GiB"), Ok(4 << 30));
        assert_eq!(parse_size("512mb"), Ok(512 << 20));
        assert_eq!(parse_size("1.5K"), Ok(1536));
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("2T"), Ok(2 << 40));
        for bad in ["", "G", "4X", "0", "-1G", "1e30T", "4 G B x"] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
    }
}

/// What every `prove` takes (rapidsnark's argument order).
#[derive(clap::Args, Clone, Debug)]
pub struct ProveArgs {
    pub zkey: PathBuf,
    pub witness: PathBuf,
    pub proof: PathBuf,
    pub public: PathBuf,
    #[command(flatten)]
    pub flags: ProveFlags,
}

/// What every `fullprove` takes (snarkjs' argument order): the witness is computed from
/// the circuit's WebAssembly witness generator and an input file, then proved.
#[derive(clap::Args, Clone, Debug)]
pub struct FullproveArgs {
    /// The input signals (snarkjs' input.json).
    pub input: PathBuf,
    /// circom's witness generator (`circuit_js/circuit.wasm`).
    pub wasm: PathBuf,
    pub zkey: PathBuf,
    pub proof: PathBuf,
    pub public: PathBuf,
    #[command(flatten)]
    pub flags: ProveFlags,
}

/// The options of every `prove` and `fullprove`.
#[derive(clap::Args, Clone, Debug)]
pub struct ProveFlags {
    /// The circuit's .r1cs: check every constraint first and name the first that fails.
    #[arg(long)]
    pub r1cs: Option<PathBuf>,
    /// Skip the prime-order subgroup check of the zkey's points (on-curve checks stay).
    /// Only for keys you made or trust.
    #[arg(long)]
    pub trusted_key: bool,
    /// Print the time of each phase (each round and MSM for Plonk) and the peak memory
    /// to stderr.
    #[arg(long)]
    pub timings: bool,
    /// Where the NTTs and MSMs run: cpu, cuda, opencl (the first device of that API), or
    /// auto (the first GPU found, else the CPU). Groth16: its NTTs and MSMs; Plonk: the
    /// NTTs, the quotient and the nine commitments (the evaluations and the
    /// linearisation stay on the CPU).
    #[arg(long, default_value = "cpu")]
    pub device: fastzk_gpu::DeviceChoice,
    /// Memory the proof may take: bytes, or with K, M, G or T (powers of 1024), e.g. 4G.
    /// A key that would not fit when read whole is read a chunk at a time (default:
    /// three quarters of the machine's memory); for Plonk, its powers of tau then stay in
    /// the file (its polynomials always do).
    #[arg(long, value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Read the key this many points at a time (the bounded-memory mode) whatever the
    /// budget: for tests and tuning.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub chunk_points: Option<u64>,
    /// Prove across the ranks of an MPI job (`mpirun -np N fastzk groth16 prove …
    /// --distributed`): each MSM split by ranges of bases, each rank reading only its
    /// slices of the key; rank 0 computes the quotient and writes the proof. Groth16 only;
    /// needs a fastzk built with `--features mpi`.
    #[arg(long)]
    pub distributed: bool,
    /// With --distributed: seconds a rank waits for another rank's message before it
    /// names that rank as dead or stalled and ends the job.
    #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..))]
    pub rank_timeout: u64,
}

/// `4G`, `512MiB`, `1.5 GB`, `1048576`: bytes, the units powers of 1024.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size (a number, then K, M, G or T)"))?;
    let shift = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        other => return Err(format!("unknown unit {other:?} in {text:?} (K, M, G or T)")),
    };
    let bytes = value * (1u64 << shift) as f64;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("{text:?} is out of range"));
    }
    Ok(bytes as u64)
}

/// Where a prover's witness comes from.
#[derive(Clone, Debug)]
pub enum WitnessSource {
    /// A `.wtns` file.
    File(PathBuf),
    /// Computed here from a witness generator and an input file.
    Circuit { wasm: PathBuf, input: PathBuf },
}

/// One proof to make: `prove` and `fullprove` both come to this.
#[derive(Clone, Debug)]
pub struct ProveJob {
    pub zkey: PathBuf,
    pub witness: WitnessSource,
    pub proof: PathBuf,
    pub public: PathBuf,
    pub flags: ProveFlags,
}

impl From<&ProveArgs> for ProveJob {
    fn from(a: &ProveArgs) -> Self {
        Self {
            zkey: a.zkey.clone(),
            witness: WitnessSource::File(a.witness.clone()),
            proof: a.proof.clone(),
            public: a.public.clone(),
            flags: a.flags.clone(),
        }
    }
}

impl From<&FullproveArgs> for ProveJob {
    fn from(a: &FullproveArgs) -> Self {
        Self {
            zkey: a.zkey.clone(),
            witness: WitnessSource::Circuit {
                wasm: a.wasm.clone(),
                input: a.input.clone(),
            },
            proof: a.proof.clone(),
            public: a.public.clone(),
            flags: a.flags.clone(),
        }
    }
}

/// What every `verify` takes.
#[derive(clap::Args, Clone, Debug)]
pub struct VerifyArgs {
    pub verification_key: PathBuf,
    pub public: PathBuf,
    pub proof: PathBuf,
}
