//! The Plonk integration tests.
//! (One test binary per crate: each file below was its own, and each re-compiled the
//! generic provers and engines it uses; together they compile once. Run one module with
//! `cargo test --release -p fastzk-plonk --test suite MODULE::`.) A harness of trials, so
//! that the device checks are reported ignored, with the reason, where there is no device.

mod corruption;
mod device;
mod lean;
mod public_inputs;
mod snarkjs_files;

use fastzk_testing::Trials;

fn main() {
    let mut t = Trials::default();
    t.plain(
        "corruption::a_value_past_the_modulus_in_a_polynomial_is_refused_when_proving",
        corruption::a_value_past_the_modulus_in_a_polynomial_is_refused_when_proving,
    );
    t.plain(
        "corruption::wire_maps_and_additions_are_bounds_checked",
        corruption::wire_maps_and_additions_are_bounds_checked,
    );
    t.plain(
        "corruption::json_files_are_checked",
        corruption::json_files_are_checked,
    );
    t.plain(
        "lean::snarkjs_keys_prove_alike_held_or_lean",
        lean::snarkjs_keys_prove_alike_held_or_lean,
    );
    t.plain(
        "lean::a_synthetic_key_with_many_public_inputs_proves_alike",
        lean::a_synthetic_key_with_many_public_inputs_proves_alike,
    );
    t.plain(
        "lean::a_bad_power_of_tau_is_named_when_the_lean_key_is_opened",
        lean::a_bad_power_of_tau_is_named_when_the_lean_key_is_opened,
    );
    t.plain(
        "public_inputs::every_count_of_public_inputs_proves_and_binds",
        public_inputs::every_count_of_public_inputs_proves_and_binds,
    );
    t.plain(
        "snarkjs_files::bn254_multiplier",
        snarkjs_files::bn254_multiplier,
    );
    t.plain("snarkjs_files::bn254_poly", snarkjs_files::bn254_poly);
    t.plain(
        "snarkjs_files::bls12_381_multiplier",
        snarkjs_files::bls12_381_multiplier,
    );
    t.plain(
        "snarkjs_files::the_verification_key_file_is_read_as_snarkjs_wrote_it",
        snarkjs_files::the_verification_key_file_is_read_as_snarkjs_wrote_it,
    );
    t.plain(
        "snarkjs_files::setup_is_snarkjs_setup_byte_for_byte",
        snarkjs_files::setup_is_snarkjs_setup_byte_for_byte,
    );
    corruption::register(&mut t);
    device::register(&mut t);
    t.run()
}
