//! Corrupt files give errors that name the problem, never panics.

mod common;

use common::{bytes, section, size_field};
use fastzk_curve::serialize::{PointEncoding, SnarkjsLem};
use fastzk_curve::{bn254 as bn_curve, Affine};
use fastzk_field::{bn254, Field};
use fastzk_formats::binfile::{BinFile, BinWriter};
use fastzk_formats::{
    proof_from_json, public_from_json, read_r1cs_header, vk_from_json, wtns_from_bytes, ErrorKind,
    FormatError, Ptau, R1csFile, Validate, Zkey,
};
use fastzk_groth16::{Bls12_381, Bn254};
use proptest::prelude::*;

type Fr = bn254::Fr;

const R1CS: &str = "bn254/poly.r1cs";
const WTNS: &str = "bn254/poly.wtns";
const ZKEY: &str = "bn254/poly_final.zkey";
const PTAU: &str = "bn254/pot5_final.ptau";

/// Runs the reader for the file's kind; `Ok` only if everything parsed.
fn parse(kind: &str, b: &[u8]) -> Result<(), FormatError> {
    match kind {
        "r1cs" => R1csFile::<Fr>::from_bytes(b, "t.r1cs").map(drop),
        "wtns" => wtns_from_bytes::<Fr>(b, "t.wtns").map(drop),
        "zkey" => Zkey::<Bn254>::from_bytes(b, "t.zkey", Validate::Yes).map(drop),
        "zkey-bls" => Zkey::<Bls12_381>::from_bytes(b, "t.zkey", Validate::Yes).map(drop),
        "ptau" => {
            let p = Ptau::<Bn254>::from_bytes(b.to_vec(), "t.ptau", Validate::Yes)?;
            p.setup_input(3).map(drop)
        }
        _ => unreachable!(),
    }
}

fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("r1cs", bytes(R1CS)),
        ("wtns", bytes(WTNS)),
        ("zkey", bytes(ZKEY)),
        ("zkey-bls", bytes("bls12_381/multiplier_final.zkey")),
        ("ptau", bytes(PTAU)),
    ]
}

#[test]
fn fixtures_parse() {
    for (kind, b) in fixtures() {
        parse(kind, &b).unwrap();
    }
}

#[test]
fn every_truncation_is_an_error() {
    for (kind, b) in fixtures() {
        let step = if kind == "ptau" { 7 } else { 1 };
        for len in (0..b.len()).step_by(step) {
            assert!(
                parse(kind, &b[..len]).is_err(),
                "{kind} truncated to {len} parsed"
            );
        }
        // One byte too many is an error too.
        let mut longer = b.clone();
        longer.push(0);
        assert!(
            parse(kind, &longer).is_err(),
            "{kind} with a trailing byte parsed"
        );
    }
}

#[test]
fn flipped_bytes_never_panic() {
    for (kind, b) in fixtures() {
        let step = if kind == "ptau" { 13 } else { 1 };
        for i in (0..b.len()).step_by(step) {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut m = b.clone();
                m[i] ^= mask;
                let _ = parse(kind, &m);
            }
        }
    }
}

fn expect_err(r: Result<(), FormatError>, needle: &str) -> FormatError {
    let e = r.expect_err(needle);
    let msg = e.to_string();
    assert!(msg.contains(needle), "{msg:?} should mention {needle:?}");
    assert!(msg.starts_with("t."), "{msg:?} should name the file");
    e
}

