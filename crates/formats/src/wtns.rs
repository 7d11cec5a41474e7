//! Witness files (`.wtns`, version 2): section 1 `u32 n8`, prime, `u32 nWitness`;
//! section 2 `nWitness` canonical little-endian values (`z[0] = 1` first).

use std::path::Path;

use fastzk_field::PrimeField;
use rayon::prelude::*;

use crate::binfile::{read_file, write_file, BinFile, BinWriter, Cursor};
use crate::codec::{read_fe, read_prime, write_prime};
use crate::error::{Ctx, Result};

const MAGIC: &[u8; 4] = b"wtns";

/// Parses a witness held in memory; `file` names it in errors.
pub fn wtns_from_bytes<F: PrimeField>(bytes: &[u8], file: &str) -> Result<Vec<F>> {
    let bin = BinFile::parse(bytes, MAGIC, file)?;
    bin.table.check_version(file, &[2])?;
    let ctx = Ctx::new(file).section("section 1 (header)");
    let mut cur = Cursor::new(bin.require(1)?, ctx);
    read_prime(&mut cur, &F::modulus(), F::BYTES)?;
    let n = cur.u32()? as u64;
    cur.finish()?;
    let ctx = Ctx::new(file).section("section 2 (values)");
    let values = bin.require(2)?;
    let expected = n * F::BYTES as u64;
    if values.len() as u64 != expected {
        return Err(ctx.invalid(format!(
            "section is {} bytes, expected {n} values × {} = {expected}",
            values.len(),
            F::BYTES
        )));
    }
    values
        .par_chunks_exact(F::BYTES)
        .enumerate()
        .map(|(i, c)| read_fe(c, &ctx).map_err(|e| e.at(i as u64)))
        .collect()
}

/// Reads a `.wtns` file.
pub fn read_wtns<F: PrimeField>(path: impl AsRef<Path>) -> Result<Vec<F>> {
    let path = path.as_ref();
    wtns_from_bytes(&read_file(path)?, &path.display().to_string())
}

/// Serializes a witness.
pub fn wtns_to_bytes<F: PrimeField>(witness: &[F]) -> Vec<u8> {
    let mut w = BinWriter::new(MAGIC, 2);
    w.section(1, |b| {
        write_prime(b, &F::modulus(), F::BYTES);
        b.extend_from_slice(&(witness.len() as u32).to_le_bytes());
    });
    w.section(2, |b| {
        b.reserve(witness.len() * F::BYTES);
        for v in witness {
            b.extend_from_slice(&v.to_le_bytes());
        }
    });
    w.finish()
}

/// Writes a `.wtns` file.
pub fn write_wtns<F: PrimeField>(path: impl AsRef<Path>, witness: &[F]) -> Result<()> {
    write_file(path.as_ref(), &wtns_to_bytes(witness))
}
