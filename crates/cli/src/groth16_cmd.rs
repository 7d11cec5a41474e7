//! `fastzk groth16 …` and `fastzk r1cs …`: the circom / snarkjs workflow.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use fastzk_formats::{
    read_public_json, read_vk_json, read_wtns, read_zkey, sniff_curve_file, write_proof_json,
    write_public_json, write_vk_json, write_wtns, write_zkey, CurveId, PointCheck, Ptau, R1csFile,
    Validate, Zkey,
};
use fastzk_groth16::{
    prove_with, setup_random, verify, Bls12_381, Bn254, Fr, PairingCurve, ProveOptions, ProvingKey,
};

use crate::cache;
use fastzk_r1cs::synth::{synthesize, SynthParams};
use indicatif::{ProgressBar, ProgressStyle};
use rand_core::{OsRng, SeedableRng};

#[derive(clap::Subcommand, Debug)]
pub enum Groth16Command {
    /// Prove: read a snarkjs zkey and a circom witness, write proof.json and public.json
    /// (rapidsnark's argument order).
    Prove {
        zkey: PathBuf,
        witness: PathBuf,
        proof: PathBuf,
        public: PathBuf,
        /// The circuit's .r1cs: check every constraint first and name the first that fails.
        #[arg(long)]
        r1cs: Option<PathBuf>,
        /// Skip the prime-order subgroup check of the zkey's points (on-curve checks
        /// stay). Only for keys you made or trust.
        #[arg(long)]
        trusted_key: bool,
        /// Print the time of each phase to stderr.
        #[arg(long)]
        timings: bool,
    },
    /// Verify: exit status 0 when the proof is valid, 1 when it is not, 2 on bad input.
    Verify {
        verification_key: PathBuf,
        public: PathBuf,
        proof: PathBuf,
    },
    /// Development setup for a .r1cs: a snarkjs-compatible zkey. Without --ptau the
    /// toxic waste is drawn here and discarded: NOT FOR PRODUCTION.
    Setup {
        r1cs: PathBuf,
        zkey: PathBuf,
        /// A phase-2-prepared powers-of-tau file (snarkjs `powersoftau prepare phase2`).
        #[arg(long)]
        ptau: Option<PathBuf>,
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

#[derive(clap::Subcommand, Debug)]
pub enum R1csCommand {
    /// Print a .r1cs file's sizes, curve and SpMV scheme.
    Info { r1cs: PathBuf },
    /// Check that a witness satisfies a .r1cs (names the first failing constraint).
    Check { r1cs: PathBuf, witness: PathBuf },
    /// Write a synthetic satisfiable instance and its witness (Groth16 domain 2^K).
    Synth {
        #[arg(long)]
        log_size: u32,
        /// bn254 | bls12-381.
        #[arg(long, default_value = "bn254")]
        curve: String,
        /// Public variables.
        #[arg(long, default_value_t = 1)]
        public: usize,
        /// Seed for a reproducible instance (default: random).
        #[arg(long)]
        seed: Option<u64>,
        r1cs: PathBuf,
        witness: PathBuf,
    },
}

/// A spinner on stderr naming the current step; hidden when stderr is not a terminal.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    pub fn new() -> Self {
        let bar = if std::io::stderr().is_terminal() {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                    .expect("static template"),
            );
            b.enable_steady_tick(Duration::from_millis(100));
            b
        } else {
            ProgressBar::hidden()
        };
        Self { bar }
    }
    pub fn step(&self, msg: &'static str) {
        self.bar.set_message(msg);
    }
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

fn name(p: &Path) -> String {
    p.display().to_string()
}

pub fn curve_from_arg(s: &str) -> Result<CurveId> {
    match s {
        "bn254" | "bn128" | "alt_bn128" => Ok(CurveId::Bn254),
        "bls12-381" | "bls12_381" | "bls12381" => Ok(CurveId::Bls12_381),
        _ => bail!("unknown curve {s:?} (bn254 | bls12-381)"),
    }
}

macro_rules! on_curve {
    ($curve:expr, $f:ident ( $($arg:expr),* )) => {
        match $curve {
            CurveId::Bn254 => $f::<Bn254>($($arg),*),
            CurveId::Bls12_381 => $f::<Bls12_381>($($arg),*),
        }
    };
}

/// Exit status of `verify` when the proof is invalid.
pub const INVALID_PROOF: i32 = 1;

