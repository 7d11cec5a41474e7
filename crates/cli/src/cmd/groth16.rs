//! `fastzk groth16 …`: prove, verify, setup and export-vk with circom / snarkjs files.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use fastzk_formats::{
    read_public_json, sniff_curve_file, write_public_json, PointCheck, Ptau, R1csFile, R1csView,
    Validate,
};
use fastzk_groth16::setup_ptau::setup_from_ptau_file;
use fastzk_groth16::{
    check_query_subgroups, prove_bounded, prove_with, read_proof_json, read_vk_json, read_zkey,
    setup_random_to_file, verify, write_proof_json, write_vk_json, write_zkey, Bounded,
    ProveOptions, ProvingKey, Zkey, ZkeyView,
};
use fastzk_pairing::{with_pairing_curve, CurveId, Fr, PairingCurve};
use rand_core::OsRng;

use crate::args::{FullproveArgs, ProveArgs, ProveJob, VerifyArgs};
use crate::cache;
use crate::memory;
use crate::progress::{print_timings, under, Progress};

#[derive(clap::Subcommand, Debug)]
pub enum Groth16Command {
    /// Prove: read a snarkjs zkey and a circom witness, write proof.json and public.json
    /// (rapidsnark's argument order).
    Prove(ProveArgs),
    /// Compute the witness from circom's .wasm and input.json, then prove:
    /// `fullprove input.json circuit.wasm circuit.zkey proof.json public.json` (snarkjs'
    /// argument order).
    Fullprove(FullproveArgs),
    /// Verify: exit status 0 when the proof is valid, 1 when it is not, 2 on bad input.
    Verify(VerifyArgs),
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

pub(crate) fn name(p: &Path) -> String {
    p.display().to_string()
}

/// A large input file (a key, a circuit) mapped rather than read: no copy of files
/// that run to gigabytes, and no fresh pages to hold one.
pub(crate) fn map_file(path: &Path) -> Result<memmap2::Mmap> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", name(path)))?;
    // SAFETY: the map is read-only and private to this process; a file truncated by
    // another process while we read it could fault (the price of skipping the copy).
    unsafe { memmap2::MmapOptions::new().populate().map(&file) }
        .with_context(|| format!("reading {}", name(path)))
}

/// Exit status of `verify` when the proof is invalid.
pub const INVALID_PROOF: i32 = 1;

/// Prints a verifier's verdict; the exit status (0 valid, 1 invalid).
pub(crate) fn verdict(ok: bool) -> i32 {
    if ok {
        println!("OK: the proof is valid");
        0
    } else {
        println!("INVALID: the proof does not verify");
        INVALID_PROOF
    }
}

pub fn run(cmd: &Groth16Command) -> Result<i32> {
    match cmd {
        Groth16Command::Prove(a) => prove(&a.into()),
        Groth16Command::Fullprove(a) => prove(&a.into()),
        Groth16Command::Verify(a) => {
            let curve = vk_curve(&a.verification_key)?;
            let ok = with_pairing_curve!(curve, E => verify_files::<E>(&a.verification_key, &a.public, &a.proof))?;
            Ok(verdict(ok))
        }
        Groth16Command::Setup {
            r1cs,
            zkey,
            ptau,
            vk,
        } => {
            let curve = sniff_curve_file(r1cs)?;
            with_pairing_curve!(curve, E => setup_files::<E>(r1cs, zkey, ptau.as_deref(), vk.as_deref()))?;
            Ok(0)
        }
        Groth16Command::ExportVk {
            zkey,
            verification_key,
        } => {
            let curve = sniff_curve_file(zkey)?;
            with_pairing_curve!(curve, E => export_vk::<E>(zkey, verification_key))?;
            Ok(0)
        }
    }
}

/// The curve a verification_key.json names (`"curve": "bn128"`).
pub(crate) fn vk_curve(path: &Path) -> Result<CurveId> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", name(path)))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", name(path)))?;
    match v.get("curve").and_then(|c| c.as_str()) {
        Some(c) => c
            .parse::<CurveId>()
            .with_context(|| format!("{}: field \"curve\"", name(path))),
        None => bail!("{}: no \"curve\" field", name(path)),
    }
}

/// A key whose query sections still owe their subgroup test ([`SubgroupCheck::run`]).
struct SubgroupCheck {
    file: String,
    hash: blake3::Hash,
}

impl SubgroupCheck {
    /// The test, and the key remembered as checked once it passes.
    fn run<E: PairingCurve>(&self, pk: &ProvingKey<E>) -> Result<()> {
        check_query_subgroups(pk, &self.file)?;
        cache::mark_validated(&self.hash);
        Ok(())
    }
}

