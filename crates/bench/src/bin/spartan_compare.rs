//! fastzk's Spartan + Orion next to microsoft/Spartan's NIZK (the `spartan` crate,
//! curve25519 commitments, its own synthetic instance), same sizes, same process, runs
//! interleaved, medians.
//!
//! `SIZES="16 18" RUNS=3 cargo run --release -p fastzk-bench --bin spartan_compare`
//! (`MS_SPARTAN_MAX` caps the sizes microsoft/Spartan runs at; default 18.)

use std::time::{Duration, Instant};

use fastzk_field::{Goldilocks, GoldilocksExt3};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_spartan::{prove, verify, Proof, SpartanParams};
use libspartan::{Instance, NIZKGens, NIZK};
use rand_chacha::rand_core::SeedableRng;

fn env_list(name: &str, default: &str) -> Vec<u32> {
    std::env::var(name)
        .unwrap_or_else(|_| default.into())
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let sizes = env_list("SIZES", "16 18");
    let runs = env_list("RUNS", "3").first().copied().unwrap_or(3).max(1) as usize;
    let ms_max = env_list("MS_SPARTAN_MAX", "18")
        .first()
        .copied()
        .unwrap_or(18);
    println!("| log size | fastzk prove | fastzk verify | fastzk proof | microsoft/Spartan prove | its verify | its proof | prove ratio |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for log in sizes {
        let n = 1usize << log;
        let (r1cs, z) = synthesize::<Goldilocks>(
            &SynthParams::new(log),
            &mut rand_chacha::ChaCha20Rng::seed_from_u64(log as u64),
        )
        .expect("synthetic instance");
        let params = SpartanParams::default();
        let theirs = (log <= ms_max).then(|| {
            let num_inputs = 1;
            let (inst, vars, inputs) = Instance::produce_synthetic_r1cs(n, n, num_inputs);
            let gens = NIZKGens::new(n, n, num_inputs);
            (inst, vars, inputs, gens)
        });
        let (mut fp, mut fv, mut tp, mut tv) = (vec![], vec![], vec![], vec![]);
        let (mut f_size, mut t_size) = (0, 0);
        for _ in 0..runs {
            let t = Instant::now();
            let proof: Proof<Goldilocks, GoldilocksExt3> =
                prove(&params, &r1cs, &z).expect("satisfied");
            fp.push(t.elapsed());
            let t = Instant::now();
            verify(&params, &r1cs, &z[1..2], &proof).expect("verifies");
            fv.push(t.elapsed());
            f_size = proof.size_bytes();
            if let Some((inst, vars, inputs, gens)) = &theirs {
                let t = Instant::now();
                let mut tr = merlin::Transcript::new(b"compare");
                let p = NIZK::prove(inst, vars.clone(), inputs, gens, &mut tr);
                tp.push(t.elapsed());
                let t = Instant::now();
                let mut tr = merlin::Transcript::new(b"compare");
                assert!(p.verify(inst, inputs, &mut tr, gens).is_ok());
                tv.push(t.elapsed());
                t_size = bincode_len(&p);
            }
        }
        let (fp, fv) = (median(fp), median(fv));
        if theirs.is_some() {
            let (tp, tv) = (median(tp), median(tv));
            println!(
                "| {log} | {:.1} ms | {:.1} ms | {} KiB | {:.1} ms | {:.1} ms | {} KiB | {:.1}× |",
                ms(fp),
                ms(fv),
                f_size / 1024,
                ms(tp),
                ms(tv),
                t_size / 1024,
                tp.as_secs_f64() / fp.as_secs_f64()
            );
        } else {
            println!(
                "| {log} | {:.1} ms | {:.1} ms | {} KiB | — | — | — | — |",
                ms(fp),
                ms(fv),
                f_size / 1024
            );
        }
    }
}

/// The proof's serialized size, as its own benchmarks count it.
fn bincode_len<T: serde::Serialize>(p: &T) -> usize {
    bincode::serialize(p).map(|v| v.len()).unwrap_or(0)
}
