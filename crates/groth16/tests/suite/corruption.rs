//! Corrupt `.zkey`, `proof.json` and `verification_key.json` files give errors that name
//! the problem, never panics: the shared container suite (`crates/testing`) and the
//! Groth16 key's own checks (header, points, subgroup, coefficients).

use fastzk_curve::serialize::{PointEncoding, SnarkjsLem};
use fastzk_curve::{bn254 as bn_curve, Affine};
use fastzk_field::{bn254, Field};
use fastzk_formats::{ErrorKind, FormatError, Validate};
use fastzk_groth16::{check_query_subgroups, proof_from_json, vk_from_json, Zkey};
use fastzk_pairing::{Bls12_381, Bn254};
use fastzk_testing::corrupt::{expect_err, rebuild, Fixture};
use fastzk_testing::fixtures::{bytes, text as json};

const ZKEY: &str = "bn254/poly_final.zkey";

fn parse(kind: &str, b: &[u8]) -> Result<(), FormatError> {
    match kind {
        "zkey" => Zkey::<Bn254>::from_bytes(b, "t.zkey", Validate::Yes).map(drop),
        _ => Zkey::<Bls12_381>::from_bytes(b, "t.zkey", Validate::Yes).map(drop),
    }
}

fn fixtures() -> Vec<Fixture> {
    vec![
        ("zkey", bytes(ZKEY)),
        ("zkey-bls", bytes("bls12_381/multiplier_final.zkey")),
    ]
}

fastzk_testing::container_tests!(fixtures(), parse, optional: |_, _| false);

fn json_err<T: std::fmt::Debug>(r: Result<T, FormatError>, needle: &str) {
    let msg = r.expect_err(needle).to_string();
    assert!(msg.contains(needle), "{msg:?} should mention {needle:?}");
    assert!(msg.starts_with("t.json"), "{msg:?}");
}

// ------------------------------------------------------------------------------------
// zkey
// ------------------------------------------------------------------------------------

fn zkey_with(edit: impl FnMut(u32, &[u8]) -> Option<Vec<u8>>) -> Vec<u8> {
    rebuild(&bytes(ZKEY), b"zkey", edit)
}

/// Section 2 offsets: n8q(4) q(32) n8r(4) r(32) nVars nPublic domainSize, then points.
const POINTS_AT: usize = 4 + 32 + 4 + 32 + 12;

#[test]
fn zkey_header_errors() {
    let e = expect_err(
        parse(
            "zkey",
            &zkey_with(|id, c| {
                Some(if id == 1 {
                    2u32.to_le_bytes().to_vec()
                } else {
                    c.to_vec()
                })
            }),
        ),
        "protocol 2 (plonk)",
    );
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
    let set = |off: usize, v: u32| {
        zkey_with(move |id, c| {
            let mut c = c.to_vec();
            if id == 2 {
                c[off..off + 4].copy_from_slice(&v.to_le_bytes());
            }
            Some(c)
        })
    };
    expect_err(parse("zkey", &set(72 + 8, 12)), "not a power of two");
    expect_err(parse("zkey", &set(72, 1)), "do not fit");
    // More variables than the A section holds.
    expect_err(parse("zkey", &set(72, 9)), "section 5 (A)");
    expect_err(parse("zkey", &set(72 + 4, 3)), "section 3 (IC)");
    // Huge counts are refused by the size checks before anything is allocated for them.
    expect_err(parse("zkey", &set(72 + 8, 1 << 28)), "section 9 (H)");
    expect_err(parse("zkey", &set(72, u32::MAX)), "section 5 (A)");
    // Wrong q.
    let m = zkey_with(|id, c| {
        let mut c = c.to_vec();
        if id == 2 {
            c[4] ^= 1;
        }
        Some(c)
    });
    expect_err(parse("zkey", &m), "unknown prime field");
    // A point section one point short.
    let m = zkey_with(|id, c| {
        Some(if id == 5 {
            c[..c.len() - 64].to_vec()
        } else {
            c.to_vec()
        })
    });
    expect_err(parse("zkey", &m), "section 5 (A)");
}

#[test]
fn zkey_point_errors() {
    // Off-curve: change alpha1's x (Montgomery bytes, stays below q).
    let m = zkey_with(|id, c| {
        let mut c = c.to_vec();
        if id == 2 {
            c[POINTS_AT] ^= 1;
        }
        Some(c)
    });
    expect_err(parse("zkey", &m), "not on the curve");
    // Off-curve point in the H section names its index.
    let m = zkey_with(|id, c| {
        let mut c = c.to_vec();
        if id == 9 {
            c[3 * 64] ^= 1;
        }
        Some(c)
    });
    let e = expect_err(parse("zkey", &m), "section 9 (H)");
    assert_eq!(e.index, Some(3));
    // A coordinate ≥ q.
    let m = zkey_with(|id, c| {
        let mut c = c.to_vec();
        if id == 6 {
            c[64..96].fill(0xff);
        }
        Some(c)
    });
    let e = expect_err(parse("zkey", &m), "section 6 (B1)");
    assert_eq!(e.index, Some(1));
}

