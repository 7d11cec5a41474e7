//! circom / snarkjs file formats, so fastzk proves next to snarkjs and rapidsnark with the
//! same files.
//!
//! * [`binfile`]: the iden3 binary container (magic, version, typed sections).
//! * [`r1cs`]: circom `.r1cs` constraint systems (reader and writer).
//! * [`wtns`]: witnesses (`.wtns`).
//! * [`zkey`]: snarkjs Groth16 proving keys (`.zkey`) to and from
//!   [`fastzk_groth16::ProvingKey`].
//! * [`ptau`]: powers of tau (`.ptau`), read section by section, and a development
//!   Groth16 setup from a phase-2-prepared file.
//! * [`json`]: `proof.json`, `public.json`, `verification_key.json`.
//!
//! Every reader works on bytes (`from_bytes`, with a name for error messages) or on a
//! path (`open` / `read_*`), never panics on bad input, and checks every length against
//! the bytes present before allocating for it. Errors are [`FormatError`]s naming the
//! file, the section and the item at fault.

pub mod binfile;
mod common;
pub mod error;
pub mod json;
pub mod ptau;
pub mod r1cs;
pub mod wtns;
pub mod zkey;

pub use common::{sniff_curve, sniff_curve_file, CurveId, PointCheck};
pub use error::{ErrorKind, FormatError, Result};
pub use fastzk_curve::serialize::Validate;
pub use json::{
    proof_from_json, proof_to_json, public_from_json, public_to_json, read_proof_json,
    read_public_json, read_vk_json, vk_from_json, vk_to_json, write_proof_json, write_public_json,
    write_vk_json,
};
pub use ptau::Ptau;
pub use r1cs::{read_r1cs_header, R1csFile, R1csHeader};
pub use wtns::{read_wtns, write_wtns, wtns_from_bytes, wtns_to_bytes};
pub use zkey::{read_zkey, write_zkey, Zkey};
