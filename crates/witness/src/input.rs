//! A circom input file (`input.json`) as the list of input signals to set, in the file's
//! order, as snarkjs reads it: top-level keys are signal names; arrays, nested to any
//! depth, give the signal's values in row-major order; objects (circom 2.2 bus inputs)
//! qualify their keys with `.` and arrays of objects with `[i]`. A value is an integer
//! given as a JSON number or as a string (decimal, optionally negative, or `0x` hex), or
//! a boolean (1 or 0); it is reduced modulo the circuit's prime when it is set.
//!
//! One deliberate difference: a JSON number beyond 2^53 is refused. JavaScript parses it
//! into a double first, so snarkjs silently proves a rounded value.

use std::fmt;

use num_bigint::BigInt;
use num_traits::Num;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::WitnessError;

/// One input signal (or bus field) and its values, flattened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputSignal {
    /// The qualified name (`in`, `bus.field`, `buses[2].x`).
    pub name: String,
    pub values: Vec<BigInt>,
}

/// Parses an input file's text; `file` names it in errors.
pub fn parse_inputs(text: &str, file: &str) -> Result<Vec<InputSignal>, WitnessError> {
    let json: Json = serde_json::from_str(text).map_err(|e| WitnessError::Input {
        file: file.to_string(),
        signal: None,
        message: e.to_string(),
    })?;
    let Json::Object(entries) = json else {
        return Err(WitnessError::Input {
            file: file.to_string(),
            signal: None,
            message: "expected a JSON object mapping signal names to values".into(),
        });
    };
    let mut out = Vec::new();
    for (name, value) in entries {
        qualify(&name, value, &mut out).map_err(|(signal, message)| WitnessError::Input {
            file: file.to_string(),
            signal: Some(signal),
            message,
        })?;
    }
    Ok(out)
}

type Failure = (String, String);

/// Adds the signals `value` holds under `prefix`.
fn qualify(prefix: &str, value: Json, out: &mut Vec<InputSignal>) -> Result<(), Failure> {
    match value {
        Json::Object(entries) => {
            for (k, v) in entries {
                qualify(&format!("{prefix}.{k}"), v, out)?;
            }
            Ok(())
        }
        Json::Array(items) if contains_object(&items) => {
            for (i, v) in items.into_iter().enumerate() {
                match v {
                    Json::Object(_) | Json::Array(_) => qualify(&format!("{prefix}[{i}]"), v, out)?,
                    _ => {
                        return Err((
                            prefix.to_string(),
                            "an array mixes objects and values".into(),
                        ))
                    }
                }
            }
            Ok(())
        }
        other => {
            let mut values = Vec::new();
            flatten(prefix, other, &mut values)?;
            out.push(InputSignal {
                name: prefix.to_string(),
                values,
            });
            Ok(())
        }
    }
}

fn contains_object(items: &[Json]) -> bool {
    items.iter().any(|v| match v {
        Json::Object(_) => true,
        Json::Array(inner) => contains_object(inner),
        _ => false,
    })
}

fn flatten(name: &str, value: Json, out: &mut Vec<BigInt>) -> Result<(), Failure> {
    let fail = |m: String| (name.to_string(), m);
    match value {
        Json::Array(items) => items.into_iter().try_for_each(|v| flatten(name, v, out)),
        Json::Integer(v) => {
            out.push(v);
            Ok(())
        }
        Json::Float(x) => Err(fail(if x.fract() != 0.0 || !x.is_finite() {
            format!("{x} is not an integer")
        } else {
            format!("{x} is beyond 2^53 as a JSON number; write it as a string (\"…\")")
        })),
        Json::Bool(b) => {
            out.push(BigInt::from(u8::from(b)));
            Ok(())
        }
        Json::String(s) => {
            let v = parse_integer(&s).ok_or_else(|| {
                fail(format!("{s:?} is not an integer (decimal, or hex with 0x)"))
            })?;
            out.push(v);
            Ok(())
        }
        Json::Null => Err(fail("null is not a value".into())),
        Json::Object(_) => Err(fail("an object among values".into())),
    }
}

/// A decimal integer (optionally signed) or `0x` hex, surrounding spaces allowed (as
/// JavaScript's `BigInt(string)` accepts them).
fn parse_integer(s: &str) -> Option<BigInt> {
    let t = s.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (radix, digits) = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        // JavaScript takes no sign on hex literals.
        Some(h) if !neg && body.len() == t.len() => (16, h),
        Some(_) => return None,
        None => (10, body),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let v = BigInt::from_str_radix(digits, radix).ok()?;
    Some(if neg { -v } else { v })
}