/// A point on `C`'s curve outside the order-r subgroup.
fn non_subgroup<C: fastzk_curve::CurveConfig>() -> Affine<C> {
    let mut x = C::Base::ONE;
    loop {
        let rhs = x.square() * x + C::COEFF_B;
        if let Some(y) = rhs.sqrt().filter(|y| y.square() == rhs) {
            let p = Affine::<C>::new_unchecked(x, y);
            assert!(p.is_on_curve());
            if !p.is_in_correct_subgroup() {
                return p;
            }
        }
        x += C::Base::ONE;
    }
}

/// A point on BN254's G2 curve (the twist) outside the order-r subgroup.
fn non_subgroup_g2() -> Affine<bn_curve::G2Config> {
    non_subgroup()
}

#[test]
fn zkey_subgroup_check() {
    let bad = SnarkjsLem::encode(&non_subgroup_g2());
    // beta2 sits after alpha1 and beta1.
    let m = zkey_with(|id, c| {
        let mut c = c.to_vec();
        if id == 2 {
            c[POINTS_AT + 128..POINTS_AT + 256].copy_from_slice(&bad);
        }
        Some(c)
    });
    expect_err(parse("zkey", &m), "not in the prime-order subgroup");
    // Validate::No skips only the subgroup check.
    Zkey::<Bn254>::from_bytes(&m, "t.zkey", Validate::No).unwrap();
    let m = zkey_with(|id, c| {
        let mut c = c.to_vec();
        if id == 7 {
            c[128..256].copy_from_slice(&bad);
        }
        Some(c)
    });
    let e = expect_err(parse("zkey", &m), "section 7 (B2)");
    assert_eq!(e.index, Some(1));
    Zkey::<Bn254>::from_bytes(&m, "t.zkey", Validate::No).unwrap();
}

/// The CLI's first use of a key: header and IC checked in full while parsing, the
/// query sections' subgroup test run afterwards (beside the proof). Same verdicts and
/// the same errors as the one-pass check, on both curves (BLS12-381's G1 sections need
/// the test too).
#[test]
fn deferred_subgroup_check_matches_the_one_pass_check() {
    fn same_error<E: fastzk_pairing::PairingCurve>(m: &[u8]) {
        let whole = Zkey::<E>::from_bytes(m, "t.zkey", Validate::Yes).expect_err("bad key");
        let key = Zkey::<E>::from_bytes_deferring_subgroups(m, "t.zkey").expect("on curve");
        let later = check_query_subgroups(&key.proving_key, "t.zkey").expect_err("bad key");
        assert_eq!(later.to_string(), whole.to_string());
        assert_eq!(later.index, whole.index);
    }
    let key = Zkey::<Bn254>::from_bytes_deferring_subgroups(&bytes(ZKEY), "t.zkey").unwrap();
    check_query_subgroups(&key.proving_key, "t.zkey").unwrap();
    let good = bytes("bls12_381/multiplier_final.zkey");
    let key = Zkey::<Bls12_381>::from_bytes_deferring_subgroups(&good, "t.zkey").unwrap();
    check_query_subgroups(&key.proving_key, "t.zkey").unwrap();

    // The header is still checked in full while parsing.
    let bad = SnarkjsLem::encode(&non_subgroup_g2());
    let m = zkey_with(|id, c| {
        let mut c = c.to_vec();
        if id == 2 {
            c[POINTS_AT + 128..POINTS_AT + 256].copy_from_slice(&bad);
        }
        Some(c)
    });
    let e = Zkey::<Bn254>::from_bytes_deferring_subgroups(&m, "t.zkey").map(drop);
    expect_err(e, "not in the prime-order subgroup");

    // A query section's bad point: found by the later test, named as before.
    let m = zkey_with(|id, c| {
        let mut c = c.to_vec();
        if id == 7 {
            c[128..256].copy_from_slice(&bad);
        }
        Some(c)
    });
    same_error::<Bn254>(&m);

    // BLS12-381: a G1 point outside the subgroup in A, then in H.
    let bad = SnarkjsLem::encode(&non_subgroup::<fastzk_curve::bls12_381::G1Config>());
    for (section, at) in [(5u32, 96), (9, 0)] {
        let m = rebuild(&good, b"zkey", |id, c| {
            let mut c = c.to_vec();
            if id == section {
                c[at..at + 96].copy_from_slice(&bad);
            }
            Some(c)
        });
        same_error::<Bls12_381>(&m);
    }
}

