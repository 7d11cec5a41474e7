//! Groth16 proving time: fastzk next to ark-groth16 0.5, on the same R1CS.
//!
//! For every log size in `SIZES` and curve in `CURVES`, a synthetic satisfiable instance
//! ([`fastzk_r1cs::synth`], fixed ChaCha seed) is proved by both provers, `RUNS` times,
//! interleaved (the order alternates from run to run). ark-groth16 sees the instance
//! through [`ark_circuit::R1csCircuit`], so both provers handle the same constraints, the
//! same variables and the same `2^k` evaluation domain.
//!
//! arkworks' `Groth16::prove` takes a circuit and synthesizes it first (allocating the
//! variables, building the linear combinations, inlining them and copying out the
//! matrices); fastzk's `prove` takes a key that already holds the matrices and a witness.
//! So three ark figures are measured: the full `prove`, the synthesis alone (what `prove`
//! does before the witness map, timed on its own constraint system), and
//! `create_proof_with_reduction_and_matrices` from the synthesized matrices, which is ark's
//! prover without synthesis. Setups are timed too, but are not the comparison.
//!
//! Every proof is verified (ark's with ark's verifier, fastzk's with fastzk's) and the run
//! panics if one fails.
//!
//! Environment:
//! * `SIZES`: log2 sizes, default `16 18 20` (`2^k` = constraints + public inputs + 1).
//! * `CURVES`: `bn254` (default) and/or `bls12-381`.
//! * `RUNS`: timed proofs per prover and size, default 3; `WARMUP`: untimed ones first,
//!   default 1.
//! * `SKIP_FASTZK=1` / `SKIP_ARK=1`: leave one side out.
//! * `FASTZK_SELF_CHECK=1`: let fastzk's prover verify its own proof inside the timing
//!   (its default; off here because ark-groth16's prover does not).
//! * `RAYON_NUM_THREADS`: both provers use the global rayon pool.
//!
//! Run: `cargo run --release -p fastzk-bench --bin groth16_compare`.

mod ark_circuit;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use ark_ec::pairing::Pairing;
use ark_groth16::Groth16;
use ark_relations::r1cs::{
    ConstraintMatrices, ConstraintSynthesizer, ConstraintSystem, OptimizationGoal,
};
use ark_snark::SNARK;
use ark_std::UniformRand;
use fastzk_groth16::ProveOptions;
use fastzk_pairing::PairingCurve;
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_r1cs::R1cs;
use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, SeedableRng};

use ark_circuit::R1csCircuit;

/// Seed of the synthetic instances (the log size is mixed in).
const SEED: u64 = 0x0067_726f_7468_3136; // "groth16"

struct Config {
    sizes: Vec<u32>,
    curves: Vec<Curve>,
    runs: usize,
    warmup: usize,
    fastzk: bool,
    ark: bool,
    fastzk_self_check: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Curve {
    Bn254,
    Bls12_381,
}

impl Curve {
    fn name(self) -> &'static str {
        match self {
            Curve::Bn254 => "BN254",
            Curve::Bls12_381 => "BLS12-381",
        }
    }
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).map_or(default, |v| {
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number"))
    })
}

impl Config {
    fn from_env() -> Self {
        let sizes = std::env::var("SIZES").unwrap_or_else(|_| "16 18 20".into());
        let sizes = sizes
            .split([' ', ',', ':'])
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse()
                    .ok()
                    .filter(|k| (2..=28).contains(k))
                    .unwrap_or_else(|| panic!("SIZES: {s:?} is not a log size in 2..=28"))
            })
            .collect();
        let curves = std::env::var("CURVES").unwrap_or_else(|_| "bn254".into());
        let curves = curves
            .split([' ', ','])
            .filter(|s| !s.is_empty())
            .map(
                |s| match s.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
                    "bn254" | "bn128" | "altbn128" => Curve::Bn254,
                    "bls12381" | "bls" => Curve::Bls12_381,
                    _ => panic!("CURVES: unknown curve {s:?} (bn254, bls12-381)"),
                },
            )
            .collect();
        let cfg = Self {
            sizes,
            curves,
            runs: env_usize("RUNS", 3).max(1),
            warmup: env_usize("WARMUP", 1),
            fastzk: !env_flag("SKIP_FASTZK"),
            ark: !env_flag("SKIP_ARK"),
            fastzk_self_check: env_flag("FASTZK_SELF_CHECK"),
        };
        assert!(
            cfg.fastzk || cfg.ark,
            "SKIP_FASTZK and SKIP_ARK together leave nothing to run"
        );
        cfg
    }
}

