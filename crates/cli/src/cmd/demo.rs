//! `fastzk demo`: Groth16 end to end on a synthetic circuit, with checks and timings.

use anyhow::{ensure, Result};
use fastzk_field::Field;
use fastzk_formats::Validate;
use fastzk_groth16::{prove_with, setup_random, verify, ProveOptions, Zkey};
use fastzk_pairing::{with_pairing_curve, Fr, PairingCurve};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use rand_core::OsRng;

use crate::args::CurveArg;
use crate::progress::{print_timings, step, under};

#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// log2 of the Groth16 domain (constraints + public inputs + 1).
    #[arg(long, default_value_t = 16)]
    pub log_size: u32,
    #[arg(long, value_enum, default_value = "bn254")]
    pub curve: CurveArg,
    /// Public inputs.
    #[arg(long, default_value_t = 2)]
    pub public: usize,
}

pub fn run(args: &DemoArgs) -> Result<()> {
    with_pairing_curve!(args.curve.0, E => demo::<E>(args))
}

fn demo<E: PairingCurve>(args: &DemoArgs) -> Result<()> {
    println!(
        "Groth16 on {} with a synthetic circuit of 2^{} rows ({} threads)",
        E::ID,
        args.log_size,
        rayon::current_num_threads()
    );
    let params = SynthParams {
        n_public: args.public,
        ..SynthParams::new(args.log_size)
    };
    let (r1cs, z) = step(
        &format!(
            "synthesize {} constraints, {} variables",
            params.n_constraints(),
            1usize << args.log_size
        ),
        || Ok(synthesize::<Fr<E>>(&params, &mut OsRng)?),
    )?;
    step("check the witness satisfies every constraint", || {
        Ok(r1cs.check(&z)?)
    })?;
    let pk = step(
        "random setup (development only, not for production)",
        || Ok(setup_random::<E>(&r1cs, &mut OsRng)?),
    )?;
    let pk = step("write the key as a snarkjs zkey and read it back", || {
        let bytes = Zkey::new(pk.clone()).to_bytes()?;
        let back = Zkey::<E>::from_bytes(&bytes, "demo.zkey", Validate::Yes)?.proving_key;
        ensure!(back == pk, "zkey round trip changed the key");
        Ok(back)
    })?;
    let (proof, timings) = step("prove", || {
        Ok(prove_with(&pk, &z, &ProveOptions::default())?)
    })?;
    let public = &z[1..=args.public];
    step("verify (arkworks pairings)", || {
        ensure!(verify(&pk.vk, public, &proof)?, "the proof does not verify");
        Ok(())
    })?;
    step("a changed public input is rejected", || {
        let mut bad = public.to_vec();
        bad[0] += Fr::<E>::ONE;
        ensure!(!verify(&pk.vk, &bad, &proof)?, "a false statement verified");
        Ok(())
    })?;
    println!("prover phases:");
    print_timings(
        &timings.phases,
        &under("msm (concurrent)", &timings.overlapping),
        timings.total(),
    );
    Ok(())
}
