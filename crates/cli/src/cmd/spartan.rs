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
use fastzk_spartan::format::{read_proof, write_proof, ProofField};
use fastzk_spartan::{instance_shape, prove_timed, soundness, verify, SpartanError, SpartanParams};

use super::groth16::{name, verdict};
use crate::progress::print_timings;

#[derive(clap::Subcommand, Debug)]
pub enum SpartanCommand {
    /// Prove: `prove circuit.r1cs witness.wtns proof.bin public.json`. The proof is
    /// zero-knowledge (masked sumchecks, hiding commitment), with randomness from the OS.
    Prove {
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
    },
    /// Verify: exit status 0 when the proof is valid, 1 when it is not, 2 on bad input.
    Verify {
        r1cs: PathBuf,
        proof: PathBuf,
        public: PathBuf,
    },
    /// The soundness calculator: bits per component for a circuit (or a synthetic size)
    /// with the default parameters.
    Params {
        /// A circuit to size the instance from.
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
fn circuit_field(path: &Path) -> Result<(FieldArg, Vec<u8>)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", name(path)))?;
    let header = read_r1cs_header(&bytes, &name(path))?;
    let field = if header.prime == Goldilocks::modulus() {
        FieldArg::Goldilocks
    } else if header.prime == bn254::Fr::modulus() {
        FieldArg::Bn254
    } else {
        bail!(
            "{}: Spartan runs over Goldilocks (circom --prime goldilocks) or BN254's scalar field (bn128); this circuit's prime is {}",
            name(path),
            header.prime
        );
    };
    Ok((field, bytes))
}

fn params_with(hash: HashArg) -> SpartanParams {
    let mut p = SpartanParams::default();
    p.pcs.hash = match hash {
        HashArg::Blake3 => HashKind::Blake3,
        HashArg::Sha3 => HashKind::Sha3_256,
    };
    p
}

pub fn run(cmd: &SpartanCommand) -> Result<i32> {
    match cmd {
        SpartanCommand::Prove {
            r1cs,
            witness,
            proof,
            public,
            hash,
            timings,
        } => {
            let (field, bytes) = circuit_field(r1cs)?;
            let params = params_with(*hash);
            with_field!(field, F, E => prove_files::<F, E>(&params, r1cs, &bytes, witness, proof, public, *timings))?;
            Ok(0)
        }
        SpartanCommand::Verify {
            r1cs,
            proof,
            public,
        } => {
            let (field, bytes) = circuit_field(r1cs)?;
            with_field!(field, F, E => verify_files::<F, E>(r1cs, &bytes, proof, public))
        }
        SpartanCommand::Params {
            r1cs,
            log_size,
            field,
            queries,
        } => {
            // (constraints, variables with the constant one, public inputs)
            let (field, sizes) = match (r1cs, log_size) {
                (Some(path), None) => {
                    let (field, bytes) = circuit_field(path)?;
                    let h = read_r1cs_header(&bytes, &name(path))?;
                    let sizes = (h.n_constraints as usize, h.n_wires as usize, h.n_public());
                    (field, sizes)
                }
                (None, Some(k)) if *k <= 40 => (*field, (1usize << k, 1usize << k, 1)),
                (None, Some(k)) => bail!("--log-size {k}: at most 40"),
                _ => bail!("give either a .r1cs or --log-size"),
            };
            let mut params = SpartanParams::default();
            if let Some(q) = queries {
                params.pcs.queries = *q;
            }
            let (n_c, n_vars, n_pub) = sizes;
            with_field!(field, F, E => print_params::<F, E>(&params, instance_shape(&params, n_c, n_vars, n_pub, E::DEGREE)))
        }
    }
}

fn prove_files<F: ProofField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    r1cs_path: &Path,
    r1cs_bytes: &[u8],
    witness: &Path,
    proof_path: &Path,
    public_path: &Path,
    timings: bool,
) -> Result<()> {
    let start = Instant::now();
    let r1cs = R1csFile::<F>::from_bytes(r1cs_bytes, &name(r1cs_path))?.r1cs;
    let z = read_wtns::<F>(witness)?;
    let read = start.elapsed();
    let (proof, mut phases) = prove_timed::<F, E>(params, &r1cs, &z)
        .with_context(|| format!("proving {} with {}", name(r1cs_path), name(witness)))?;
    let t = Instant::now();
    std::fs::write(proof_path, write_proof(params, &proof))
        .with_context(|| format!("writing {}", name(proof_path)))?;
    write_public_json(public_path, &z[1..=r1cs.n_public()])?;
    phases.insert(0, ("read r1cs + witness", read));
    phases.push(("write proof + public", t.elapsed()));
    if timings {
        print_timings(&phases, &[], start.elapsed());
    }
    Ok(())
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
    match verify(&params, &r1cs, &public, &proof) {
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

fn print_params<F: PrimeField + fastzk_field::NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    (log_rows, log_cols): (usize, usize),
) -> Result<i32> {
    let s = soundness::<F, E>(params, log_rows, log_cols);
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