/// The median (the mean of the middle two for an even count).
fn median(xs: &[Duration]) -> Option<Duration> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort();
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    })
}

fn fmt_dur(d: Option<Duration>) -> String {
    match d {
        None => "—".into(),
        Some(d) => {
            let ms = d.as_secs_f64() * 1e3;
            if ms >= 1000.0 {
                format!("{:.3} s", ms / 1e3)
            } else if ms >= 10.0 {
                format!("{ms:.1} ms")
            } else {
                format!("{ms:.2} ms")
            }
        }
    }
}

fn fmt_ratio(num: Option<Duration>, den: Option<Duration>) -> String {
    match (num, den) {
        (Some(n), Some(d)) if !d.is_zero() => format!("{:.2}×", n.as_secs_f64() / d.as_secs_f64()),
        _ => "—".into(),
    }
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed())
}

/// What one size measured.
#[derive(Default)]
struct SizeResult {
    log_size: u32,
    constraints: usize,
    n_vars: usize,
    ark_setup: Option<Duration>,
    fastzk_setup: Option<Duration>,
    ark_prove: Vec<Duration>,
    ark_synth: Vec<Duration>,
    ark_prove_no_synth: Vec<Duration>,
    fastzk_prove: Vec<Duration>,
    /// fastzk's phases in the order the prover reports them, with every run's time.
    fastzk_phases: Vec<(&'static str, Vec<Duration>)>,
}

/// What ark-groth16's prover needs once synthesis is done.
struct ArkSynthesized<F: ark_ff::PrimeField> {
    matrices: ConstraintMatrices<F>,
    num_inputs: usize,
    num_constraints: usize,
    full_assignment: Vec<F>,
}

/// Exactly what `Groth16::prove` does before its witness map: a fresh constraint system
/// with the `Constraints` goal, `generate_constraints`, `finalize` (inlining the linear
/// combinations), `to_matrices`, and the instance and witness assignments concatenated.
fn ark_synthesize<F, AF>(r1cs: &R1cs<F>, z: &[F]) -> ArkSynthesized<AF>
where
    F: fastzk_field::PrimeField,
    AF: ark_ff::PrimeField + From<F>,
{
    let cs = ConstraintSystem::<AF>::new_ref();
    cs.set_optimization_goal(OptimizationGoal::Constraints);
    R1csCircuit::new(r1cs, z)
        .generate_constraints(cs.clone())
        .expect("ark synthesis");
    cs.finalize();
    let matrices = cs.to_matrices().expect("ark matrices");
    let num_inputs = cs.num_instance_variables();
    let num_constraints = cs.num_constraints();
    let inner = cs.borrow().expect("constraint system");
    let full_assignment = [
        inner.instance_assignment.as_slice(),
        inner.witness_assignment.as_slice(),
    ]
    .concat();
    drop(inner);
    ArkSynthesized {
        matrices,
        num_inputs,
        num_constraints,
        full_assignment,
    }
}

/// Both setups, then `warmup + runs` rounds of proving (untimed rounds first).
fn bench_size<E, AE>(cfg: &Config, log_size: u32) -> SizeResult
where
    E: PairingCurve,
    AE: Pairing,
    AE::ScalarField: From<E::Fr>,
{
    let params = SynthParams::new(log_size);
    let mut rng = ChaCha20Rng::seed_from_u64(SEED ^ u64::from(log_size));
    let ((r1cs, z), t) =
        timed(|| synthesize::<E::Fr>(&params, &mut rng).expect("synthetic instance"));
    r1cs.check(&z)
        .expect("the synthetic witness satisfies its R1CS");
    let n_public = r1cs.n_public();
    eprintln!(
        "  2^{log_size}: {} constraints, {} variables, {n_public} public, nnz A/B/C {:?} (synthesized in {})",
        r1cs.n_constraints(),
        r1cs.n_vars(),
        r1cs.nnz(),
        fmt_dur(Some(t)),
    );
    let mut res = SizeResult {
        log_size,
        constraints: r1cs.n_constraints(),
        n_vars: r1cs.n_vars(),
        ..Default::default()
    };
    let public_ours = &z[1..=n_public];
    let public_ark: Vec<AE::ScalarField> = public_ours.iter().map(|&x| x.into()).collect();

    let ark_keys = cfg.ark.then(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(SEED + 1);
        let ((pk, vk), t) = timed(|| {
            Groth16::<AE>::circuit_specific_setup(R1csCircuit::without_witness(&r1cs), &mut rng)
                .expect("ark-groth16 setup")
        });
        eprintln!("    ark-groth16 setup: {}", fmt_dur(Some(t)));
        res.ark_setup = Some(t);
        let pvk = Groth16::<AE>::process_vk(&vk).expect("ark vk");
        (pk, pvk)
    });
    let fastzk_pk = cfg.fastzk.then(|| {
        let (pk, t) =
            timed(|| fastzk_groth16::setup_random::<E>(&r1cs, &mut OsRng).expect("fastzk setup"));
        eprintln!("    fastzk setup: {}", fmt_dur(Some(t)));
        res.fastzk_setup = Some(t);
        pk
    });