/// Rewrites coefficient `i` of section 4 (entry layout: matrix, constraint, signal,
/// 32-byte value).
fn zkey_coef(i: usize, f: impl Fn(&mut [u8])) -> Vec<u8> {
    zkey_with(|id, c| {
        let mut c = c.to_vec();
        if id == 4 {
            f(&mut c[4 + 44 * i..4 + 44 * (i + 1)]);
        }
        Some(c)
    })
}

#[test]
fn zkey_coefficient_errors() {
    let e = expect_err(
        parse("zkey", &zkey_coef(2, |e| e[0] = 2)),
        "neither A (0) nor B (1)",
    );
    assert_eq!(e.index, Some(2));
    assert!(e.to_string().contains("section 4 (coefficients)"));
    expect_err(
        parse(
            "zkey",
            &zkey_coef(0, |e| e[4..8].copy_from_slice(&8u32.to_le_bytes())),
        ),
        "constraint 8 is out of range",
    );
    expect_err(
        parse(
            "zkey",
            &zkey_coef(0, |e| e[8..12].copy_from_slice(&8u32.to_le_bytes())),
        ),
        "signal 8 is out of range",
    );
    expect_err(
        parse("zkey", &zkey_coef(1, |e| e[12..].fill(0xff))),
        "not below the field modulus",
    );
    // The count disagrees with the section size.
    let m = zkey_with(|id, c| {
        let mut c = c.to_vec();
        if id == 4 {
            c[0] += 1;
        }
        Some(c)
    });
    expect_err(parse("zkey", &m), "coefficients of 44 bytes");
}

#[test]
fn proof_and_vk_json_errors() {
    let proof = json("bn254/poly_proof.json");
    let vk = json("bn254/poly_vk.json");
    let p = |s: &str| proof_from_json::<Bn254>(s, "t.json");
    let v = |s: &str| vk_from_json::<Bn254>(s, "t.json");
    p(&proof).unwrap();
    json_err(p("{"), "JSON");
    json_err(p(&proof.replace("\"pi_c\"", "\"pi_x\"")), "pi_c");
    json_err(p(&proof.replace("bn128", "bls12381")), "curve");
    json_err(p(&proof.replace("groth16", "plonk")), "protocol");
    let mut val: serde_json::Value = serde_json::from_str(&proof).unwrap();
    let with = |path: &[usize], key: &str, x: serde_json::Value| {
        let mut v2 = val.clone();
        let mut node = &mut v2[key];
        for &i in path {
            node = &mut node[i];
        }
        *node = x;
        p(&v2.to_string())
    };
    json_err(with(&[0], "pi_a", "12x".into()), "pi_a[0]");
    json_err(with(&[0], "pi_a", "-1".into()), "not a decimal number");
    json_err(with(&[0], "pi_a", 5.into()), "expected a decimal string");
    json_err(
        with(&[0], "pi_a", bn254::Fq::modulus_string().into()),
        "not below the base field modulus",
    );
    json_err(with(&[0], "pi_a", "1".into()), "pi_a");
    json_err(with(&[2], "pi_a", "2".into()), "z must be 1");
    json_err(with(&[1, 1], "pi_b", "1".into()), "pi_b");
    json_err(with(&[], "pi_b", serde_json::json!(["1", "2"])), "pi_b");
    // The identity (z = 0) is accepted.
    let id = with(&[], "pi_a", serde_json::json!(["0", "1", "0"])).unwrap();
    assert!(id.a.infinity);
    val["pi_a"] = serde_json::json!(["1", "2", "1"]);
    p(&val.to_string()).unwrap();

    v(&vk).unwrap();
    json_err(
        v(&vk.replace("\"nPublic\": 2", "\"nPublic\": 3")),
        "nPublic",
    );
    let mut val: serde_json::Value = serde_json::from_str(&vk).unwrap();
    val["IC"][1][1] = "5".into();
    json_err(v(&val.to_string()), "IC[1]");
    val["IC"] = serde_json::json!([]);
    json_err(v(&val.to_string()), "IC");
}

/// The modulus as a decimal string (the smallest value a reader must refuse).
trait ModulusString {
    fn modulus_string() -> String;
}
impl<F: fastzk_field::PrimeField> ModulusString for F {
    fn modulus_string() -> String {
        F::modulus().to_string()
    }
}
