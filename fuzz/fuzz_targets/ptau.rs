//! `.ptau` (BN254 and BLS12-381): the header and section table, then the points a setup
//! reads — powers of tau in both groups, α and β, the Lagrange sections — decoded and
//! checked on their curves (the subgroup check is left out for speed, as in the zkey
//! targets). Counts come from the file, so a lying header must be caught before any
//! allocation.
#![no_main]
use fastzk_formats::{Ptau, Validate};
use fastzk_pairing::{Bls12_381, Bn254, PairingCurve};
use libfuzzer_sys::fuzz_target;

fastzk_fuzz::container_mutator!();

fn read_all<E: PairingCurve>(data: &[u8]) {
    let Ok(p) = Ptau::<E>::from_bytes(data.to_vec(), "fuzz.ptau", Validate::No) else {
        return;
    };
    let n = 1u64 << p.power().min(6);
    let _ = p.tau_g1(n);
    let _ = p.tau_g2(n);
    let _ = p.alpha_g1();
    let _ = p.beta_g1();
    let _ = p.beta_g2();
    for log_n in 0..=p.power().min(3) {
        let _ = p.lagrange_g1(log_n);
        let _ = p.alpha_lagrange_g1(log_n);
    }
}

fuzz_target!(|data: &[u8]| {
    read_all::<Bn254>(data);
    read_all::<Bls12_381>(data);
});