pub fn run_groth16(cmd: &Groth16Command) -> Result<i32> {
    match cmd {
        Groth16Command::Prove {
            zkey,
            witness,
            proof,
            public,
            r1cs,
            trusted_key,
            timings,
        } => {
            let curve = sniff_curve_file(zkey)?;
            let paths = ProvePaths {
                zkey,
                witness,
                proof,
                public,
                r1cs: r1cs.as_deref(),
            };
            on_curve!(curve, prove_files(&paths, *trusted_key, *timings))?;
            Ok(0)
        }
        Groth16Command::Verify {
            verification_key,
            public,
            proof,
        } => {
            let curve = vk_curve(verification_key)?;
            let ok = on_curve!(curve, verify_files(verification_key, public, proof))?;
            if ok {
                println!("OK: the proof is valid");
                Ok(0)
            } else {
                println!("INVALID: the proof does not verify");
                Ok(INVALID_PROOF)
            }
        }
        Groth16Command::Setup {
            r1cs,
            zkey,
            ptau,
            vk,
        } => {
            let curve = sniff_curve_file(r1cs)?;
            on_curve!(
                curve,
                setup_files(r1cs, zkey, ptau.as_deref(), vk.as_deref())
            )?;
            Ok(0)
        }
        Groth16Command::ExportVk {
            zkey,
            verification_key,
        } => {
            let curve = sniff_curve_file(zkey)?;
            on_curve!(curve, export_vk(zkey, verification_key))?;
            Ok(0)
        }
    }
}

/// The curve a verification_key.json names (`"curve": "bn128"`).
fn vk_curve(path: &Path) -> Result<CurveId> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", name(path)))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", name(path)))?;
    match v.get("curve").and_then(|c| c.as_str()) {
        Some(c) => curve_from_arg(c).with_context(|| format!("{}: field \"curve\"", name(path))),
        None => bail!("{}: no \"curve\" field", name(path)),
    }
}

struct ProvePaths<'a> {
    zkey: &'a Path,
    witness: &'a Path,
    proof: &'a Path,
    public: &'a Path,
    r1cs: Option<&'a Path>,
}

/// Reads a zkey. Points are checked on the curve and in the subgroup, unless the key is
/// trusted (`--trusted-key`: on-curve only) or these exact bytes passed the full check
/// before (see [`crate::cache`]: then only coordinate ranges are checked).
fn load_zkey<E: PairingCurve>(path: &Path, trusted: bool) -> Result<ProvingKey<E>> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", name(path)))?;
    // SAFETY: the map is read-only and private to this call; a file truncated by another
    // process while we read it could fault (the price of skipping a 1:1 copy of keys
    // that run to gigabytes).
    let bytes = unsafe { memmap2::MmapOptions::new().populate().map(&file) }
        .with_context(|| format!("reading {}", name(path)))?;
    let hash = cache::content_hash(&bytes);
    let check = if cache::is_validated(&hash) {
        PointCheck::Prevalidated
    } else if trusted {
        PointCheck::OnCurve
    } else {
        PointCheck::Subgroup
    };
    let pk = Zkey::<E>::from_bytes_with(&bytes, &name(path), check)?.proving_key;
    if check == PointCheck::Subgroup {
        cache::mark_validated(&hash);
    }
    Ok(pk)
}

