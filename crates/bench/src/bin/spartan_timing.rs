//! Times a Spartan proof on a synthetic R1CS: `cargo run --release -p fastzk-bench --bin
//! spartan_timing -- [log_size] [goldilocks|bn254] [nizk|snark]`.

use std::time::Instant;

use fastzk_field::{bn254, Goldilocks, GoldilocksExt3};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_r1cs::R1cs;
use fastzk_spartan::{
    prove_snark_timed, prove_timed, setup, verify, verify_snark, SpartanParams, Timings,
};
use fastzk_spartan::{LayerExtension, LayerField};
use rand_chacha::rand_core::SeedableRng;

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn report(log: u32, phases: Timings, prove: f64, verify: f64, bytes: usize) {
    for (name, d) in phases {
        println!("  {name:36} {:9.1} ms", ms(d));
    }
    println!(
        "2^{log}: prove {prove:.1} ms, verify {verify:.1} ms, proof {:.0} KiB",
        bytes as f64 / 1024.0
    );
}

fn run<F: LayerField, E: LayerExtension<F>>(log: u32, snark: bool) {
    let instance = || -> (R1cs<F>, Vec<F>) {
        synthesize::<F>(
            &SynthParams::new(log),
            &mut rand_chacha::ChaCha20Rng::seed_from_u64(1),
        )
        .expect("synthetic instance")
    };
    let (r1cs, z) = instance();
    let params = SpartanParams::default();
    if snark {
        let t = Instant::now();
        let pk = setup::<F, E>(&params, r1cs).expect("setup");
        println!(
            "  setup (Spark commitments)            {:9.1} ms",
            ms(t.elapsed())
        );
        let t = Instant::now();
        let (proof, phases) = prove_snark_timed::<F, E>(&params, &pk, &z).expect("satisfied");
        let p = ms(t.elapsed());
        let t = Instant::now();
        verify_snark(&params, &pk.vk, &z[1..2], &proof).expect("verifies");
        report(log, phases, p, ms(t.elapsed()), proof.size_bytes());
    } else {
        // The verifier gets its own copy of the circuit, so its time includes the
        // statement digest (the prover's copy has it cached).
        let (r1cs_v, _) = instance();
        let t = Instant::now();
        let (proof, phases) = prove_timed::<F, E>(&params, &r1cs, &z).expect("satisfied");
        let p = ms(t.elapsed());
        let t = Instant::now();
        verify(&params, &r1cs_v, &z[1..2], &proof).expect("verifies");
        report(log, phases, p, ms(t.elapsed()), proof.size_bytes());
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let log: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(16);
    let field = args.next();
    let snark = args.next().as_deref() == Some("snark");
    match field.as_deref() {
        Some("bn254") => run::<bn254::Fr, bn254::Fr>(log, snark),
        _ => run::<Goldilocks, GoldilocksExt3>(log, snark),
    }
}