    let mut ark_rng = ChaCha20Rng::seed_from_u64(SEED + 2);
    // arkworks returns its proof unchecked; fastzk's self-check (one multi-pairing) is
    // left out unless asked for. Every proof is verified below, outside the timing.
    let opts = ProveOptions::<E> {
        self_check: cfg.fastzk_self_check,
        ..Default::default()
    };
    for round in 0..cfg.warmup + cfg.runs {
        let record = round >= cfg.warmup;
        let label = if record {
            format!("run {}/{}", round - cfg.warmup + 1, cfg.runs)
        } else {
            format!("warm-up {}/{}", round + 1, cfg.warmup)
        };

        let mut ark_side = |res: &mut SizeResult| {
            let Some((pk, pvk)) = &ark_keys else { return };
            // Synthesis alone, then ark's prover from those matrices.
            let (syn, t_syn) = timed(|| ark_synthesize::<E::Fr, AE::ScalarField>(&r1cs, &z));
            let r = AE::ScalarField::rand(&mut ark_rng);
            let s = AE::ScalarField::rand(&mut ark_rng);
            let (proof, t_nosyn) = timed(|| {
                Groth16::<AE>::create_proof_with_reduction_and_matrices(
                    pk,
                    r,
                    s,
                    &syn.matrices,
                    syn.num_inputs,
                    syn.num_constraints,
                    &syn.full_assignment,
                )
                .expect("ark-groth16 prove (from matrices)")
            });
            drop(syn);
            assert!(
                Groth16::<AE>::verify_with_processed_vk(pvk, &public_ark, &proof)
                    .expect("ark verify"),
                "2^{log_size} {label}: ark-groth16 proof (from matrices) does not verify"
            );
            // The full prove, synthesis included.
            let circuit = R1csCircuit::new(&r1cs, &z);
            let (proof, t_full) = timed(|| {
                Groth16::<AE>::prove(pk, circuit, &mut ark_rng).expect("ark-groth16 prove")
            });
            assert!(
                Groth16::<AE>::verify_with_processed_vk(pvk, &public_ark, &proof)
                    .expect("ark verify"),
                "2^{log_size} {label}: ark-groth16 proof does not verify"
            );
            eprintln!(
                "    {label}: ark-groth16 prove {} (synthesis {}, prove from matrices {})",
                fmt_dur(Some(t_full)),
                fmt_dur(Some(t_syn)),
                fmt_dur(Some(t_nosyn)),
            );
            if record {
                res.ark_prove.push(t_full);
                res.ark_synth.push(t_syn);
                res.ark_prove_no_synth.push(t_nosyn);
            }
        };
        let fastzk_side = |res: &mut SizeResult| {
            let Some(pk) = &fastzk_pk else { return };
            let ((proof, timings), t) =
                timed(|| fastzk_groth16::prove_with::<E>(pk, &z, &opts).expect("fastzk prove"));
            assert!(
                fastzk_groth16::verify(&pk.vk, public_ours, &proof).expect("fastzk verify"),
                "2^{log_size} {label}: fastzk proof does not verify"
            );
            let phases: Vec<String> = timings
                .phases
                .iter()
                .map(|(name, d)| format!("{name} {}", fmt_dur(Some(*d))))
                .collect();
            eprintln!(
                "    {label}: fastzk prove {} ({})",
                fmt_dur(Some(t)),
                phases.join(", ")
            );
            if record {
                res.fastzk_prove.push(t);
                for (name, d) in timings.phases {
                    match res.fastzk_phases.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, v)) => v.push(d),
                        None => res.fastzk_phases.push((name, vec![d])),
                    }
                }
            }
        };
        // Alternate which prover goes first, so neither always meets a warm cache.
        if round % 2 == 0 {
            ark_side(&mut res);
            fastzk_side(&mut res);
        } else {
            fastzk_side(&mut res);
            ark_side(&mut res);
        }
    }
    res
}