/// Reads a zkey. Points are checked on the curve and in the subgroup, unless the key is
/// trusted (`--trusted-key`: on-curve only) or these exact bytes passed the full check
/// before (see [`crate::cache`]: then only coordinate ranges are checked). The query
/// sections' subgroup test is returned to be run beside the proof: it is the one part
/// of a first use that does not have to come before the proof's work, only before the
/// proof is written.
fn load_zkey<E: PairingCurve>(
    path: &Path,
    trusted: bool,
) -> Result<(ProvingKey<E>, Option<SubgroupCheck>)> {
    let bytes = map_file(path)?;
    let hash = cache::content_hash(&bytes);
    let file = name(path);
    Ok(match cache::point_check(&hash, trusted) {
        PointCheck::Subgroup => (
            Zkey::<E>::from_bytes_deferring_subgroups(&bytes, &file)?.proving_key,
            Some(SubgroupCheck { file, hash }),
        ),
        check => (
            Zkey::<E>::from_bytes_with(&bytes, &file, check)?.proving_key,
            None,
        ),
    })
}

/// `prove` and `fullprove`: exit status 0, or an error.
pub fn prove(job: &ProveJob) -> Result<i32> {
    let curve = sniff_curve_file(&job.zkey)?;
    with_pairing_curve!(curve, E => prove_files::<E>(job))?;
    Ok(0)
}

fn prove_files<E: PairingCurve>(p: &ProveJob) -> Result<()>
where
    E::G1: fastzk_gpu::DeviceCurve,
    E::G2: fastzk_gpu::DeviceCurve,
    E::Fr: fastzk_gpu::DeviceField,
{
    let offload = p
        .flags
        .device
        .open()
        .with_context(|| format!("--device {}", p.flags.device))?
        .map(|d| fastzk_gpu::groth16::DeviceOffload::new(std::sync::Arc::new(d)));
    if let (Some(o), true) = (&offload, p.flags.timings) {
        eprintln!("device: {}", o.device().info());
    }
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
    if p.flags.distributed {
        if offload.is_some() {
            bail!("--distributed runs on the CPU of each rank (no --device yet)");
        }
        progress.finish();
        return crate::distributed::prove::<E>(p);
    }
    if let memory::Plan::Bounded {
        chunk_points,
        block_entries,
    } = memory::plan::<E>(&p.zkey, p.flags.max_memory, p.flags.chunk_points)?
    {
        if offload.is_some() {
            bail!(
                "--device {}: this key is proved a chunk at a time to stay within the memory \
                 budget, which runs on the CPU only (raise --max-memory to use the device)",
                p.flags.device
            );
        }
        return prove_bounded_files::<E>(p, chunk_points, block_entries, &progress, phases, start);
    }
    let (pk, subgroup_check, z) = {
        let done = timed(p.witness.phase(), &progress);
        // The witness is read or computed while the key is read.
        let (pk, z) = rayon::join(
            || load_zkey::<E>(&p.zkey, p.flags.trusted_key),
            || p.witness.load::<Fr<E>>(),
        );
        done(&mut phases);
        let (pk, check) = pk?;
        (pk, check, z?)
    };
    let r1cs = match &p.flags.r1cs {
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
        offload: offload
            .as_ref()
            .map(|o| o as &dyn fastzk_groth16::Offload<E>),
        ..ProveOptions::default()
    };
    // A new key's subgroup test runs beside the proof (the cores' idle moments between
    // phases are its); a key that fails it gets its error and no proof.
    let (proved, checked) = rayon::join(
        || prove_with(&pk, &z, &opts),
        || {
            subgroup_check.as_ref().map(|c| {
                let t = Instant::now();
                c.run(&pk).map(|()| t.elapsed())
            })
        },
    );
    let checked = checked.transpose()?;
    let (proof, t) = proved.with_context(|| {
        format!(
            "proving with {} and {}",
            name(&p.zkey),
            p.witness.describe()
        )
    })?;
    phases.extend(t.phases);
    if let Some(d) = checked {
        // Its own wall time: it ran beside the phases above, not after them.
        phases.push(("key subgroup check (beside)", d));
    }
    let overlapping = under("msm (concurrent)", &t.overlapping);
    let done = timed("write proof + public", &progress);
    write_proof_json(&p.proof, &proof)?;
    write_public_json(&p.public, &z[1..=pk.n_public()])?;
    done(&mut phases);
    progress.finish();
    if p.flags.timings {
        print_timings(&phases, &overlapping, start.elapsed());
    }
    Ok(())
}

