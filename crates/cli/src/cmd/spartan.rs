//! `fastzk spartan …`: Spartan + Orion over circom's `.r1cs` and `.wtns`, in Goldilocks
//! (challenges in its cubic extension) or BN254's scalar field, whichever prime the
//! circuit was compiled for.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use fastzk_field::{bn254, Goldilocks, GoldilocksExt3, PrimeField};
use fastzk_formats::{read_public_json, read_r1cs_header, read_wtns, write_public_json, R1csFile};
use fastzk_multilinear::HashKind;
use fastzk_pcs::ExtensionOf;
use fastzk_runtime::Context as LayerContext;
use fastzk_spartan::format::{
    is_key, read_key, read_proof, read_snark_proof, sniff_field, write_key, write_proof,
    write_snark_proof, ProofField,
};
use fastzk_spartan::{
    instance_shape, prove_snark_timed_on, prove_timed_on, setup, soundness, soundness_snark,
    verify, verify_snark, Soundness, SpartanError, SpartanParams,
};
use fastzk_spartan::{LayerExtension, LayerField};
use memmap2::Mmap;

use super::groth16::{map_file, name, verdict};
use crate::progress::{print_timings, Progress};

#[derive(clap::Subcommand, Debug)]
pub enum SpartanCommand {
    /// The SNARK mode's preprocessing: `setup circuit.r1cs circuit.skey` commits to the
    /// matrices (Spark), so that verifiers need the key's first hundred bytes, not the
    /// circuit.
    Setup {
        r1cs: PathBuf,
        key: PathBuf,
        /// Hash for the Merkle trees and the transcript.
        #[arg(long, value_enum, default_value = "blake3")]
        hash: HashArg,
    },
    /// Prove: `prove <circuit.r1cs|circuit.skey> witness.wtns proof.bin public.json` (a
    /// NIZK from the circuit, a SNARK from a key). The proof is zero-knowledge (masked
    /// sumchecks, hiding commitment), with randomness from the OS.
    Prove {
        /// The circuit (NIZK mode) or the key from `setup` (SNARK mode).
        r1cs: PathBuf,
        witness: PathBuf,
        proof: PathBuf,
        public: PathBuf,
        /// Hash for the Merkle trees and the transcript.
        #[arg(long, value_enum, default_value = "blake3")]
        hash: HashArg,
        /// Print each phase's time on stderr.
        #[arg(long)]
        timings: bool,
        /// Where the steps on the single-source layer run (the SpMVs and the inner
        /// sumcheck's rounds so far): cpu, cuda, opencl (the first device of that API),
        /// or auto (the first GPU found, else the CPU). The proof is the same.
        #[arg(long, default_value = "cpu")]
        device: fastzk_gpu::DeviceChoice,
    },
    /// Verify: exit status 0 when the proof is valid, 1 when it is not, 2 on bad input.
    Verify {
        /// The circuit (NIZK proof) or the key from `setup` (SNARK proof).
        r1cs: PathBuf,
        proof: PathBuf,
        public: PathBuf,
    },
    /// The soundness calculator: bits per component for a circuit (or a synthetic size)
    /// with the default parameters.
    Params {
        /// A circuit to size the instance from, or a key from `setup` (SNARK mode).
        r1cs: Option<PathBuf>,
        /// Or: 2^K constraints and variables.
        #[arg(long)]
        log_size: Option<u32>,
        /// The field, for --log-size (a circuit names its own).
        #[arg(long, value_enum, default_value = "goldilocks")]
        field: FieldArg,
        /// Queries (columns opened), to see what fewer or more would give.
        #[arg(long)]
        queries: Option<usize>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HashArg {
    Blake3,
    Sha3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FieldArg {
    Goldilocks,
    Bn254,
}

/// Runs `$body` with `$F`, `$E` bound to the base and challenge fields of `field`.
macro_rules! with_field {
    ($field:expr, $F:ident, $E:ident => $body:expr) => {
        match $field {
            FieldArg::Goldilocks => {
                type $F = Goldilocks;
                type $E = GoldilocksExt3;
                $body
            }
            FieldArg::Bn254 => {
                type $F = bn254::Fr;
                type $E = bn254::Fr;
                $body
            }
        }
    };
}

/// The field a `.r1cs` file was compiled for, and its bytes.
fn circuit_field(path: &Path) -> Result<(FieldArg, Mmap)> {
    let bytes = map_file(path)?;
    Ok((circuit_field_of(path, &bytes)?, bytes))
}

/// The field a `.r1cs` file's header names.
fn circuit_field_of(path: &Path, bytes: &[u8]) -> Result<FieldArg> {
    let header = read_r1cs_header(bytes, &name(path))?;
    if header.prime == Goldilocks::modulus() {
        Ok(FieldArg::Goldilocks)
    } else if header.prime == bn254::Fr::modulus() {
        Ok(FieldArg::Bn254)
    } else {
        bail!(
            "{}: Spartan runs over Goldilocks (circom --prime goldilocks) or BN254's scalar field (bn128); this circuit's prime is {}",
            name(path),
            header.prime
        )
    }
}

fn params_with(hash: HashArg) -> SpartanParams {
    let mut p = SpartanParams::default();
    p.pcs.hash = match hash {
        HashArg::Blake3 => HashKind::Blake3,
        HashArg::Sha3 => HashKind::Sha3_256,
    };
    p
}

/// A SNARK key's field and bytes.
fn key_field(path: &Path, bytes: &[u8]) -> Result<FieldArg> {
    match sniff_field(bytes) {
        Some(id) if id == <Goldilocks as ProofField>::ID => Ok(FieldArg::Goldilocks),
        Some(id) if id == <bn254::Fr as ProofField>::ID => Ok(FieldArg::Bn254),
        _ => bail!("{}: not a Spartan key for a field fastzk knows", name(path)),
    }
}

/// The file's bytes, and whether it is a SNARK key (else a circuit).
fn circuit_or_key(path: &Path) -> Result<(FieldArg, Mmap, bool)> {
    let bytes = map_file(path)?;
    if is_key(&bytes) {
        Ok((key_field(path, &bytes)?, bytes, true))
    } else {
        Ok((circuit_field_of(path, &bytes)?, bytes, false))
    }
}

pub fn run(cmd: &SpartanCommand) -> Result<i32> {
    match cmd {
        SpartanCommand::Setup { r1cs, key, hash } => {
            let (field, bytes) = circuit_field(r1cs)?;
            let params = params_with(*hash);
            with_field!(field, F, E => setup_files::<F, E>(&params, r1cs, &bytes, key))?;
            Ok(0)
        }
        SpartanCommand::Prove {
            r1cs,
            witness,
            proof,
            public,
            hash,
            timings,
            device,
        } => {
            let (field, bytes, key) = circuit_or_key(r1cs)?;
            let params = params_with(*hash);
            let files = Files {
                circuit: r1cs,
                witness,
                proof,
                public,
            };
            let ctx = LayerContext::open(*device).with_context(|| format!("--device {device}"))?;
            if *timings {
                eprintln!("device: {}", ctx.describe());
            }
            if key {
                with_field!(field, F, E => prove_snark_files::<F, E>(&ctx, &params, &bytes, &files, *timings))?;
            } else {
                with_field!(field, F, E => prove_files::<F, E>(&ctx, &params, &bytes, &files, *timings))?;
            }
            Ok(0)
        }
        SpartanCommand::Verify {
            r1cs,
            proof,
            public,
        } => {
            let (field, bytes, key) = circuit_or_key(r1cs)?;
            if key {
                with_field!(field, F, E => verify_snark_files::<F, E>(r1cs, &bytes, proof, public))
            } else {
                with_field!(field, F, E => verify_files::<F, E>(r1cs, &bytes, proof, public))
            }
        }
        SpartanCommand::Params {
            r1cs,
            log_size,
            field,
            queries,
        } => {
            let mut params = SpartanParams::default();
            if let Some(q) = queries {
                params.pcs.queries = *q;
            }
            // (constraints, variables with the constant one, public inputs)
            let (field, sizes) = match (r1cs, log_size) {
                (Some(path), None) => {
                    let (field, bytes, key) = circuit_or_key(path)?;
                    if key {
                        return with_field!(field, F, E => {
                            let (p, vk, _) = read_key::<F, E>(&bytes, &name(path))?;
                            params.pcs = fastzk_pcs::OrionParams { queries: params.pcs.queries, ..p.pcs };
                            let s = vk.spark.shape;
                            print_params::<F, E>(&params, (s.log_rows, s.log_cols), Some(soundness_snark::<F, E>(&params, &s)))
                        });
                    }
                    let h = read_r1cs_header(&bytes, &name(path))?;
                    let sizes = (h.n_constraints as usize, h.n_wires as usize, h.n_public());
                    (field, sizes)
                }
                (None, Some(k)) if *k <= 40 => (*field, (1usize << k, 1usize << k, 1)),
                (None, Some(k)) => bail!("--log-size {k}: at most 40"),
                _ => bail!("give either a .r1cs or --log-size"),
            };
            let (n_c, n_vars, n_pub) = sizes;
            with_field!(field, F, E => print_params::<F, E>(&params, instance_shape(&params, n_c, n_vars, n_pub, E::DEGREE), None))
        }
    }
}

/// The paths a prover reads and writes.
struct Files<'a> {
    circuit: &'a Path,
    witness: &'a Path,
    proof: &'a Path,
    public: &'a Path,
}

fn setup_files<F: ProofField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    r1cs_path: &Path,
    r1cs_bytes: &[u8],
    key_path: &Path,
) -> Result<()> {
    let start = Instant::now();
    let progress = Progress::new();
    progress.step("reading the circuit");
    let r1cs = R1csFile::<F>::from_bytes(r1cs_bytes, &name(r1cs_path))?.r1cs;
    progress.step("committing to the matrices (Spark)");
    let pk =
        setup::<F, E>(params, r1cs).with_context(|| format!("setting up {}", name(r1cs_path)))?;
    progress.finish();
    std::fs::write(key_path, write_key::<F, E>(params, &pk.vk, r1cs_bytes))
        .with_context(|| format!("writing {}", name(key_path)))?;
    eprintln!(
        "{}: Spark over 2^{} entries, set up in {:.2} s",
        name(key_path),
        pk.vk.spark.shape.log_n,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Writes the proof and the public inputs, and prints the phases when asked.
fn finish(
    progress: &Progress,
    files: &Files<'_>,
    proof_bytes: Vec<u8>,
    public: &[impl PrimeField],
    mut phases: fastzk_spartan::Timings,
    start: Instant,
    timings: bool,
) -> Result<()> {
    let t = Instant::now();
    progress.step("writing the proof");
    std::fs::write(files.proof, proof_bytes)
        .with_context(|| format!("writing {}", name(files.proof)))?;
    write_public_json(files.public, public)?;
    phases.push(("write proof + public", t.elapsed()));
    progress.finish();
    if timings {
        print_timings(&phases, &[], start.elapsed());
    }
    Ok(())
}

fn prove_files<F: ProofField + LayerField, E: LayerExtension<F>>(
    ctx: &LayerContext,
    params: &SpartanParams,
    r1cs_bytes: &[u8],
    files: &Files<'_>,
    timings: bool,
) -> Result<()> {
    let start = Instant::now();
    let progress = Progress::new();
    progress.step("reading the circuit and the witness");
    let (r1cs, z) = rayon::join(
        || R1csFile::<F>::from_bytes(r1cs_bytes, &name(files.circuit)),
        || read_wtns::<F>(files.witness),
    );
    let (r1cs, z) = (r1cs?.r1cs, z?);
    let read = start.elapsed();
    progress.step("proving (NIZK)");
    let (proof, mut phases) =
        prove_timed_on::<F, E>(ctx, params, &r1cs, &z).with_context(|| {
            format!(
                "proving {} with {}",
                name(files.circuit),
                name(files.witness)
            )
        })?;
    phases.insert(0, ("read r1cs + witness", read));
    let public = &z[1..=r1cs.n_public()];
    finish(
        &progress,
        files,
        write_proof(params, &proof),
        public,
        phases,
        start,
        timings,
    )
}

/// The SNARK mode: the key's circuit is read and its Spark tables and commitments
/// rebuilt (as `setup` made them; a key whose roots differ is refused), then proved.
fn prove_snark_files<F: ProofField + LayerField, E: LayerExtension<F>>(
    ctx: &LayerContext,
    params: &SpartanParams,
    key_bytes: &[u8],
    files: &Files<'_>,
    timings: bool,
) -> Result<()> {
    let start = Instant::now();
    let progress = Progress::new();
    progress.step("reading the key, its circuit and the witness");
    let key_name = name(files.circuit);
    let (key_params, vk, circuit) = read_key::<F, E>(key_bytes, &key_name)?;
    if key_params != *params {
        bail!("{key_name}: made with other parameters (hash, code or queries) than this proof's");
    }
    let r1cs = R1csFile::<F>::from_bytes(circuit, &format!("{key_name} (its circuit)"))?.r1cs;
    let z = read_wtns::<F>(files.witness)?;
    let read = start.elapsed();
    let t = Instant::now();
    progress.step("rebuilding the key's commitments from its circuit");
    let pk = setup::<F, E>(params, r1cs)?;
    if pk.vk != vk {
        bail!("{key_name}: its commitments are not those of the circuit it holds (a damaged or altered key)");
    }
    let rebuilt = t.elapsed();
    progress.step("proving (SNARK: Spartan, then Spark)");
    let (proof, mut phases) = prove_snark_timed_on::<F, E>(ctx, params, &pk, &z)
        .with_context(|| format!("proving {} with {}", key_name, name(files.witness)))?;
    phases.insert(0, ("read key + witness", read));
    phases.insert(1, ("Spark tables and commitments rebuilt", rebuilt));
    let public = &z[1..=pk.r1cs.n_public()];
    finish(
        &progress,
        files,
        write_snark_proof(params, &proof),
        public,
        phases,
        start,
        timings,
    )
}

/// Exit status 0 or 1 for a verifier's answer; bad input (counts, parameters) is an
/// error (status 2).
fn answer(result: Result<(), SpartanError>, proof_path: &Path) -> Result<i32> {
    match result {
        Ok(()) => Ok(verdict(true)),
        Err(e @ (SpartanError::PublicCount(..) | SpartanError::WeakParameters { .. })) => {
            Err(e).with_context(|| format!("verifying {}", name(proof_path)))
        }
        Err(e) => {
            eprintln!("{e}");
            Ok(verdict(false))
        }
    }
}

fn verify_files<F: ProofField, E: ExtensionOf<F>>(
    r1cs_path: &Path,
    r1cs_bytes: &[u8],
    proof_path: &Path,
    public_path: &Path,
) -> Result<i32> {
    let r1cs = R1csFile::<F>::from_bytes(r1cs_bytes, &name(r1cs_path))?.r1cs;
    let bytes =
        std::fs::read(proof_path).with_context(|| format!("reading {}", name(proof_path)))?;
    let (params, proof) = read_proof::<F, E>(&bytes, &name(proof_path))?;
    let public = read_public_json::<F>(public_path)?;
    answer(verify(&params, &r1cs, &public, &proof), proof_path)
}

/// The SNARK mode: the key's verifying part only (the circuit after it is not read).
fn verify_snark_files<F: ProofField, E: ExtensionOf<F>>(
    key_path: &Path,
    key_bytes: &[u8],
    proof_path: &Path,
    public_path: &Path,
) -> Result<i32> {
    let (key_params, vk, _) = read_key::<F, E>(key_bytes, &name(key_path))?;
    let bytes =
        std::fs::read(proof_path).with_context(|| format!("reading {}", name(proof_path)))?;
    let (params, proof) = read_snark_proof::<F, E>(&bytes, &name(proof_path))?;
    if key_params != params {
        eprintln!(
            "{}: made with other parameters than {}",
            name(proof_path),
            name(key_path)
        );
        return Ok(verdict(false));
    }
    let public = read_public_json::<F>(public_path)?;
    answer(verify_snark(&params, &vk, &public, &proof), proof_path)
}

/// Prints the calculator's components; `snark` is the SNARK mode's (which includes the
/// NIZK's) when the instance comes from a key.
fn print_params<F: PrimeField + fastzk_field::NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    (log_rows, log_cols): (usize, usize),
    snark: Option<Soundness>,
) -> Result<i32> {
    let s = snark.unwrap_or_else(|| soundness::<F, E>(params, log_rows, log_cols));
    let pcs = &params.pcs;
    println!(
        "Spartan + Orion, 2^{log_rows} constraints × 2^{log_cols} columns: challenges in a degree-{} extension, rate {:.4} (1/{} and {} random coefficients per row{}), {} rows per half, {} queries, {} proximity combination(s)",
        E::DEGREE,
        pcs.rate(1 << pcs.shape(log_cols - 1).1),
        1u32 << pcs.log_blowup,
        pcs.tails(),
        if pcs.hiding { ", hiding" } else { "" },
        1u32 << pcs.shape(log_cols - 1).0,
        pcs.queries,
        pcs.proximity_reps
    );
    for (part, bits) in &s.parts {
        println!("  {part:<40} {bits:>7.2} bits");
    }
    println!(
        "  {:<40} {:>7.2} bits (all of the above)",
        "statistical soundness", s.bits
    );
    println!(
        "  {:<40} {:>7.2} bits of work",
        "hash collisions (Merkle binding)", s.hash_bits
    );
    println!(
        "{}",
        if s.meets_target() {
            "meets the 128-bit target"
        } else {
            "BELOW the 128-bit target: fastzk refuses to prove or verify with these parameters"
        }
    );
    Ok(if s.meets_target() { 0 } else { 1 })
}
