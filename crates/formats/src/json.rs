//! snarkjs' JSON conventions, as building blocks for every protocol's `proof.json` and
//! `verification_key.json` (each prover crate writes its own), and `public.json`.
//!
//! Numbers are decimal strings. A G1 point is `[x, y, "1"]` and a G2 point
//! `[[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]` (affine, z = 1); the identity is written
//! as snarkjs writes it, `["0", "1", "0"]` and `[["0","0"], ["1","0"], ["0","0"]]`.
//! Readers check every number is below its modulus and every point is on the curve and
//! in the prime-order subgroup; errors name the file and the field.

use std::path::Path;

use fastzk_curve::serialize::{Coordinate, SerializableCurve};
use fastzk_curve::Affine;
use fastzk_field::{Field, PrimeField};
use num_bigint::BigUint;
use serde::Serialize;
use serde_json::Value;

use crate::binfile::{read_file, write_file};
use crate::error::{ErrorKind, FormatError, Result};
use crate::snarkjs::ZkeyProtocol;

// ------------------------------------------------------------------------------------
// Numbers and points
// ------------------------------------------------------------------------------------

/// An error in `field` of the JSON file `file`.
pub fn err(file: &str, field: &str, msg: impl Into<String>) -> FormatError {
    FormatError::new(file, ErrorKind::Invalid(msg.into())).in_section(field.to_owned())
}

/// A decimal string (digits only; the length bound keeps the parse cheap).
fn parse_decimal(v: &Value, file: &str, field: &str) -> Result<BigUint> {
    let s = v
        .as_str()
        .ok_or_else(|| err(file, field, format!("expected a decimal string, found {v}")))?;
    if s.is_empty() || s.len() > 200 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err(file, field, format!("{s:?} is not a decimal number")));
    }
    Ok(BigUint::parse_bytes(s.as_bytes(), 10).expect("checked digits"))
}

/// A scalar-field element from a decimal string, `< r`.
pub fn parse_scalar<F: PrimeField>(v: &Value, file: &str, field: &str) -> Result<F> {
    let n = parse_decimal(v, file, field)?;
    F::from_biguint(&n).map_err(|_| {
        FormatError::new(
            file,
            ErrorKind::NotCanonical {
                modulus: F::modulus().to_string(),
            },
        )
        .in_section(field.to_owned())
    })
}

/// A coordinate (`Fq`: one number; `Fq2`: `[c0, c1]`) from JSON.
fn parse_coord<B: Coordinate>(v: &Value, file: &str, field: &str) -> Result<B> {
    let parts: Vec<&Value> = if B::DEGREE == 1 {
        vec![v]
    } else {
        let a = v
            .as_array()
            .filter(|a| a.len() == B::DEGREE)
            .ok_or_else(|| {
                err(
                    file,
                    field,
                    format!("expected an array of {} numbers", B::DEGREE),
                )
            })?;
        a.iter().collect()
    };
    let mut bytes = vec![0u8; B::SIZE];
    for (k, (p, out)) in parts
        .iter()
        .zip(bytes.chunks_exact_mut(B::COMPONENT_BYTES))
        .enumerate()
    {
        let f = if B::DEGREE == 1 {
            field.to_owned()
        } else {
            format!("{field}[{k}]")
        };
        let n = parse_decimal(p, file, &f)?.to_bytes_le();
        if n.len() > out.len() {
            return Err(err(file, &f, "value is not below the base field modulus"));
        }
        out[..n.len()].copy_from_slice(&n);
    }
    B::read_le(&bytes).map_err(|_| err(file, field, "value is not below the base field modulus"))
}

fn coord_strings<B: Coordinate>(c: &B) -> Vec<String> {
    let mut bytes = vec![0u8; B::SIZE];
    c.write_le(&mut bytes);
    bytes
        .chunks_exact(B::COMPONENT_BYTES)
        .map(|b| BigUint::from_bytes_le(b).to_string())
        .collect()
}

fn coord_value<B: Coordinate>(c: &B) -> Value {
    let s = coord_strings(c);
    if B::DEGREE == 1 {
        Value::String(s[0].clone())
    } else {
        Value::Array(s.into_iter().map(Value::String).collect())
    }
}

/// A point as snarkjs writes it (affine, z = 1; the identity with z = 0).
pub fn point_value<C: SerializableCurve>(p: &Affine<C>) -> Value {
    let (x, y, z) = if p.infinity {
        (C::Base::ZERO, C::Base::ONE, C::Base::ZERO)
    } else {
        (p.x, p.y, C::Base::ONE)
    };
    Value::Array(vec![coord_value(&x), coord_value(&y), coord_value(&z)])
}