fn prove_files<E: PairingCurve>(p: &ProvePaths<'_>, trusted: bool, timings: bool) -> Result<()> {
    let progress = Progress::new();
    let mut phases: Vec<(&'static str, Duration)> = Vec::new();
    let timed = |label: &'static str, progress: &Progress| {
        progress.step(label);
        let t = Instant::now();
        move |phases: &mut Vec<(&'static str, Duration)>| phases.push((label, t.elapsed()))
    };
    let start = Instant::now();
    {
        let done = timed("msm calibration", &progress);
        cache::load_or_measure_calibration::<E::G1>();
        cache::load_or_measure_calibration::<E::G2>();
        done(&mut phases);
    }
    let (pk, z) = {
        let done = timed("read zkey + witness", &progress);
        let (pk, z) = rayon::join(
            || load_zkey::<E>(p.zkey, trusted),
            || read_wtns::<Fr<E>>(p.witness),
        );
        done(&mut phases);
        (pk?, z?)
    };
    let r1cs = match p.r1cs {
        Some(path) => {
            let done = timed("read r1cs", &progress);
            let r = R1csFile::<Fr<E>>::open(path)?.r1cs;
            done(&mut phases);
            Some(r)
        }
        None => None,
    };
    let on_phase = |s: &'static str| progress.step(s);
    let opts = ProveOptions {
        r1cs: r1cs.as_ref(),
        on_phase: Some(&on_phase),
        ..ProveOptions::default()
    };
    let (proof, t) = prove_with(&pk, &z, &opts)
        .with_context(|| format!("proving with {} and {}", name(p.zkey), name(p.witness)))?;
    phases.extend(t.phases);
    let overlapping = t.overlapping;
    let done = timed("write proof + public", &progress);
    write_proof_json(p.proof, &proof)?;
    write_public_json(p.public, &z[1..=pk.n_public()])?;
    done(&mut phases);
    progress.finish();
    if timings {
        print_timings(&phases, &overlapping, start.elapsed());
    }
    Ok(())
}

/// Prints phases in order; the concurrent MSMs' own times go under their phase.
pub fn print_timings(
    phases: &[(&'static str, Duration)],
    overlapping: &[(&'static str, Duration)],
    total: Duration,
) {
    for (label, d) in phases {
        eprintln!("  {label:<24} {:>10.2} ms", d.as_secs_f64() * 1e3);
        if label.ends_with("(concurrent)") {
            for (label, d) in overlapping {
                eprintln!(
                    "    {label:<22} {:>10.2} ms (overlapping)",
                    d.as_secs_f64() * 1e3
                );
            }
        }
    }
    eprintln!("  {:<24} {:>10.2} ms", "total", total.as_secs_f64() * 1e3);
}

fn verify_files<E: PairingCurve>(vk: &Path, public: &Path, proof: &Path) -> Result<bool> {
    let vk = read_vk_json::<E>(vk)?;
    let public_values = read_public_json::<Fr<E>>(public)?;
    let proof = fastzk_formats::read_proof_json::<E>(proof)?;
    verify(&vk, &public_values, &proof).with_context(|| format!("checking {}", name(public)))
}

fn setup_files<E: PairingCurve>(
    r1cs_path: &Path,
    zkey: &Path,
    ptau: Option<&Path>,
    vk: Option<&Path>,
) -> Result<()> {
    let progress = Progress::new();
    progress.step("read r1cs");
    let r1cs = R1csFile::<Fr<E>>::open(r1cs_path)?.r1cs;
    let pk = match ptau {
        Some(ptau) => {
            progress.step("read ptau + setup");
            let ptau = Ptau::<E>::open(ptau, Validate::Yes)?;
            ptau.groth16_setup(&r1cs)?
        }
        None => {
            progress.step("random setup");
            eprintln!(
                "warning: local random setup (toxic waste drawn here and discarded): \
                 NOT FOR PRODUCTION"
            );
            setup_random::<E>(&r1cs, &mut OsRng)?
        }
    };
    progress.step("write zkey");
    write_zkey(zkey, &pk)?;
    if let Some(vk) = vk {
        write_vk_json(vk, &pk.vk)?;
    }
    progress.finish();
    Ok(())
}

fn export_vk<E: PairingCurve>(zkey: &Path, vk: &Path) -> Result<()> {
    let pk = read_zkey::<E>(zkey, Validate::Yes)?;
    write_vk_json(vk, &pk.vk)?;
    Ok(())
}

pub fn run_r1cs(cmd: &R1csCommand) -> Result<i32> {
    match cmd {
        R1csCommand::Info { r1cs } => {
            let curve = sniff_curve_file(r1cs)?;
            on_curve!(curve, r1cs_info(r1cs))?;
        }
        R1csCommand::Check { r1cs, witness } => {
            let curve = sniff_curve_file(r1cs)?;
            on_curve!(curve, r1cs_check(r1cs, witness))?;
        }
        R1csCommand::Synth {
            log_size,
            curve,
            public,
            seed,
            r1cs,
            witness,
        } => {
            let curve = curve_from_arg(curve)?;
            on_curve!(curve, r1cs_synth(*log_size, *public, *seed, r1cs, witness))?;
        }
    }
    Ok(0)
}

fn r1cs_info<E: PairingCurve>(path: &Path) -> Result<()> {
    let f = R1csFile::<Fr<E>>::open(path)?;
    let r = &f.r1cs;
    let h = &f.header;
    let log_n = fastzk_groth16::domain_log_size(r.n_constraints(), r.n_public());
    println!("file:               {}", name(path));
    println!("curve:              {}", E::SNARKJS_NAME);
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

fn r1cs_check<E: PairingCurve>(r1cs: &Path, witness: &Path) -> Result<()> {
    let r = R1csFile::<Fr<E>>::open(r1cs)?.r1cs;
    let z = read_wtns::<Fr<E>>(witness)?;
    r.check(&z)
        .with_context(|| format!("{} against {}", name(witness), name(r1cs)))?;
    println!("OK: all {} constraints are satisfied", r.n_constraints());
    Ok(())
}

fn r1cs_synth<E: PairingCurve>(
    log_size: u32,
    n_public: usize,
    seed: Option<u64>,
    r1cs_path: &Path,
    witness: &Path,
) -> Result<()> {
    let params = SynthParams {
        n_public,
        ..SynthParams::new(log_size)
    };
    let seed = seed.unwrap_or_else(|| rand_core::RngCore::next_u64(&mut OsRng));
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
    let (r1cs, z) = synthesize::<Fr<E>>(&params, &mut rng)?;
    R1csFile::from_r1cs(r1cs).save(r1cs_path)?;
    write_wtns(witness, &z)?;
    println!(
        "wrote {} ({} constraints, {} variables, {} public) and {}",
        name(r1cs_path),
        params.n_constraints(),
        z.len(),
        n_public,
        name(witness)
    );
    Ok(())
}