#[test]
fn container_errors() {
    for (kind, b) in fixtures() {
        let mut m = b.clone();
        m[0] = b'x';
        expect_err(parse(kind, &m), "wrong magic");
        let mut m = b.clone();
        m[4] = 9;
        expect_err(parse(kind, &m), "unsupported version 9");
        // A section claiming more bytes than the file has.
        let mut m = b.clone();
        m[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        expect_err(parse(kind, &m), "file ends early");
        // More sections than present.
        let mut m = b.clone();
        m[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        expect_err(parse(kind, &m), "file ends early");
    }
}

/// Rebuilds a container, letting `edit` change, drop (`None`) or keep each section.
fn rebuild(
    b: &[u8],
    magic: &[u8; 4],
    mut edit: impl FnMut(u32, &[u8]) -> Option<Vec<u8>>,
) -> Vec<u8> {
    let f = BinFile::parse(b, magic, "orig").unwrap();
    let mut w = BinWriter::new(magic, f.table.version);
    for s in &f.table.sections {
        if let Some(c) = edit(s.id, f.section(s.id).unwrap()) {
            w.raw_section(s.id, &c);
        }
    }
    w.finish()
}

#[test]
fn duplicate_and_missing_sections() {
    for (kind, b) in fixtures() {
        let magic: [u8; 4] = b[..4].try_into().unwrap();
        let f = BinFile::parse(&b, &magic, "orig").unwrap();
        // Duplicate: append the first section again.
        let s0 = f.table.sections[0];
        let mut w = BinWriter::new(&magic, f.table.version);
        for s in &f.table.sections {
            w.raw_section(s.id, f.section(s.id).unwrap());
        }
        w.raw_section(s0.id, f.section(s0.id).unwrap());
        expect_err(parse(kind, &w.finish()), "appears more than once");
        // Missing: drop each section that is required.
        for s in &f.table.sections {
            let optional = match kind {
                "r1cs" => s.id == 3,
                "ptau" => s.id == 7,
                _ => false,
            };
            if optional {
                continue;
            }
            let m = rebuild(&b, &magic, |id, c| (id != s.id).then(|| c.to_vec()));
            assert!(
                parse(kind, &m).is_err(),
                "{kind} without section {} parsed",
                s.id
            );
        }
        // Unknown sections are skipped.
        let mut w = BinWriter::new(&magic, f.table.version);
        for s in &f.table.sections {
            w.raw_section(s.id, f.section(s.id).unwrap());
        }
        w.raw_section(99, b"whatever");
        parse(kind, &w.finish()).unwrap();
    }
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
    let b = bytes(ZKEY);
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
        "PLONK",
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
    let _ = b;
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

/// A point on BN254's G2 curve (the twist) outside the order-r subgroup.
fn non_subgroup_g2() -> Affine<bn_curve::G2Config> {
    use fastzk_curve::CurveConfig;
    let mut x = bn254::Fq2::ONE;
    loop {
        let rhs = x.square() * x + bn_curve::G2Config::COEFF_B;
        if let Some(y) = rhs.sqrt().filter(|y| y.square() == rhs) {
            let p = Affine::<bn_curve::G2Config>::new_unchecked(x, y);
            assert!(p.is_on_curve());
            if !p.is_in_correct_subgroup() {
                return p;
            }
        }
        x += bn254::Fq2::ONE;
    }
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

// ------------------------------------------------------------------------------------
// r1cs, wtns, ptau
// ------------------------------------------------------------------------------------

fn r1cs_with(edit: impl FnMut(u32, &[u8]) -> Option<Vec<u8>>) -> Vec<u8> {
    rebuild(&bytes(R1CS), b"r1cs", edit)
}

#[test]
fn r1cs_errors() {
    let b = bytes(R1CS);
    let h = read_r1cs_header(&b, "t.r1cs").unwrap();
    assert_eq!(h.n_wires, 8);
    // First term of constraint 0: u32 nTerms, then u32 wire at 4 and the value at 8.
    let con = |f: &dyn Fn(&mut Vec<u8>)| {
        r1cs_with(|id, c| {
            let mut c = c.to_vec();
            if id == 2 {
                f(&mut c);
            }
            Some(c)
        })
    };
    let e = expect_err(
        parse(
            "r1cs",
            &con(&|c| c[4..8].copy_from_slice(&8u32.to_le_bytes())),
        ),
        "wire 8 is out of range",
    );
    assert_eq!(e.index, Some(0));
    expect_err(
        parse("r1cs", &con(&|c| c[8..40].fill(0xff))),
        "not below the field modulus",
    );
    expect_err(
        parse(
            "r1cs",
            &con(&|c| c[0..4].copy_from_slice(&u32::MAX.to_le_bytes())),
        ),
        "file ends early",
    );
    // Header lies: more constraints than the section holds, or too few wires.
    let hdr = |off: usize, v: u32| {
        r1cs_with(move |id, c| {
            let mut c = c.to_vec();
            if id == 1 {
                c[off..off + 4].copy_from_slice(&v.to_le_bytes());
            }
            Some(c)
        })
    };
    expect_err(parse("r1cs", &hdr(36 + 24, 6)), "section 2 (constraints)");
    expect_err(parse("r1cs", &hdr(36, 3)), "exceed the 3 wires");
    expect_err(parse("r1cs", &hdr(36, 7)), "wire 7 is out of range");
    // Custom gates are refused.
    let mut m = r1cs_with(|_, c| Some(c.to_vec()));
    let f = BinFile::parse(&m, b"r1cs", "x").unwrap();
    let mut w = BinWriter::new(b"r1cs", 1);
    for s in &f.table.sections {
        w.raw_section(s.id, f.section(s.id).unwrap());
    }
    w.raw_section(4, &0u32.to_le_bytes());
    m = w.finish();
    expect_err(parse("r1cs", &m), "custom gates");
    // A section-size lie in the middle of the table.
    let mut m = b.clone();
    let at = size_field(&b, b"r1cs", 2);
    m[at] = m[at].wrapping_add(4);
    assert!(parse("r1cs", &m).is_err());
}

#[test]
fn wtns_errors() {
    let b = bytes(WTNS);
    let s = section(&b, b"wtns", 2);
    let mut m = b.clone();
    m[s.offset as usize + 32..s.offset as usize + 64].fill(0xff);
    let e = expect_err(parse("wtns", &m), "not below the field modulus");
    assert_eq!(e.index, Some(1));
    let s1 = section(&b, b"wtns", 1);
    let mut m = b.clone();
    m[s1.offset as usize + 36] += 1;
    expect_err(parse("wtns", &m), "section 2 (values)");
}

#[test]
fn ptau_errors() {
    let b = bytes(PTAU);
    // Power that disagrees with the section sizes.
    let s1 = section(&b, b"ptau", 1);
    let mut m = b.clone();
    m[s1.offset as usize + 36] = 4;
    expect_err(parse("ptau", &m), "expected");
    let mut m = b.clone();
    m[s1.offset as usize + 36] = 200;
    expect_err(parse("ptau", &m), "too large");
    // Not prepared: no Lagrange sections.
    let m = rebuild(&b, b"ptau", |id, c| (id < 12).then(|| c.to_vec()));
    let p = Ptau::<Bn254>::from_bytes(m, "t.ptau", Validate::Yes).unwrap();
    assert!(!p.is_prepared());
    let e = p.lagrange_g1(2).unwrap_err().to_string();
    assert!(e.contains("prepare phase2"), "{e}");
    // Only some of 12–15.
    let m = rebuild(&b, b"ptau", |id, c| (id != 14).then(|| c.to_vec()));
    expect_err(parse("ptau", &m), "not all of the Lagrange sections");
    // A bad point in a Lagrange section names its index in the section.
    let s12 = section(&b, b"ptau", 12);
    let mut m = b.clone();
    m[s12.offset as usize + 64 * 9] ^= 1;
    let p = Ptau::<Bn254>::from_bytes(m, "t.ptau", Validate::Yes).unwrap();
    let e = p.lagrange_g1(3).unwrap_err();
    assert_eq!(e.index, Some(9));
    assert!(e.to_string().contains("section 12"));
    assert!(p.lagrange_g1(2).is_ok());
    // A power beyond the file.
    assert!(p.lagrange_g1(7).is_err());
}

// ------------------------------------------------------------------------------------
// JSON
// ------------------------------------------------------------------------------------

fn json(rel: &str) -> String {
    String::from_utf8(bytes(rel)).unwrap()
}

fn json_err<T: std::fmt::Debug>(r: Result<T, FormatError>, needle: &str) {
    let msg = r.expect_err(needle).to_string();
    assert!(msg.contains(needle), "{msg:?} should mention {needle:?}");
    assert!(msg.starts_with("t.json"), "{msg:?}");
}

#[test]
fn json_errors() {
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

    let pubs = |s: &str| public_from_json::<Fr>(s, "t.json");
    pubs(r#"["1", "0"]"#).unwrap();
    json_err(
        pubs(&format!(r#"["1", "{}"]"#, Fr::modulus_string())),
        "[1]",
    );
    json_err(pubs(r#"{"a": 1}"#), "array");
    json_err(pubs(r#"["0x10"]"#), "[0]");
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

// ------------------------------------------------------------------------------------
// Random corruption
// ------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random truncation plus random byte changes: the readers return, never panic.
    #[test]
    fn mutated_files_never_panic(
        which in 0usize..5,
        cut in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
    ) {
        let (kind, mut b) = fixtures().swap_remove(which);
        for (at, v) in edits {
            let i = at.index(b.len());
            b[i] = v;
        }
        let len = cut.index(b.len() + 1);
        let _ = parse(kind, &b[..len]);
        let _ = fastzk_formats::sniff_curve(&b[..len], "t");
    }

    /// Changes confined to the headers and section tables, where lengths live.
    #[test]
    fn mutated_headers_never_panic(
        which in 0usize..5,
        edits in prop::collection::vec((0usize..200, any::<u8>()), 1..6),
    ) {
        let (kind, mut b) = fixtures().swap_remove(which);
        for (at, v) in edits {
            let i = at % b.len();
            b[i] = v;
        }
        let _ = parse(kind, &b);
    }
}
