//! `.wtns` over BN254, BLS12-381 and Goldilocks.
#![no_main]
use fastzk_field::{bls12_381, bn254, Goldilocks};
use fastzk_formats::wtns_from_bytes;
use libfuzzer_sys::fuzz_target;

fastzk_fuzz::container_mutator!();

fuzz_target!(|data: &[u8]| {
    let _ = wtns_from_bytes::<bn254::Fr>(data, "fuzz.wtns");
    let _ = wtns_from_bytes::<bls12_381::Fr>(data, "fuzz.wtns");
    let _ = wtns_from_bytes::<Goldilocks>(data, "fuzz.wtns");
});
