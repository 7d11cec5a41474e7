//! `.r1cs` over both pairing curves' scalar fields.
#![no_main]
use fastzk_field::{bls12_381, bn254};
use fastzk_formats::R1csFile;
use libfuzzer_sys::fuzz_target;

fastzk_fuzz::container_mutator!();

fuzz_target!(|data: &[u8]| {
    let _ = fastzk_formats::read_r1cs_header(data, "fuzz.r1cs");
    let _ = R1csFile::<bn254::Fr>::from_bytes(data, "fuzz.r1cs");
    let _ = R1csFile::<bls12_381::Fr>::from_bytes(data, "fuzz.r1cs");
});
