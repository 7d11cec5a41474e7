//! `fastzk prove` / `fastzk verify`: the protocol comes from the file (a zkey's
//! section 1, a verification key's `protocol`), then Groth16's or Plonk's command runs.

use anyhow::{bail, Context, Result};
use fastzk_formats::snarkjs::ZkeyProtocol;

use crate::args::{ProveJob, VerifyArgs};
use crate::cmd::groth16::{self, name, Groth16Command};
use crate::cmd::plonk::{self, PlonkCommand};

/// `prove` and `fullprove`.
pub fn prove(a: &ProveJob) -> Result<i32> {
    let protocol = fastzk_plonk::zkey_protocol(&a.zkey)?;
    match protocol {
        ZkeyProtocol::Groth16 => groth16::prove(a),
        ZkeyProtocol::Plonk => plonk::prove(a),
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
        Some("groth16") => groth16::run(&Groth16Command::Verify(a.clone())),
        Some("plonk") => plonk::run(&PlonkCommand::Verify(a.clone())),
        Some(p) => bail!(
            "{}: protocol {p:?}; fastzk verifies groth16 and plonk",
            name(path)
        ),
        None => bail!("{}: no \"protocol\" field", name(path)),
    }
}
