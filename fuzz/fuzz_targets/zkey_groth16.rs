//! Groth16 `.zkey` (BN254 and BLS12-381): every length, count and index, and every point
//! decoded and checked on its curve. Not the prime-order subgroup check: on valid
//! points it costs about a millisecond a key and would hold the target to about a
//! thousand executions a second; it has its own tests (`crates/curve`), and a point that
//! passes the on-curve check reaches the same code either way.
#![no_main]
use fastzk_formats::PointCheck;
use fastzk_groth16::Zkey;
use fastzk_pairing::{Bls12_381, Bn254};
use libfuzzer_sys::fuzz_target;

fastzk_fuzz::container_mutator!();

fuzz_target!(|data: &[u8]| {
    let _ = Zkey::<Bn254>::from_bytes_with(data, "fuzz.zkey", PointCheck::OnCurve);
    let _ = Zkey::<Bls12_381>::from_bytes_with(data, "fuzz.zkey", PointCheck::OnCurve);
});
