//! The Spartan integration tests.
//! (One test binary per crate: each file below was its own, and each re-compiled the
//! generic provers and engines it uses; together they compile once. Run one module with
//! `cargo test --release -p fastzk-spartan --test suite MODULE::`.) A harness of trials, so
//! that the device checks are reported ignored, with the reason, where there is no device.

mod device;
mod format;
mod nizk;
mod snark;

use fastzk_testing::Trials;

fn main() {
    let mut t = Trials::default();
    t.plain(
        "format::write_then_read_is_the_identity",
        format::write_then_read_is_the_identity,
    );
    t.plain(
        "format::the_stored_proof_still_reads_and_verifies",
        format::the_stored_proof_still_reads_and_verifies,
    );
    t.plain(
        "format::malformed_files_are_refused_with_a_reason",
        format::malformed_files_are_refused_with_a_reason,
    );
    t.plain(
        "format::counts_of_empty_rows_are_bounded",
        format::counts_of_empty_rows_are_bounded,
    );
    t.plain(
        "format::snark_proofs_and_keys_write_then_read_and_refuse_damage",
        format::snark_proofs_and_keys_write_then_read_and_refuse_damage,
    );
    t.plain(
        "format::the_stored_snark_proof_and_key_still_read_and_verify",
        format::the_stored_snark_proof_and_key_still_read_and_verify,
    );
    t.plain("nizk::honest_proofs_verify", nizk::honest_proofs_verify);
    t.plain(
        "nizk::an_unsatisfied_witness_is_refused_by_name",
        nizk::an_unsatisfied_witness_is_refused_by_name,
    );
    t.plain(
        "nizk::every_part_of_a_proof_is_bound",
        nizk::every_part_of_a_proof_is_bound,
    );
    t.plain(
        "nizk::a_false_statement_is_rejected",
        nizk::a_false_statement_is_rejected,
    );
    t.plain(
        "nizk::the_calculator_against_hand_computed_values",
        nizk::the_calculator_against_hand_computed_values,
    );
    t.plain("nizk::proofs_are_randomised", nizk::proofs_are_randomised);
    t.plain(
        "nizk::weak_parameters_are_refused",
        nizk::weak_parameters_are_refused,
    );
    t.plain(
        "snark::honest_snark_proofs_verify",
        snark::honest_snark_proofs_verify,
    );
    t.plain(
        "snark::the_statement_inputs_and_key_are_bound",
        snark::the_statement_inputs_and_key_are_bound,
    );
    t.plain(
        "snark::an_unsatisfied_witness_is_refused_by_name",
        snark::an_unsatisfied_witness_is_refused_by_name,
    );
    t.plain(
        "snark::the_snark_calculator_against_hand_computed_values",
        snark::the_snark_calculator_against_hand_computed_values,
    );
    device::register(&mut t);
    t.run()
}
