//! snarkjs' Groth16 JSON files: `proof.json` and `verification_key.json`, with the
//! conventions of [`fastzk_formats::json`] (decimal strings, affine points with `z`,
//! every point checked on the curve and in the subgroup).

use std::path::Path;

use fastzk_formats::json::{
    check_protocol_and_curve, err, get, parse_json, parse_point, point_value, read_with, to_pretty,
    write_text,
};
use fastzk_formats::snarkjs::ZkeyProtocol;
use fastzk_formats::Result;
use serde::Serialize;
use serde_json::Value;

use crate::{PairingCurve, Proof, VerifyingKey};

// ------------------------------------------------------------------------------------
// proof.json
// ------------------------------------------------------------------------------------

#[derive(Serialize)]
struct ProofJson {
    pi_a: Value,
    pi_b: Value,
    pi_c: Value,
    protocol: &'static str,
    curve: &'static str,
}

/// `proof.json` text for a proof.
pub fn proof_to_json<E: PairingCurve>(proof: &Proof<E>) -> String {
    to_pretty(&ProofJson {
        pi_a: point_value(&proof.a),
        pi_b: point_value(&proof.b),
        pi_c: point_value(&proof.c),
        protocol: ZkeyProtocol::Groth16.name(),
        curve: E::ID.snarkjs_name(),
    })
}

/// Parses `proof.json` text; `file` names it in errors.
pub fn proof_from_json<E: PairingCurve>(s: &str, file: &str) -> Result<Proof<E>> {
    let v = parse_json(s, file)?;
    check_protocol_and_curve(&v, ZkeyProtocol::Groth16, E::ID, file)?;
    Ok(Proof {
        a: parse_point::<E::G1>(get(&v, "pi_a", file)?, file, "pi_a")?,
        b: parse_point::<E::G2>(get(&v, "pi_b", file)?, file, "pi_b")?,
        c: parse_point::<E::G1>(get(&v, "pi_c", file)?, file, "pi_c")?,
    })
}

pub fn read_proof_json<E: PairingCurve>(path: impl AsRef<Path>) -> Result<Proof<E>> {
    read_with(path.as_ref(), proof_from_json)
}

pub fn write_proof_json<E: PairingCurve>(path: impl AsRef<Path>, proof: &Proof<E>) -> Result<()> {
    write_text(path.as_ref(), &proof_to_json(proof))
}

// ------------------------------------------------------------------------------------
// verification_key.json
// ------------------------------------------------------------------------------------

#[derive(Serialize)]
#[allow(non_snake_case)]
struct VkJson {
    protocol: &'static str,
    curve: &'static str,
    nPublic: usize,
    vk_alpha_1: Value,
    vk_beta_2: Value,
    vk_gamma_2: Value,
    vk_delta_2: Value,
    vk_alphabeta_12: [[[String; 2]; 3]; 2],
    IC: Vec<Value>,
}

/// `verification_key.json` text (with `vk_alphabeta_12 = e(α, β)`, which snarkjs'
/// Solidity export reads).
pub fn vk_to_json<E: PairingCurve>(vk: &VerifyingKey<E>) -> String {
    to_pretty(&VkJson {
        protocol: ZkeyProtocol::Groth16.name(),
        curve: E::ID.snarkjs_name(),
        nPublic: vk.n_public(),
        vk_alpha_1: point_value(&vk.alpha_g1),
        vk_beta_2: point_value(&vk.beta_g2),
        vk_gamma_2: point_value(&vk.gamma_g2),
        vk_delta_2: point_value(&vk.delta_g2),
        vk_alphabeta_12: E::pairing_decimal(&vk.alpha_g1, &vk.beta_g2),
        IC: vk.ic.iter().map(point_value).collect(),
    })
}

/// Parses `verification_key.json` text. `nPublic` must match the number of IC points
/// minus one; `vk_alphabeta_12` is derived data and not read.
pub fn vk_from_json<E: PairingCurve>(s: &str, file: &str) -> Result<VerifyingKey<E>> {
    let v = parse_json(s, file)?;
    check_protocol_and_curve(&v, ZkeyProtocol::Groth16, E::ID, file)?;
    let ic_v = get(&v, "IC", file)?
        .as_array()
        .ok_or_else(|| err(file, "IC", "expected an array of points"))?;
    if ic_v.is_empty() {
        return Err(err(file, "IC", "needs at least one point"));
    }
    let ic = ic_v
        .iter()
        .enumerate()
        .map(|(i, p)| parse_point::<E::G1>(p, file, &format!("IC[{i}]")))
        .collect::<Result<Vec<_>>>()?;
    if let Some(n) = v.get("nPublic") {
        if n.as_u64() != Some(ic.len() as u64 - 1) {
            return Err(err(
                file,
                "nPublic",
                format!(
                    "is {n} but IC has {} points (nPublic + 1 expected)",
                    ic.len()
                ),
            ));
        }
    }
    Ok(VerifyingKey {
        alpha_g1: parse_point::<E::G1>(get(&v, "vk_alpha_1", file)?, file, "vk_alpha_1")?,
        beta_g2: parse_point::<E::G2>(get(&v, "vk_beta_2", file)?, file, "vk_beta_2")?,
        gamma_g2: parse_point::<E::G2>(get(&v, "vk_gamma_2", file)?, file, "vk_gamma_2")?,
        delta_g2: parse_point::<E::G2>(get(&v, "vk_delta_2", file)?, file, "vk_delta_2")?,
        ic,
    })
}

pub fn read_vk_json<E: PairingCurve>(path: impl AsRef<Path>) -> Result<VerifyingKey<E>> {
    read_with(path.as_ref(), vk_from_json)
}

pub fn write_vk_json<E: PairingCurve>(path: impl AsRef<Path>, vk: &VerifyingKey<E>) -> Result<()> {
    write_text(path.as_ref(), &vk_to_json(vk))
}
