//! circom / snarkjs file formats, so fastzk proves next to snarkjs and rapidsnark with the
//! same files.
//!
//! * [`binfile`]: the iden3 binary container (magic, version, typed sections).
//! * [`r1cs`]: circom `.r1cs` constraint systems (reader and writer).
//! * [`wtns`]: witnesses (`.wtns`).
//! * [`ptau`]: powers of tau (`.ptau`), read section by section.
//! * [`json`]: `public.json`, and the conventions every `proof.json` and
//!   `verification_key.json` follows.
//! * [`snarkjs`]: snarkjs' conventions (roots of unity, domain sizes, `.zkey` protocol
//!   ids and coefficient encoding).
//! * [`codec`]: primes, field elements and point arrays in snarkjs' layout, and curve
//!   identification from a file's prime.
//!
//! A prover's own key and proof formats (the Groth16 `.zkey`, `proof.json`) live in
//! the prover's crate, built from these blocks: this crate depends on no prover.
//!
//! Every reader works on bytes (`from_bytes`, with a name for error messages) or on a
//! path (`open` / `read_*`), never panics on bad input, and checks every length against
//! the bytes present before allocating for it. Errors are [`FormatError`]s naming the
//! file, the section and the item at fault.

pub mod binfile;
pub mod codec;
pub mod error;
pub mod json;
pub mod ptau;
pub mod r1cs;
pub mod snarkjs;
pub mod wtns;

pub use codec::{sniff_curve, sniff_curve_file, PointCheck};
pub use error::{ErrorKind, FormatError, Result};
pub use fastzk_curve::serialize::Validate;
pub use json::{public_from_json, public_to_json, read_public_json, write_public_json};
pub use ptau::Ptau;
pub use r1cs::{read_r1cs_header, Constraint, R1csFile, R1csHeader, R1csView};
pub use wtns::{read_wtns, write_wtns, wtns_from_bytes, wtns_to_bytes};
