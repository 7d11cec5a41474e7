//! Corrupt `.r1cs`, `.wtns` and `.ptau` files give errors that name the problem, never
//! panics: the shared container suite (`crates/testing`) and each format's own checks.

use fastzk_field::bn254;
use fastzk_formats::binfile::{BinFile, BinWriter};
use fastzk_formats::{
    public_from_json, read_r1cs_header, wtns_from_bytes, FormatError, Ptau, R1csFile, Validate,
};
use fastzk_pairing::Bn254;
use fastzk_testing::corrupt::{expect_err, rebuild, section, size_field, Fixture};
use fastzk_testing::fixtures::bytes;

type Fr = bn254::Fr;

const R1CS: &str = "bn254/poly.r1cs";
const WTNS: &str = "bn254/poly.wtns";
const PTAU: &str = "bn254/pot5_final.ptau";

/// Runs the reader for the file's kind; `Ok` only if everything parsed (for a `.ptau`,
/// every section a Groth16 setup on 2^3 reads).
fn parse(kind: &str, b: &[u8]) -> Result<(), FormatError> {
    match kind {
        "r1cs" => R1csFile::<Fr>::from_bytes(b, "t.r1cs").map(drop),
        "wtns" => wtns_from_bytes::<Fr>(b, "t.wtns").map(drop),
        _ => {
            let p = Ptau::<Bn254>::from_bytes(b.to_vec(), "t.ptau", Validate::Yes)?;
            p.alpha_g1()?;
            p.beta_g1()?;
            p.beta_g2()?;
            p.lagrange_g1(4)?;
            p.lagrange_g2(3)?;
            p.alpha_lagrange_g1(3)?;
            p.beta_lagrange_g1(3).map(drop)
        }
    }
}

fn fixtures() -> Vec<Fixture> {
    vec![
        ("r1cs", bytes(R1CS)),
        ("wtns", bytes(WTNS)),
        ("ptau", bytes(PTAU)),
    ]
}

/// `.r1cs` may lack its wire map (3), `.ptau` its contributions (7).
fn optional(kind: &str, id: u32) -> bool {
    matches!((kind, id), ("r1cs", 3) | ("ptau", 7))
}

fastzk_testing::container_tests!(fixtures(), parse, optional: optional);

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

#[test]
fn public_json_errors() {
    let json_err = |r: Result<Vec<Fr>, FormatError>, needle: &str| {
        let msg = r.expect_err(needle).to_string();
        assert!(msg.contains(needle), "{msg:?} should mention {needle:?}");
        assert!(msg.starts_with("t.json"), "{msg:?}");
    };
    let pubs = |s: &str| public_from_json::<Fr>(s, "t.json");
    pubs(r#"["1", "0"]"#).unwrap();
    json_err(
        pubs(&format!(r#"["1", "{}"]"#, Fr::modulus_string())),
        "[1]",
    );
    json_err(pubs(r#"{"a": 1}"#), "array");
    json_err(pubs(r#"["0x10"]"#), "[0]");
    json_err(pubs(r#"["-1"]"#), "not a decimal number");
    json_err(pubs(r#"[7]"#), "expected a decimal string");
    json_err(pubs("["), "JSON");
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

/// A G2 section large enough for the batched subgroup test: a point outside the
/// subgroup is still found, by index, and on-curve-only reading still accepts it.
#[test]
fn large_g2_section_names_the_point_outside_the_subgroup() {
    use fastzk_curve::serialize::{PointEncoding, SnarkjsLem};
    use fastzk_curve::{bn254 as g, Affine, CurveConfig};
    use fastzk_field::Field;
    use fastzk_formats::codec::{decode_points, encode_points};
    use fastzk_formats::error::Ctx;
    use fastzk_formats::PointCheck;

    let outside = {
        let mut x = bn254::Fq2::ONE;
        loop {
            let rhs = x.square() * x + g::G2Config::COEFF_B;
            let p = rhs
                .sqrt()
                .filter(|y| y.square() == rhs)
                .map(|y| Affine::<g::G2Config>::new_unchecked(x, y));
            if let Some(p) = p.filter(|p| !p.is_in_correct_subgroup()) {
                break p;
            }
            x += bn254::Fq2::ONE;
        }
    };
    let good = fastzk_testing::gen::points::<g::G2Config>(4096, 3);
    let ctx = Ctx::new("t.zkey").section("B2");
    let mut bytes = Vec::new();
    encode_points(&mut bytes, &good);
    let decoded = decode_points::<g::G2Config>(&bytes, 4096, PointCheck::Subgroup, &ctx);
    assert_eq!(decoded.expect("good points"), good);
    for at in [0usize, 2047, 4095] {
        let mut b = bytes.clone();
        b[at * 128..(at + 1) * 128].copy_from_slice(&SnarkjsLem::encode(&outside));
        let e = decode_points::<g::G2Config>(&b, 4096, PointCheck::Subgroup, &ctx)
            .expect_err("outside the subgroup");
        assert_eq!(e.index, Some(at as u64));
        let msg = e.to_string();
        assert!(msg.contains("not in the prime-order subgroup"), "{msg}");
        assert!(decode_points::<g::G2Config>(&b, 4096, PointCheck::OnCurve, &ctx).is_ok());
    }
}

/// Points are decoded in parallel straight into place: every mode gives back the
/// encoded points, and with several bad points the error names the lowest, whichever
/// one a thread met first.
#[test]
fn decoded_sections_are_whole_and_errors_name_the_lowest_bad_point() {
    use fastzk_curve::bn254 as g;
    use fastzk_formats::codec::{decode_points, encode_points};
    use fastzk_formats::error::Ctx;
    use fastzk_formats::PointCheck;

    let n = 5000;
    let good = fastzk_testing::gen::points::<g::G1Config>(n, 9);
    let ctx = Ctx::new("t.zkey").section("A");
    let mut bytes = Vec::new();
    encode_points(&mut bytes, &good);
    for check in [
        PointCheck::Subgroup,
        PointCheck::OnCurve,
        PointCheck::Prevalidated,
    ] {
        let back = decode_points::<g::G1Config>(&bytes, n as u64, check, &ctx);
        assert_eq!(back.expect("good points"), good, "{check:?}");
    }
    let empty = decode_points::<g::G1Config>(&[], 0, PointCheck::Subgroup, &ctx);
    assert!(empty.expect("no points").is_empty());
    // A flipped bit of y: off the curve. Pairs straddling the places where rayon
    // splits the work, so that the higher one is usually met first.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    for bad in [[4999, 3], [2499, 2500], [1249, 1250], [3749, 3750]] {
        let mut b = bytes.clone();
        for i in bad {
            b[i * 64 + 32] ^= 1;
        }
        let e = pool
            .install(|| decode_points::<g::G1Config>(&b, n as u64, PointCheck::OnCurve, &ctx))
            .expect_err("off the curve");
        assert_eq!(e.index, Some(bad[0].min(bad[1]) as u64), "{e}");
        assert!(e.to_string().contains("not on the curve"), "{e}");
    }
}
