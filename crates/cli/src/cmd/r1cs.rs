//! `fastzk r1cs …`: inspect, check and synthesize constraint systems.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use fastzk_field::{Goldilocks, PrimeField};
use fastzk_formats::snarkjs::domain_log_size;
use fastzk_formats::{read_r1cs_header, read_wtns, sniff_curve, write_wtns, R1csFile};
use fastzk_pairing::{with_pairing_curve, Fr};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use rand_core::{OsRng, SeedableRng};

use super::groth16::name;
use crate::args::{CurveArg, FieldArg};

#[derive(clap::Subcommand, Debug)]
pub enum R1csCommand {
    /// Print a .r1cs file's sizes, curve and SpMV scheme.
    Info { r1cs: PathBuf },
    /// Check that a witness satisfies a .r1cs (names the first failing constraint).
    Check { r1cs: PathBuf, witness: PathBuf },
    /// Write a synthetic satisfiable instance and its witness (Groth16 domain 2^K, or
    /// with --plonk 2^K Plonk gates), over a curve's scalar field or, with
    /// `--field goldilocks`, over Goldilocks (for `fastzk spartan`).
    Synth {
        #[arg(long)]
        log_size: u32,
        #[arg(long, value_enum, default_value = "bn254")]
        curve: CurveArg,
        /// The field instead of a curve: `goldilocks`, or a curve's name for its scalar
        /// field.
        #[arg(long, value_enum, conflicts_with = "curve")]
        field: Option<FieldArg>,
        /// Public variables.
        #[arg(long, default_value_t = 1)]
        public: usize,
        /// Seed for a reproducible instance (default: random).
        #[arg(long)]
        seed: Option<u64>,
        /// Size for Plonk instead: one term per A, B, C row, so snarkjs' Plonk setup
        /// makes exactly 2^K gates.
        #[arg(long)]
        plonk: bool,
        r1cs: PathBuf,
        witness: PathBuf,
    },
}

pub fn run(cmd: &R1csCommand) -> Result<i32> {
    match cmd {
        R1csCommand::Info { r1cs } => {
            let bytes = read_file(r1cs)?;
            if is_goldilocks(r1cs, &bytes)? {
                r1cs_info::<Goldilocks>(r1cs, &bytes, "Goldilocks (circom: goldilocks)")?;
            } else {
                let curve = sniff_curve(&bytes, &name(r1cs))?;
                let field = format!("{} (snarkjs: {})", curve, curve.snarkjs_name());
                with_pairing_curve!(curve, E => r1cs_info::<Fr<E>>(r1cs, &bytes, &field))?;
            }
        }
        R1csCommand::Check { r1cs, witness } => {
            let bytes = read_file(r1cs)?;
            if is_goldilocks(r1cs, &bytes)? {
                r1cs_check::<Goldilocks>(r1cs, &bytes, witness)?;
            } else {
                let curve = sniff_curve(&bytes, &name(r1cs))?;
                with_pairing_curve!(curve, E => r1cs_check::<Fr<E>>(r1cs, &bytes, witness))?;
            }
        }
        R1csCommand::Synth {
            log_size,
            curve,
            public,
            seed,
            plonk,
            r1cs,
            witness,
            field,
        } => {
            let params = SynthParams {
                n_public: *public,
                ..if *plonk {
                    SynthParams::plonk(*log_size)
                } else {
                    SynthParams::new(*log_size)
                }
            };
            match field.unwrap_or(FieldArg::Scalar(curve.0)) {
                FieldArg::Goldilocks => r1cs_synth::<Goldilocks>(&params, *seed, r1cs, witness)?,
                FieldArg::Scalar(c) => {
                    with_pairing_curve!(c, E => r1cs_synth::<Fr<E>>(&params, *seed, r1cs, witness))?
                }
            }
        }
    }
    Ok(0)
}

/// Whether a `.r1cs` file's header names Goldilocks (the curves' files go through the
/// curve registry).
fn is_goldilocks(path: &Path, bytes: &[u8]) -> Result<bool> {
    Ok(read_r1cs_header(bytes, &name(path))?.prime == Goldilocks::modulus())
}

fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("reading {}", name(path)))
}

fn r1cs_info<F: PrimeField>(path: &Path, bytes: &[u8], field: &str) -> Result<()> {
    let f = R1csFile::<F>::from_bytes(bytes, &name(path))?;
    let r = &f.r1cs;
    let h = &f.header;
    let log_n = domain_log_size(r.n_constraints(), r.n_public());
    println!("file:               {}", name(path));
    println!("field:              {field}");
    println!("constraints:        {}", r.n_constraints());
    println!("wires:              {}", r.n_vars());
    println!(
        "public:             {} ({} outputs, {} inputs); private inputs {}",
        r.n_public(),
        h.n_pub_out,
        h.n_pub_in,
        h.n_prv_in
    );
    let [a, b, c] = r.nnz();
    println!("non-zeros:          A {a}, B {b}, C {c}");
    for (m, mat) in [("A", r.a()), ("B", r.b()), ("C", r.c())] {
        println!(
            "spmv scheme ({m}):    {}",
            fastzk_r1cs::SpmvScheme::choose(mat).name()
        );
    }
    println!("groth16 domain:     2^{log_n}");
    Ok(())
}

fn r1cs_check<F: PrimeField>(r1cs: &Path, bytes: &[u8], witness: &Path) -> Result<()> {
    let r = R1csFile::<F>::from_bytes(bytes, &name(r1cs))?.r1cs;
    let z = read_wtns::<F>(witness)?;
    r.check(&z)
        .with_context(|| format!("{} against {}", name(witness), name(r1cs)))?;
    println!("OK: all {} constraints are satisfied", r.n_constraints());
    Ok(())
}

fn r1cs_synth<F: PrimeField>(
    params: &SynthParams,
    seed: Option<u64>,
    r1cs_path: &Path,
    witness: &Path,
) -> Result<()> {
    let seed = seed.unwrap_or_else(|| rand_core::RngCore::next_u64(&mut OsRng));
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
    let (r1cs, z) = synthesize::<F>(params, &mut rng)?;
    R1csFile::from_r1cs(r1cs).save(r1cs_path)?;
    write_wtns(witness, &z)?;
    println!(
        "wrote {} ({} constraints, {} variables, {} public) and {}",
        name(r1cs_path),
        params.n_constraints(),
        z.len(),
        params.n_public,
        name(witness)
    );
    Ok(())
}
