//! public.json over both scalar fields.
#![no_main]
use fastzk_field::{bls12_381, bn254};
use fastzk_formats::public_from_json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = public_from_json::<bn254::Fr>(text, "fuzz.json");
    let _ = public_from_json::<bls12_381::Fr>(text, "fuzz.json");
});
