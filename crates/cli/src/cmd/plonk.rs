//! `fastzk plonk …`: prove, verify, setup and export-vk with snarkjs Plonk keys.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use fastzk_formats::{
    read_public_json, sniff_curve_file, write_public_json, PointCheck, Ptau, R1csFile, Validate,
};
use fastzk_pairing::{with_pairing_curve, Fr, PairingCurve};
use fastzk_plonk::{
    prove_with, read_proof_json, read_vk_json, setup, verify, write_proof_json, write_vk_json,
    PlonkCircuit, Powers, ProveOptions, ProvingKey,
};
use rand_core::OsRng;

use crate::args::{FullproveArgs, ProveArgs, ProveJob, VerifyArgs};
use crate::cache;
use crate::cmd::groth16::{name, verdict, vk_curve};
use crate::memory;
use crate::progress::{print_timings, Progress};

#[derive(clap::Subcommand, Debug)]
pub enum PlonkCommand {
    /// Prove: read a snarkjs Plonk zkey and a circom witness, write proof.json and
    /// public.json (rapidsnark's argument order).
    Prove(ProveArgs),
    /// Compute the witness from circom's .wasm and input.json, then prove:
    /// `fullprove input.json circuit.wasm circuit.zkey proof.json public.json` (snarkjs'
    /// argument order).
    Fullprove(FullproveArgs),
    /// Verify: exit status 0 when the proof is valid, 1 when it is not, 2 on bad input.
    Verify(VerifyArgs),
    /// Setup as `snarkjs plonk setup` (byte-identical zkey): `setup circuit.r1cs
    /// pot.ptau circuit.zkey`. With --random-tau and no ptau (`setup circuit.r1cs
    /// circuit.zkey --random-tau`) τ is drawn here and discarded: NOT FOR PRODUCTION.
    Setup {
        r1cs: PathBuf,
        /// The phase-2-prepared powers of tau, or (with --random-tau) the zkey.
        ptau_or_zkey: PathBuf,
        zkey: Option<PathBuf>,
        /// Development keys without a ceremony.
        #[arg(long)]
        random_tau: bool,
        /// Also write the verification key here.
        #[arg(long)]
        vk: Option<PathBuf>,
    },
    /// Write a zkey's verification key as snarkjs' verification_key.json.
    ExportVk {
        zkey: PathBuf,
        verification_key: PathBuf,
    },
}

pub fn run(cmd: &PlonkCommand) -> Result<i32> {
    match cmd {
        PlonkCommand::Prove(a) => prove(&a.into()),
        PlonkCommand::Fullprove(a) => prove(&a.into()),
        PlonkCommand::Verify(a) => {
            let curve = vk_curve(&a.verification_key)?;
            let ok = with_pairing_curve!(curve, E => verify_files::<E>(&a.verification_key, &a.public, &a.proof))?;
            Ok(verdict(ok))
        }
        PlonkCommand::Setup {
            r1cs,
            ptau_or_zkey,
            zkey,
            random_tau,
            vk,
        } => {
            let (ptau, zkey) = match (zkey, random_tau) {
                (Some(z), false) => (Some(ptau_or_zkey.as_path()), z.as_path()),
                (None, true) => (None, ptau_or_zkey.as_path()),
                (Some(_), true) => {
                    bail!("--random-tau takes no ptau: setup <r1cs> <zkey> --random-tau")
                }
                (None, false) => {
                    bail!("setup <r1cs> <ptau> <zkey> (or <r1cs> <zkey> --random-tau)")
                }
            };
            let curve = sniff_curve_file(r1cs)?;
            with_pairing_curve!(curve, E => setup_files::<E>(r1cs, ptau, zkey, vk.as_deref()))?;
            Ok(0)
        }
        PlonkCommand::ExportVk {
            zkey,
            verification_key,
        } => {
            let curve = sniff_curve_file(zkey)?;
            with_pairing_curve!(curve, E => export_vk::<E>(zkey, verification_key))?;
            Ok(0)
        }
    }
}

/// Reads a Plonk zkey. Points are checked on the curve and in the subgroup, unless the
/// key is trusted (on-curve only) or these exact point bytes passed the full check
/// before (see [`crate::cache`]). The polynomials (coefficients and `4n` evaluations)
/// stay in the file; so do the powers of tau when `lean` (bounded memory).
fn load_zkey<E: PairingCurve>(path: &Path, trusted: bool, lean: bool) -> Result<ProvingKey<E>> {
    let mut hash = None;
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"plonk zkey points\0");
    let mut decide = |h: &blake3::Hasher| {
        let digest = h.finalize();
        let check = cache::point_check(&digest, trusted);
        hash = Some((digest, check));
        check
    };
    let pk = if lean {
        ProvingKey::<E>::open_lean_with(path, |bytes| {
            bytes.for_each(&mut |piece| {
                hasher.update_rayon(piece);
            })?;
            Ok(decide(&hasher))
        })?
    } else {
        ProvingKey::<E>::open_with(path, |parts| {
            parts.iter().for_each(|p| {
                hasher.update_rayon(p);
            });
            decide(&hasher)
        })?
    };
    if let Some((digest, PointCheck::Subgroup)) = hash {
        cache::mark_validated(&digest);
    }
    Ok(pk)
}

