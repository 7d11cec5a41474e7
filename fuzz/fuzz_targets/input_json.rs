//! circom input.json, as `witness calculate` and `fullprove` read it.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = fastzk_witness::parse_inputs(text, "input.json");
});
