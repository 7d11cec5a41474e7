//! circom / snarkjs formats.
