//! snarkjs' Plonk JSON files: `proof.json` and `verification_key.json`, with the
//! conventions of [`fastzk_formats::json`] (decimal strings, affine points with `z`,
//! every point checked on the curve and in the subgroup, every number below its
//! modulus).

use std::path::Path;

use fastzk_formats::json::{
    check_protocol_and_curve, err, get, parse_json, parse_point, parse_scalar, point_value,
    read_with, to_pretty, write_text,
};
use fastzk_formats::snarkjs::ZkeyProtocol;
use fastzk_formats::Result;
use serde::Serialize;
use serde_json::Value;

use crate::{Fr, PairingCurve, Proof, VerifyingKey};

#[derive(Serialize)]
#[allow(non_snake_case)]
struct ProofJson {
    A: Value,
    B: Value,
    C: Value,
    Z: Value,
    T1: Value,
    T2: Value,
    T3: Value,
    Wxi: Value,
    Wxiw: Value,
    eval_a: String,
    eval_b: String,
    eval_c: String,
    eval_s1: String,
    eval_s2: String,
    eval_zw: String,
    protocol: &'static str,
    curve: &'static str,
}

/// `proof.json` text, with snarkjs' field order.
pub fn proof_to_json<E: PairingCurve>(p: &Proof<E>) -> String {
    to_pretty(&ProofJson {
        A: point_value(&p.a),
        B: point_value(&p.b),
        C: point_value(&p.c),
        Z: point_value(&p.z),
        T1: point_value(&p.t1),
        T2: point_value(&p.t2),
        T3: point_value(&p.t3),
        Wxi: point_value(&p.wxi),
        Wxiw: point_value(&p.wxiw),
        eval_a: p.eval_a.to_string(),
        eval_b: p.eval_b.to_string(),
        eval_c: p.eval_c.to_string(),
        eval_s1: p.eval_s1.to_string(),
        eval_s2: p.eval_s2.to_string(),
        eval_zw: p.eval_zw.to_string(),
        protocol: ZkeyProtocol::Plonk.name(),
        curve: E::ID.snarkjs_name(),
    })
}

/// Parses `proof.json` text; `file` names it in errors.
pub fn proof_from_json<E: PairingCurve>(s: &str, file: &str) -> Result<Proof<E>> {
    let v = parse_json(s, file)?;
    check_protocol_and_curve(&v, ZkeyProtocol::Plonk, E::ID, file)?;
    let g = |k: &str| parse_point::<E::G1>(get(&v, k, file)?, file, k);
    let f = |k: &str| parse_scalar::<Fr<E>>(get(&v, k, file)?, file, k);
    Ok(Proof {
        a: g("A")?,
        b: g("B")?,
        c: g("C")?,
        z: g("Z")?,
        t1: g("T1")?,
        t2: g("T2")?,
        t3: g("T3")?,
        wxi: g("Wxi")?,
        wxiw: g("Wxiw")?,
        eval_a: f("eval_a")?,
        eval_b: f("eval_b")?,
        eval_c: f("eval_c")?,
        eval_s1: f("eval_s1")?,
        eval_s2: f("eval_s2")?,
        eval_zw: f("eval_zw")?,
    })
}

pub fn read_proof_json<E: PairingCurve>(path: impl AsRef<Path>) -> Result<Proof<E>> {
    read_with(path.as_ref(), proof_from_json)
}

pub fn write_proof_json<E: PairingCurve>(path: impl AsRef<Path>, proof: &Proof<E>) -> Result<()> {
    write_text(path.as_ref(), &proof_to_json(proof))
}

#[derive(Serialize)]
#[allow(non_snake_case)]
struct VkJson {
    protocol: &'static str,
    curve: &'static str,
    nPublic: usize,
    power: u32,
    k1: String,
    k2: String,
    Qm: Value,
    Ql: Value,
    Qr: Value,
    Qo: Value,
    Qc: Value,
    S1: Value,
    S2: Value,
    S3: Value,
    X_2: Value,
    w: String,
}

/// `verification_key.json` text, as `snarkjs zkey export verificationkey` writes it.
pub fn vk_to_json<E: PairingCurve>(vk: &VerifyingKey<E>) -> String {
    to_pretty(&VkJson {
        protocol: ZkeyProtocol::Plonk.name(),
        curve: E::ID.snarkjs_name(),
        nPublic: vk.n_public,
        power: vk.power,
        k1: vk.k1.to_string(),
        k2: vk.k2.to_string(),
        Qm: point_value(&vk.q[0]),
        Ql: point_value(&vk.q[1]),
        Qr: point_value(&vk.q[2]),
        Qo: point_value(&vk.q[3]),
        Qc: point_value(&vk.q[4]),
        S1: point_value(&vk.s[0]),
        S2: point_value(&vk.s[1]),
        S3: point_value(&vk.s[2]),
        X_2: point_value(&vk.x_2),
        w: vk.omega().to_string(),
    })
}

/// Parses `verification_key.json` text. `w` is derived data: it must be snarkjs' root
/// for `power` when present.
pub fn vk_from_json<E: PairingCurve>(s: &str, file: &str) -> Result<VerifyingKey<E>> {
    let v = parse_json(s, file)?;
    check_protocol_and_curve(&v, ZkeyProtocol::Plonk, E::ID, file)?;
    let count = |k: &str, max: u64| -> Result<u64> {
        get(&v, k, file)?
            .as_u64()
            .filter(|&x| x <= max)
            .ok_or_else(|| err(file, k, format!("expected a whole number up to {max}")))
    };
    let n_public = count("nPublic", u32::MAX as u64)? as usize;
    // The quotient needs the 4n domain.
    let power = count(
        "power",
        <Fr<E> as fastzk_field::PrimeField>::TWO_ADICITY as u64 - 2,
    )? as u32;
    let g = |k: &str| parse_point::<E::G1>(get(&v, k, file)?, file, k);
    let f = |k: &str| parse_scalar::<Fr<E>>(get(&v, k, file)?, file, k);
    let vk = VerifyingKey {
        n_public,
        power,
        k1: f("k1")?,
        k2: f("k2")?,
        q: [g("Qm")?, g("Ql")?, g("Qr")?, g("Qo")?, g("Qc")?],
        s: [g("S1")?, g("S2")?, g("S3")?],
        x_2: parse_point::<E::G2>(get(&v, "X_2", file)?, file, "X_2")?,
    };
    if v.get("w").is_some() && f("w")? != vk.omega() {
        return Err(err(
            file,
            "w",
            format!("is not snarkjs' 2^{power}-th root of unity"),
        ));
    }
    Ok(vk)
}

pub fn read_vk_json<E: PairingCurve>(path: impl AsRef<Path>) -> Result<VerifyingKey<E>> {
    read_with(path.as_ref(), vk_from_json)
}

pub fn write_vk_json<E: PairingCurve>(path: impl AsRef<Path>, vk: &VerifyingKey<E>) -> Result<()> {
    write_text(path.as_ref(), &vk_to_json(vk))
}
