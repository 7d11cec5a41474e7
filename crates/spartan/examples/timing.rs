//! Times a Spartan NIZK proof on a synthetic R1CS: `cargo run --release -p fastzk-spartan
//! --example timing -- [log_size] [goldilocks|bn254]`.

use std::time::Instant;

use fastzk_field::{bn254, Goldilocks, GoldilocksExt3, NttField};
use fastzk_pcs::ExtensionOf;
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_spartan::{prove_timed, verify, Proof, SpartanParams};
use rand_chacha::rand_core::SeedableRng;

fn run<F: NttField, E: ExtensionOf<F>>(log: u32) {
    let instance = || {
        synthesize::<F>(
            &SynthParams::new(log),
            &mut rand_chacha::ChaCha20Rng::seed_from_u64(1),
        )
        .expect("synthetic instance")
    };
    let (r1cs, z) = instance();
    // The verifier gets its own copy of the circuit, so its time includes the
    // statement digest (the prover's copy has it cached).
    let (r1cs_v, _) = instance();
    let params = SpartanParams::default();
    let t = Instant::now();
    let (proof, phases): (Proof<F, E>, _) = prove_timed(&params, &r1cs, &z).expect("satisfied");
    let p = t.elapsed();
    for (name, d) in phases {
        println!("  {name:32} {:9.1} ms", d.as_secs_f64() * 1e3);
    }
    let t = Instant::now();
    verify(&params, &r1cs_v, &z[1..2], &proof).expect("verifies");
    let v = t.elapsed();
    println!(
        "2^{log}: prove {:.1} ms, verify {:.1} ms, proof {:.0} KiB",
        p.as_secs_f64() * 1e3,
        v.as_secs_f64() * 1e3,
        proof.size_bytes() as f64 / 1024.0
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let log: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(16);
    match args.next().as_deref() {
        Some("bn254") => run::<bn254::Fr, bn254::Fr>(log),
        _ => run::<Goldilocks, GoldilocksExt3>(log),
    }
}