/// Parses a point; z must be 1 (affine) or 0 (the identity).
pub fn parse_point<C: SerializableCurve>(v: &Value, file: &str, field: &str) -> Result<Affine<C>> {
    let a = v
        .as_array()
        .filter(|a| a.len() == 3)
        .ok_or_else(|| err(file, field, "expected a point [x, y, z]"))?;
    let x: C::Base = parse_coord(&a[0], file, &format!("{field}[0]"))?;
    let y: C::Base = parse_coord(&a[1], file, &format!("{field}[1]"))?;
    let z: C::Base = parse_coord(&a[2], file, &format!("{field}[2]"))?;
    if z.is_zero() {
        return Ok(Affine::identity());
    }
    if !z.is_one() {
        return Err(err(file, field, "z must be 1 (affine) or 0 (the identity)"));
    }
    Affine::<C>::new(x, y).map_err(|e| err(file, field, e.to_string()))
}

/// The member `key` of the object `obj`, which must be there.
pub fn get<'a>(obj: &'a Value, key: &str, file: &str) -> Result<&'a Value> {
    obj.get(key)
        .ok_or_else(|| err(file, key, "field is missing"))
}

/// `obj[key] == expected` when present (snarkjs always writes `protocol` and `curve`;
/// files that leave them out are accepted).
pub fn check_tag(obj: &Value, key: &str, expected: &str, file: &str) -> Result<()> {
    match obj.get(key) {
        None => Ok(()),
        Some(Value::String(s)) if s == expected => Ok(()),
        Some(v) => Err(err(file, key, format!("expected {expected:?}, found {v}"))),
    }
}

/// Parses JSON text; `file` names it in errors.
pub fn parse_json(s: &str, file: &str) -> Result<Value> {
    serde_json::from_str(s).map_err(|e| FormatError::new(file, ErrorKind::Json(e)))
}

/// A UTF-8 text file.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = read_file(path)?;
    String::from_utf8(bytes).map_err(|_| {
        FormatError::new(
            &path.display().to_string(),
            ErrorKind::Invalid("not UTF-8".into()),
        )
    })
}

/// Pretty JSON text with a final newline, as snarkjs writes it.
pub fn to_pretty<T: Serialize>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("JSON values serialize");
    s.push('\n');
    s
}

// ------------------------------------------------------------------------------------
// public.json
// ------------------------------------------------------------------------------------

/// `public.json` text: the public signals as decimal strings.
pub fn public_to_json<F: PrimeField>(values: &[F]) -> String {
    to_pretty(&values.iter().map(|v| v.to_string()).collect::<Vec<_>>())
}

/// Parses `public.json` text; every value must be below the scalar field's modulus.
pub fn public_from_json<F: PrimeField>(s: &str, file: &str) -> Result<Vec<F>> {
    let v = parse_json(s, file)?;
    let a = v.as_array().ok_or_else(|| {
        FormatError::new(
            file,
            ErrorKind::Invalid("expected an array of decimal strings".into()),
        )
    })?;
    a.iter()
        .enumerate()
        .map(|(i, x)| parse_scalar(x, file, &format!("[{i}]")))
        .collect()
}

pub fn read_public_json<F: PrimeField>(path: impl AsRef<Path>) -> Result<Vec<F>> {
    read_with(path.as_ref(), public_from_json)
}

pub fn write_public_json<F: PrimeField>(path: impl AsRef<Path>, values: &[F]) -> Result<()> {
    write_text(path.as_ref(), &public_to_json(values))
}

/// Checks `protocol` and `curve` of a proof or key file against the reader's.
pub fn check_protocol_and_curve(
    v: &Value,
    protocol: ZkeyProtocol,
    curve: fastzk_pairing::CurveId,
    file: &str,
) -> Result<()> {
    check_tag(v, "protocol", protocol.name(), file)?;
    check_tag(v, "curve", curve.snarkjs_name(), file)
}

/// Reads `path` and parses it with `parse(text, file name)`.
pub fn read_with<T>(path: &Path, parse: impl FnOnce(&str, &str) -> Result<T>) -> Result<T> {
    parse(&read_text(path)?, &path.display().to_string())
}

/// Writes `text` to `path`.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    write_file(path, text.as_bytes())
}
