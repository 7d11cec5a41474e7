//! Corrupt Plonk `.zkey`, `proof.json` and `verification_key.json` files give errors
//! that name the problem, never panics: the shared container suite (`crates/testing`),
//! the coefficients and `4n` evaluations the prover reads later, and the JSON files.

use fastzk_formats::{FormatError, PointCheck};
use fastzk_pairing::{Bls12_381, Bn254, Fr};
use fastzk_plonk::{proof_from_json, prove, vk_from_json, Extended, ProveError, ProvingKey};
use fastzk_testing::corrupt::{rebuild, Fixture};
use fastzk_testing::fixtures::{bytes, path as data};

/// Parses a key and reads every coefficient and `4n` evaluation the prover would read.
fn parse_key<E: fastzk_pairing::PairingCurve>(b: &[u8]) -> Result<(), FormatError> {
    let pk = ProvingKey::<E>::from_bytes(b.to_vec(), "t.zkey", PointCheck::Subgroup)?;
    let n4 = 4 * pk.domain_size();
    let all = (0..5).map(Extended::Q).chain((0..3).map(Extended::Sigma));
    for which in all {
        pk.coefficients(which)?;
        pk.extended.read_all(which, n4)?;
    }
    Ok(())
}

fn parse(kind: &str, b: &[u8]) -> Result<(), FormatError> {
    match kind {
        "zkey" => parse_key::<Bn254>(b),
        _ => parse_key::<Bls12_381>(b),
    }
}

fn fixtures() -> Vec<Fixture> {
    vec![
        ("zkey", bytes("bn254/poly_plonk.zkey")),
        ("zkey-bls", bytes("bls12_381/multiplier_plonk.zkey")),
    ]
}

/// The shared container suite on the keys (`fastzk_testing::container_tests!`'s checks,
/// as trials: this binary's harness is a list of trials).
pub fn register(t: &mut fastzk_testing::Trials) {
    use fastzk_testing::corrupt as c;
    t.plain("corruption::fixtures_parse", || {
        c::fixtures_parse(&fixtures(), parse)
    });
    t.plain("corruption::every_truncation_is_an_error", || {
        c::every_truncation_is_an_error(&fixtures(), parse)
    });
    t.plain("corruption::flipped_bytes_never_panic", || {
        c::flipped_bytes_never_panic(&fixtures(), parse)
    });
    t.plain("corruption::container_errors", || {
        c::container_errors(&fixtures(), parse)
    });
    t.plain("corruption::duplicate_and_missing_sections", || {
        c::duplicate_and_missing_sections(&fixtures(), |_, _| false, parse)
    });
    t.plain("corruption::mutated_files_never_panic", || {
        c::mutated_files_never_panic(&fixtures(), parse)
    });
    t.plain("corruption::mutated_headers_never_panic", || {
        c::mutated_headers_never_panic(&fixtures(), parse)
    });
}

/// `section` with its bytes from `at` replaced by `with`.
fn patched(id: u32, at: usize, with: &[u8]) -> Vec<u8> {
    rebuild(&bytes("bn254/poly_plonk.zkey"), b"zkey", |sid, c| {
        let mut c = c.to_vec();
        if sid == id {
            c[at..at + with.len()].copy_from_slice(with);
        }
        Some(c)
    })
}

pub fn a_value_past_the_modulus_in_a_polynomial_is_refused_when_proving() {
    // Section 7 (Qm): n = 16 coefficients, then the 4n evaluations; section 12 the three
    // sigmas, each laid out alike. Poison the first evaluation, or a coefficient (the
    // last of S1: the quotient's top block reads it), and prove.
    let witness = fastzk_formats::read_wtns::<Fr<Bn254>>(data("bn254/poly.wtns")).unwrap();
    for (id, at, what) in [(7, 16 * 32, "Qm"), (7, 0, "Qm"), (12, 15 * 32, "sigma 1")] {
        let bad = patched(id, at, &[0xff; 32]);
        let pk = ProvingKey::<Bn254>::from_bytes(bad, "t.zkey", PointCheck::Subgroup).unwrap();
        let err = prove(&pk, &witness).unwrap_err();
        assert!(matches!(err, ProveError::KeyFile(_)), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains("t.zkey") && msg.contains(what) && msg.contains("modulus"),
            "{msg}"
        );
    }
}

pub fn wire_maps_and_additions_are_bounds_checked() {
    // A map entry past the wires.
    let bad = patched(4, 0, &u32::MAX.to_le_bytes());
    let msg = ProvingKey::<Bn254>::from_bytes(bad, "t.zkey", PointCheck::Subgroup)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("A map") && msg.contains("wire"), "{msg}");
    // A Groth16 key is named as such.
    let msg = ProvingKey::<Bn254>::from_bytes(
        bytes("bn254/poly_final.zkey"),
        "t.zkey",
        PointCheck::Subgroup,
    )
    .unwrap_err()
    .to_string();
    assert!(msg.contains("groth16") && msg.contains("Plonk"), "{msg}");
    // A point off the curve in the powers of tau.
    let bad = patched(14, 0, &[1u8; 64]);
    let msg = ProvingKey::<Bn254>::from_bytes(bad, "t.zkey", PointCheck::Subgroup)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("section 14"), "{msg}");
}

pub fn json_files_are_checked() {
    let proof = String::from_utf8(bytes("bn254/poly_plonk_proof.json")).unwrap();
    let vk = String::from_utf8(bytes("bn254/poly_plonk_vk.json")).unwrap();
    proof_from_json::<Bn254>(&proof, "t.json").unwrap();
    vk_from_json::<Bn254>(&vk, "t.json").unwrap();
    for (from, to, needle) in [
        ("\"eval_a\"", "\"eval_x\"", "eval_a"),
        (
            "\"protocol\": \"plonk\"",
            "\"protocol\": \"groth16\"",
            "protocol",
        ),
        ("\"curve\": \"bn128\"", "\"curve\": \"bls12381\"", "curve"),
    ] {
        let bad = proof.replacen(from, to, 1);
        let msg = proof_from_json::<Bn254>(&bad, "t.json")
            .unwrap_err()
            .to_string();
        assert!(msg.contains(needle), "{msg}");
    }
    // An evaluation at the modulus, a point off the curve.
    let r = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
    let v: serde_json::Value = serde_json::from_str(&proof).unwrap();
    let mut bad = v.clone();
    bad["eval_zw"] = serde_json::Value::String(r.into());
    assert!(proof_from_json::<Bn254>(&bad.to_string(), "t.json").is_err());
    let mut bad = v;
    bad["T2"][1] = serde_json::Value::String("5".into());
    let msg = proof_from_json::<Bn254>(&bad.to_string(), "t.json")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("T2"), "{msg}");
    // A vk whose w is not the root of its power.
    let mut bad: serde_json::Value = serde_json::from_str(&vk).unwrap();
    bad["power"] = serde_json::Value::from(5);
    let msg = vk_from_json::<Bn254>(&bad.to_string(), "t.json")
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("\"w\"") || msg.contains(": w:") || msg.contains("w:"),
        "{msg}"
    );
}