/// [`prove_files`] for a key larger than the memory budget: mapped without reading it,
/// hashed and proved a piece at a time, each piece's pages dropped once read; points
/// checked as they are read (and the key remembered as checked once the proof is made).
fn prove_bounded_files<E: PairingCurve>(
    p: &ProveJob,
    chunk_points: usize,
    block_entries: usize,
    progress: &Progress,
    mut phases: Vec<(&'static str, Duration)>,
    start: Instant,
) -> Result<()> {
    let file = name(&p.zkey);
    let map = memory::map_lazily(&p.zkey)?;
    let release = |piece: &[u8]| memory::release(&map, piece);
    progress.step(p.witness.phase());
    let t = Instant::now();
    let ((hash, check), z) = rayon::join(
        || {
            let hash = cache::content_hash_releasing(&map, &release);
            (hash, cache::point_check(&hash, p.flags.trusted_key))
        },
        || p.witness.load::<Fr<E>>(),
    );
    let z = z?;
    let view = ZkeyView::<E>::parse(&map, &file, check)?;
    phases.push((p.witness.phase(), t.elapsed()));
    let r1cs = match &p.flags.r1cs {
        Some(path) => Some(R1csFile::<Fr<E>>::open(path)?.r1cs),
        None => None,
    };
    let on_phase = |s: &'static str| progress.step(s);
    let opts = ProveOptions {
        r1cs: r1cs.as_ref(),
        on_phase: Some(&on_phase),
        ..ProveOptions::default()
    };
    let bounded = Bounded {
        chunk_points,
        block_entries,
        check,
        release: &release,
    };
    let (proof, t) = prove_bounded(&view, &z, &opts, &bounded).with_context(|| {
        format!(
            "proving with {} (a chunk of {chunk_points} points at a time) and {}",
            file,
            p.witness.describe()
        )
    })?;
    if check == PointCheck::Subgroup {
        cache::mark_validated(&hash);
    }
    phases.extend(t.phases);
    progress.step("write proof + public");
    let t = Instant::now();
    write_proof_json(&p.proof, &proof)?;
    write_public_json(&p.public, &z[1..=view.n_public])?;
    phases.push(("write proof + public", t.elapsed()));
    progress.finish();
    if p.flags.timings {
        eprintln!("bounded memory: chunks of {chunk_points} points");
        print_timings(&phases, &[], start.elapsed());
    }
    Ok(())
}

fn verify_files<E: PairingCurve>(vk: &Path, public: &Path, proof: &Path) -> Result<bool> {
    let vk = read_vk_json::<E>(vk)?;
    let public_values = read_public_json::<Fr<E>>(public)?;
    let proof = read_proof_json::<E>(proof)?;
    verify(&vk, &public_values, &proof).with_context(|| format!("checking {}", name(public)))
}

fn setup_files<E: PairingCurve>(
    r1cs_path: &Path,
    zkey: &Path,
    ptau: Option<&Path>,
    vk: Option<&Path>,
) -> Result<()> {
    let progress = Progress::new();
    let verifying_key = match ptau {
        Some(ptau) => {
            progress.step("read r1cs");
            let r1cs = R1csFile::<Fr<E>>::open(r1cs_path)?.r1cs;
            progress.step("read ptau + setup");
            let ptau = Ptau::<E>::open(ptau, Validate::Yes)?;
            let pk = setup_from_ptau_file(&ptau, &r1cs)?;
            // The circuit's matrices are in the key now: its memory goes before the
            // writing.
            drop(r1cs);
            progress.step("write zkey");
            write_zkey(zkey, &pk)?;
            pk.vk
        }
        None => {
            eprintln!(
                "warning: local random setup (toxic waste drawn here and discarded): \
                 NOT FOR PRODUCTION"
            );
            // The circuit is read in place and the key written as it is computed: the
            // memory of three field elements per variable, not of the key.
            let map = memory::map_lazily(r1cs_path)?;
            let file = r1cs_path.display().to_string();
            let circuit = R1csView::<Fr<E>>::parse(&map, &file)?;
            setup_random_to_file::<E>(&circuit, zkey, &mut OsRng, &mut |s| progress.step(s))?
        }
    };
    if let Some(vk) = vk {
        write_vk_json(vk, &verifying_key)?;
    }
    progress.finish();
    Ok(())
}

fn export_vk<E: PairingCurve>(zkey: &Path, vk: &Path) -> Result<()> {
    let pk = read_zkey::<E>(zkey, Validate::Yes)?;
    write_vk_json(vk, &pk.vk)?;
    Ok(())
}