/// `prove` and `fullprove`: exit status 0, or an error.
pub fn prove(job: &ProveJob) -> Result<i32> {
    let curve = sniff_curve_file(&job.zkey)?;
    with_pairing_curve!(curve, E => prove_files::<E>(job))?;
    Ok(0)
}

fn prove_files<E: fastzk_runtime::LayerPairing>(p: &ProveJob) -> Result<()> {
    let context = fastzk_runtime::Context::open(p.flags.device)
        .with_context(|| format!("--device {}", p.flags.device))?;
    if p.flags.timings {
        eprintln!("device: {}", context.describe());
    }
    let plan = memory::plan_plonk::<E>(&p.zkey, p.flags.max_memory, p.flags.chunk_points)?;
    if p.flags.distributed {
        anyhow::bail!("--distributed: Plonk proves in one process so far (Groth16 only)");
    }
    let (zkey, witness, trusted) = (p.zkey.as_path(), &p.witness, p.flags.trusted_key);
    let progress = Progress::new();
    let mut phases: Vec<(&'static str, Duration)> = Vec::new();
    let start = Instant::now();
    let mut timed = |label: &'static str, f: &mut dyn FnMut()| {
        progress.step(label);
        let t = Instant::now();
        f();
        phases.push((label, t.elapsed()));
    };
    timed("msm calibration", &mut || {
        cache::load_or_measure_calibration::<E::G1>()
    });
    let mut loaded = None;
    // The witness is read or computed while the key's points are checked.
    timed(witness.phase(), &mut || {
        loaded = Some(rayon::join(
            || load_zkey::<E>(zkey, trusted, plan.is_some()),
            || witness.load::<Fr<E>>(),
        ));
    });
    let (pk, z) = loaded.expect("ran");
    let (pk, z) = (pk?, z?);
    if let Some(path) = &p.flags.r1cs {
        let mut r1cs = None;
        timed("read r1cs + check witness", &mut || {
            r1cs = Some(
                R1csFile::<Fr<E>>::open(path)
                    .map_err(anyhow::Error::from)
                    .and_then(|f| {
                        f.r1cs.check(&z).with_context(|| {
                            format!("checking {} against {}", witness.describe(), name(path))
                        })
                    }),
            );
        });
        r1cs.expect("ran")?;
    }
    let on_phase = |s: &'static str| progress.step(s);
    let opts = ProveOptions {
        on_phase: Some(&on_phase),
        chunk_points: plan,
        context: Some(&context),
        ..ProveOptions::default()
    };
    let (proof, public, t) = prove_with(&pk, &z, &opts)
        .with_context(|| format!("proving with {} and {}", name(zkey), witness.describe()))?;
    phases.extend(t.phases);
    let t_write = Instant::now();
    progress.step("write proof + public");
    write_proof_json(&p.proof, &proof)?;
    write_public_json(&p.public, &public)?;
    phases.push(("write proof + public", t_write.elapsed()));
    progress.finish();
    if p.flags.timings {
        print_timings(&phases, &t.overlapping, start.elapsed());
    }
    Ok(())
}

fn verify_files<E: PairingCurve>(vk: &Path, public: &Path, proof: &Path) -> Result<bool> {
    let vk = read_vk_json::<E>(vk)?;
    let public_values = read_public_json::<Fr<E>>(public)?;
    let proof = read_proof_json::<E>(proof)?;
    verify(&vk, &public_values, &proof).with_context(|| format!("checking {}", name(public)))
}

fn export_vk<E: PairingCurve>(zkey: &Path, vk: &Path) -> Result<()> {
    let pk = ProvingKey::<E>::open(zkey, PointCheck::Subgroup)?;
    write_vk_json(vk, &pk.vk)?;
    Ok(())
}

fn setup_files<E: PairingCurve>(
    r1cs: &Path,
    ptau: Option<&Path>,
    zkey: &Path,
    vk: Option<&Path>,
) -> Result<()> {
    let progress = Progress::new();
    progress.step("read r1cs");
    let r1cs = R1csFile::<Fr<E>>::open(r1cs)?.r1cs;
    progress.step("gates");
    let circuit = PlonkCircuit::from_r1cs(&r1cs);
    drop(r1cs);
    let log_n = circuit.log_domain();
    let powers = match ptau {
        Some(path) => {
            progress.step("read ptau");
            let ptau = Ptau::<E>::open(path, Validate::Yes)?;
            Powers::from_ptau(&ptau, log_n).with_context(|| format!("reading {}", name(path)))?
        }
        None => {
            progress.step("random powers of tau");
            eprintln!("warning: local random tau (drawn here and discarded): NOT FOR PRODUCTION");
            Powers::random(log_n, &mut OsRng)
        }
    };
    progress.step("selectors, permutation, commitments");
    let pk = setup(&circuit, &powers)?;
    progress.step("write zkey");
    pk.save(zkey)?;
    if let Some(vk) = vk {
        write_vk_json(vk, &pk.vk)?;
    }
    progress.finish();
    eprintln!(
        "{} gates ({} additions), domain 2^{log_n}, {} public",
        circuit.gates.len(),
        circuit.additions.len(),
        circuit.n_public
    );
    Ok(())
}
