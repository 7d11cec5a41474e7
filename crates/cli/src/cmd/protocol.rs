//! `fastzk prove` / `fastzk verify`: the protocol comes from the file (a zkey's
//! section 1, a verification key's `protocol`), then Groth16's or Plonk's command runs.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use fastzk_formats::snarkjs::ZkeyProtocol;

use crate::cmd::groth16::{self, name, Groth16Command};
use crate::cmd::plonk::{self, PlonkCommand};

#[derive(clap::Args, Debug)]
pub struct ProveArgs {
    zkey: PathBuf,
    witness: PathBuf,
    proof: PathBuf,
    public: PathBuf,
    /// The circuit's .r1cs: check every constraint first and name the first that fails.
    #[arg(long)]
    r1cs: Option<PathBuf>,
    /// Skip the prime-order subgroup check of the zkey's points (on-curve checks stay).
    #[arg(long)]
    trusted_key: bool,
    /// Print the time of each phase to stderr.
    #[arg(long)]
    timings: bool,
}

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    verification_key: PathBuf,
    public: PathBuf,
    proof: PathBuf,
}

pub fn prove(a: &ProveArgs) -> Result<i32> {
    let protocol = fastzk_plonk::zkey_protocol(&a.zkey)?;
    match protocol {
        ZkeyProtocol::Groth16 => groth16::run(&Groth16Command::Prove {
            zkey: a.zkey.clone(),
            witness: a.witness.clone(),
            proof: a.proof.clone(),
            public: a.public.clone(),
            r1cs: a.r1cs.clone(),
            trusted_key: a.trusted_key,
            timings: a.timings,
        }),
        ZkeyProtocol::Plonk => plonk::run(&PlonkCommand::Prove {
            zkey: a.zkey.clone(),
            witness: a.witness.clone(),
            proof: a.proof.clone(),
            public: a.public.clone(),
            r1cs: a.r1cs.clone(),
            trusted_key: a.trusted_key,
            timings: a.timings,
        }),
        other => bail!(
            "{}: a {} key; fastzk proves Groth16 and Plonk",
            name(&a.zkey),
            other.name()
        ),
    }
}

pub fn verify(a: &VerifyArgs) -> Result<i32> {
    let path = &a.verification_key;
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", name(path)))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", name(path)))?;
    match v.get("protocol").and_then(|p| p.as_str()) {
        Some("groth16") => groth16::run(&Groth16Command::Verify {
            verification_key: path.clone(),
            public: a.public.clone(),
            proof: a.proof.clone(),
        }),
        Some("plonk") => plonk::verify_command(path, &a.public, &a.proof),
        Some(p) => bail!(
            "{}: protocol {p:?}; fastzk verifies groth16 and plonk",
            name(path)
        ),
        None => bail!("{}: no \"protocol\" field", name(path)),
    }
}