/// JSON with object order kept (serde_json's own map sorts keys unless a feature that
/// would change every map in the workspace is enabled).
#[derive(Debug)]
enum Json {
    Null,
    Bool(bool),
    Integer(BigInt),
    Float(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// Integers up to this magnitude a double holds exactly.
const SAFE: u64 = 1 << 53;

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("JSON")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Bool(b))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(if v > SAFE {
                    Json::Float(v as f64)
                } else {
                    Json::Integer(v.into())
                })
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(if v.unsigned_abs() > SAFE {
                    Json::Float(v as f64)
                } else {
                    Json::Integer(v.into())
                })
            }
            fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
                // `3.0` is the integer 3 in JavaScript too.
                Ok(if v.fract() == 0.0 && v.abs() <= SAFE as f64 {
                    Json::Integer((v as i64).into())
                } else {
                    Json::Float(v)
                })
            }
            fn visit_str<E>(self, s: &str) -> Result<Json, E> {
                Ok(Json::String(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<Json, E> {
                Ok(Json::String(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element()? {
                    v.push(x);
                }
                Ok(Json::Array(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut entries: Vec<(String, Json)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Json>()? {
                    // As JSON.parse: a repeated key keeps its first place, its last value.
                    match entries.iter_mut().find(|(key, _)| *key == k) {
                        Some(slot) => slot.1 = v,
                        None => entries.push((k, v)),
                    }
                }
                Ok(Json::Object(entries))
            }
        }
        d.deserialize_any(V).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<InputSignal>, WitnessError> {
        parse_inputs(text, "input.json")
    }

    fn sig(name: &str, values: &[i64]) -> InputSignal {
        InputSignal {
            name: name.into(),
            values: values.iter().map(|&v| v.into()).collect(),
        }
    }

    #[test]
    fn keeps_file_order_and_flattens_arrays() {
        let got = parse(r#"{"z": 1, "a": [[1, "2"], ["0x0a", -3]], "m": true}"#).unwrap();
        assert_eq!(
            got,
            vec![sig("z", &[1]), sig("a", &[1, 2, 10, -3]), sig("m", &[1])]
        );
    }

    #[test]
    fn qualifies_buses() {
        let got = parse(r#"{"b": {"x": 1, "y": [2, 3]}, "bs": [{"x": 4}, {"x": 5}]}"#).unwrap();
        assert_eq!(
            got,
            vec![
                sig("b.x", &[1]),
                sig("b.y", &[2, 3]),
                sig("bs[0].x", &[4]),
                sig("bs[1].x", &[5])
            ]
        );
    }

    #[test]
    fn big_decimal_and_hex_strings() {
        let p = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
        let got = parse(&format!(
            r#"{{"a": "{p}", "b": "0xFFFFFFFFFFFFFFFFFFFF", "c": "-7"}}"#
        ))
        .unwrap();
        assert_eq!(got[0].values[0].to_string(), p);
        assert_eq!(got[1].values[0], BigInt::from(u128::MAX >> 48));
        assert_eq!(got[2].values[0], BigInt::from(-7));
    }

    #[test]
    fn refuses_what_snarkjs_would_mangle_or_reject() {
        for (text, needle) in [
            (r#"{"a": 1.5}"#, "not an integer"),
            (r#"{"a": 12345678901234567890}"#, "beyond 2^53"),
            (r#"{"a": "12abc"}"#, "not an integer"),
            (r#"{"a": ""}"#, "not an integer"),
            (r#"{"a": "-0x5"}"#, "not an integer"),
            (r#"{"a": null}"#, "null"),
            (r#"{"a": [1, {"b": 2}]}"#, "mixes"),
            (r#"[1, 2]"#, "JSON object"),
            (r#"{"a": 1"#, "EOF"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
            assert!(e.contains("input.json"), "{text}: {e}");
        }
        let e = parse(r#"{"a": 1.5}"#).unwrap_err().to_string();
        assert!(e.contains("signal a"), "{e}");
    }

    #[test]
    fn repeated_key_keeps_place_and_last_value() {
        let got = parse(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
        assert_eq!(got, vec![sig("a", &[3]), sig("b", &[2])]);
    }

    #[test]
    fn whole_floats_and_the_edge_of_exact_doubles() {
        let got = parse(r#"{"a": 3.0, "b": 9007199254740992, "c": -9007199254740992}"#).unwrap();
        assert_eq!(got[0].values[0], BigInt::from(3));
        assert_eq!(got[1].values[0], BigInt::from(1i64 << 53));
        assert_eq!(got[2].values[0], BigInt::from(-(1i64 << 53)));
        assert!(parse(r#"{"a": 9007199254740993}"#).is_err());
    }
}