fn print_tables(curve: Curve, results: &[SizeResult]) {
    println!();
    println!(
        "### Groth16 prove, {}: ark-groth16 0.5 vs fastzk (median)",
        curve.name()
    );
    println!();
    println!(
        "| log size | constraints | ark-groth16 prove | ark synthesis | ark prove w/o synthesis | fastzk prove | ark / fastzk | ark w/o synthesis / fastzk |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in results {
        let ark = median(&r.ark_prove);
        let nosyn = median(&r.ark_prove_no_synth);
        let ours = median(&r.fastzk_prove);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.log_size,
            r.constraints,
            fmt_dur(ark),
            fmt_dur(median(&r.ark_synth)),
            fmt_dur(nosyn),
            fmt_dur(ours),
            fmt_ratio(ark, ours),
            fmt_ratio(nosyn, ours),
        );
    }

    // fastzk's phases: the union of names, in the order first reported.
    let mut names: Vec<&'static str> = Vec::new();
    for r in results {
        for (n, _) in &r.fastzk_phases {
            if !names.contains(n) {
                names.push(n);
            }
        }
    }
    if !names.is_empty() {
        println!();
        println!("fastzk phases, {} (median of each phase):", curve.name());
        println!();
        println!("| log size | {} | total |", names.join(" | "));
        println!("|---:|{}---:|", "---:|".repeat(names.len()));
        for r in results {
            let phases: BTreeMap<&str, Option<Duration>> = r
                .fastzk_phases
                .iter()
                .map(|(n, v)| (*n, median(v)))
                .collect();
            let cells: Vec<String> = names
                .iter()
                .map(|n| fmt_dur(phases.get(n).copied().flatten()))
                .collect();
            println!(
                "| {} | {} | {} |",
                r.log_size,
                cells.join(" | "),
                fmt_dur(median(&r.fastzk_prove))
            );
        }
    }

    println!();
    println!(
        "Setups, {} (one each; not part of the comparison):",
        curve.name()
    );
    println!();
    println!("| log size | variables | ark-groth16 setup | fastzk setup_random |");
    println!("|---:|---:|---:|---:|");
    for r in results {
        println!(
            "| {} | {} | {} | {} |",
            r.log_size,
            r.n_vars,
            fmt_dur(r.ark_setup),
            fmt_dur(r.fastzk_setup)
        );
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn main() {
    let cfg = Config::from_env();
    println!(
        "groth16_compare: {} rayon threads on {} (load average {}); sizes {:?}; {} timed run(s) after {} warm-up(s){}{}",
        rayon::current_num_threads(),
        fastzk_field::cpu::model().unwrap_or_else(|| "unknown CPU".into()),
        load_average(),
        cfg.sizes,
        cfg.runs,
        cfg.warmup,
        if cfg.fastzk { "" } else { "; fastzk skipped" },
        if cfg.ark { "" } else { "; ark-groth16 skipped" },
    );
    for &curve in &cfg.curves {
        eprintln!("{}:", curve.name());
        let results: Vec<SizeResult> = cfg
            .sizes
            .iter()
            .map(|&k| match curve {
                Curve::Bn254 => bench_size::<fastzk_pairing::Bn254, ark_bn254::Bn254>(&cfg, k),
                Curve::Bls12_381 => {
                    bench_size::<fastzk_pairing::Bls12_381, ark_bls12_381::Bls12_381>(&cfg, k)
                }
            })
            .collect();
        print_tables(curve, &results);
    }
    println!();
    println!("(load average at the end: {})", load_average());
}
