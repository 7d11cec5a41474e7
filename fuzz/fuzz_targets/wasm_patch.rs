//! The rewrite of circom's field multiplication reads the `.wasm` a user gives
//! (`witness calculate`, `fullprove`) before wasmtime does: any bytes, no panic; what it
//! returns is a module that still parses.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|wasm: &[u8]| {
    if let Some((patched, _q)) = fastzk_witness::wide_mul::patch(wasm) {
        for payload in wasmparser::Parser::new(0).parse_all(&patched) {
            payload.expect("the patched module parses");
        }
    }
});
