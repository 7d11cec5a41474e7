//! circom's `.r1cs` constraint files (version 1).
//!
//! Sections: 1 header (`u32 n8`, prime, `u32 nWires`, `u32 nPubOut`, `u32 nPubIn`,
//! `u32 nPrvIn`, `u64 nLabels`, `u32 mConstraints`); 2 constraints (per constraint the
//! linear combinations A, B, C, each `u32 nTerms` then `nTerms × (u32 wire, n8-byte
//! canonical LE coefficient)`, meaning `(A·z)·(B·z) − C·z = 0`); 3 wire → label map
//! (`nWires × u64`); 4 and 5 custom gates (PLONK only; refused here).

use std::path::Path;

use fastzk_field::PrimeField;
use fastzk_r1cs::{Csr, R1cs};
use num_bigint::BigUint;

use crate::binfile::{read_file, BinFile, BinWriter, Cursor};
use crate::codec::{describe_prime, read_fe};
use crate::error::{Ctx, ErrorKind, Result};
use fastzk_pairing::CurveId;

const MAGIC: &[u8; 4] = b"r1cs";
const SEC_HEADER: u32 = 1;
const SEC_CONSTRAINTS: u32 = 2;
const SEC_WIRE2LABEL: u32 = 3;
const SEC_CUSTOM_GATES_LIST: u32 = 4;
const SEC_CUSTOM_GATES_USES: u32 = 5;

/// The counts circom writes in a `.r1cs` header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct R1csHeader {
    /// Bytes per field element (`n8`).
    pub field_size: u32,
    pub prime: BigUint,
    /// Number of wires (variables), the constant one included.
    pub n_wires: u32,
    pub n_pub_out: u32,
    pub n_pub_in: u32,
    pub n_prv_in: u32,
    pub n_labels: u64,
    pub n_constraints: u32,
}

impl R1csHeader {
    /// Public variables (outputs, then public inputs), the constant one excluded.
    pub fn n_public(&self) -> usize {
        self.n_pub_out as usize + self.n_pub_in as usize
    }

    /// The curve whose scalar field is the prime, if known.
    pub fn curve(&self) -> Option<CurveId> {
        CurveId::from_prime(&self.prime)
    }
}

/// A parsed `.r1cs` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct R1csFile<F> {
    pub header: R1csHeader,
    pub r1cs: R1cs<F>,
    /// Section 3: the label (signal id in the `.sym` file) of every wire, if present.
    pub wire_to_label: Option<Vec<u64>>,
}

fn parse_header(bytes: &[u8], file: &str) -> Result<R1csHeader> {
    let ctx = Ctx::new(file).section("section 1 (header)");
    let mut cur = Cursor::new(bytes, ctx);
    let field_size = cur.u32()?;
    let prime = BigUint::from_bytes_le(cur.take(field_size as u64)?);
    let h = R1csHeader {
        field_size,
        prime,
        n_wires: cur.u32()?,
        n_pub_out: cur.u32()?,
        n_pub_in: cur.u32()?,
        n_prv_in: cur.u32()?,
        n_labels: cur.u64()?,
        n_constraints: cur.u32()?,
    };
    cur.finish()?;
    let inputs = 1 + h.n_pub_out as u64 + h.n_pub_in as u64 + h.n_prv_in as u64;
    if inputs > h.n_wires as u64 {
        return Err(ctx.invalid(format!(
            "1 + {} outputs + {} public inputs + {} private inputs exceed the {} wires",
            h.n_pub_out, h.n_pub_in, h.n_prv_in, h.n_wires
        )));
    }
    Ok(h)
}

/// Reads only the header (any field).
pub fn read_r1cs_header(bytes: &[u8], file: &str) -> Result<R1csHeader> {
    let bin = BinFile::parse(bytes, MAGIC, file)?;
    bin.table.check_version(file, &[1])?;
    parse_header(bin.require(SEC_HEADER)?, file)
}

/// A `.r1cs` file read in place (from a memory map, say): the header checked against
/// the field `F`, the constraints parsed one at a time by [`Self::visit_constraints`],
/// so a file of many GiB is never held as matrices.
pub struct R1csView<'a, F> {
    pub header: R1csHeader,
    bin: BinFile<'a, 'a>,
    _field: std::marker::PhantomData<F>,
}

impl<'a, F: PrimeField> R1csView<'a, F> {
    /// Checks the container, the header and the prime; `file` names it in errors.
    pub fn parse(bytes: &'a [u8], file: &'a str) -> Result<Self> {
        let bin = BinFile::parse(bytes, MAGIC, file)?;
        bin.table.check_version(file, &[1])?;
        for id in [SEC_CUSTOM_GATES_LIST, SEC_CUSTOM_GATES_USES] {
            if bin.section(id).is_some() {
                return Err(Ctx::new(file).err(ErrorKind::Unsupported(format!(
                    "section {id} holds circom custom gates, which only PLONK provers use; \
                     compile without custom templates for Groth16"
                ))));
            }
        }
        let header = parse_header(bin.require(SEC_HEADER)?, file)?;
        if header.prime != F::modulus() {
            return Err(Ctx::new(file)
                .section("section 1 (header)")
                .err(ErrorKind::WrongCurve {
                    found: describe_prime(&header.prime),
                    expected: describe_prime(&F::modulus()),
                }));
        }
        if header.field_size as usize != F::BYTES {
            return Err(Ctx::new(file)
                .section("section 1 (header)")
                .invalid(format!(
                    "field elements take {} bytes, expected {}",
                    header.field_size,
                    F::BYTES
                )));
        }
        bin.require(SEC_CONSTRAINTS)?;
        Ok(Self {
            header,
            bin,
            _field: std::marker::PhantomData,
        })
    }

    /// `visit(i, [A, B, C])` for each constraint in order (see [`R1csFile`] for what is
    /// checked); the first error, `visit`'s included, ends the walk.
    pub fn visit_constraints<E: From<crate::FormatError>>(
        &self,
        visit: impl FnMut(u64, [&[(u32, F)]; 3]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let bytes = self.bin.require(SEC_CONSTRAINTS)?;
        visit_constraints(bytes, &self.header, self.bin.file, visit)
    }
}

impl<F: PrimeField> R1csFile<F> {
    /// Parses a `.r1cs` file held in memory; `file` names it in errors.
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Self> {
        let view = R1csView::<F>::parse(bytes, file)?;
        let (header, bin) = (view.header.clone(), view.bin);
        let r1cs = parse_constraints::<F>(bin.require(SEC_CONSTRAINTS)?, &header, file)?;
        let wire_to_label = match bin.section(SEC_WIRE2LABEL) {
            None => None,
            Some(bytes) => {
                let ctx = Ctx::new(file).section("section 3 (wire to label map)");
                let expected = header.n_wires as u64 * 8;
                if bytes.len() as u64 != expected {
                    return Err(ctx.invalid(format!(
                        "section is {} bytes, expected {} wires × 8 = {expected}",
                        bytes.len(),
                        header.n_wires
                    )));
                }
                Some(
                    bytes
                        .chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                        .collect(),
                )
            }
        };
        Ok(Self {
            header,
            r1cs,
            wire_to_label,
        })
    }

    /// Reads a `.r1cs` file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        Self::from_bytes(&read_file(path)?, &path.display().to_string())
    }

    /// Wraps a constraint system with a header that calls every public variable a
    /// public input, no private inputs, and the identity label map.
    pub fn from_r1cs(r1cs: R1cs<F>) -> Self {
        let n_wires = r1cs.n_vars() as u32;
        let header = R1csHeader {
            field_size: F::BYTES as u32,
            prime: F::modulus(),
            n_wires,
            n_pub_out: 0,
            n_pub_in: r1cs.n_public() as u32,
            n_prv_in: 0,
            n_labels: n_wires as u64,
            n_constraints: r1cs.n_constraints() as u32,
        };
        Self {
            header,
            r1cs,
            wire_to_label: Some((0..n_wires as u64).collect()),
        }
    }

    /// Serializes to circom's layout. Wire and constraint counts come from the
    /// matrices; the public variables are split as `header.n_pub_out` outputs and the
    /// rest public inputs. A wire repeated within one linear combination is written
    /// once with the summed coefficient: circom never repeats one, and snarkjs' readers
    /// that turn a combination into a map (`wtns check`, `r1cs export json`) would keep
    /// only the last.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = BinWriter::new(MAGIC, 1);
        self.write_sections(&mut w);
        w.finish()
    }

    /// Writes a `.r1cs` file, the constraints streamed to it (no buffer of the file's
    /// size).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let mut w = BinWriter::create(path.as_ref(), MAGIC, 1)?;
        self.write_sections(&mut w);
        w.finish_file()
    }

    fn write_sections(&self, w: &mut BinWriter) {
        let r = &self.r1cs;
        let n_pub_out = (self.header.n_pub_out as usize).min(r.n_public()) as u32;
        let n_pub_in = r.n_public() as u32 - n_pub_out;
        let n_wires = r.n_vars() as u32;
        // Each row's terms with repeated wires merged, for `emit`.
        let for_each_lc = |emit: &mut dyn FnMut(&Terms<F>)| {
            let mut lc = Vec::new();
            for i in 0..r.n_constraints() {
                for m in [r.a(), r.b(), r.c()] {
                    let (cols, vals) = m.row(i);
                    merge_terms(cols, vals, &mut lc);
                    emit(&lc);
                }
            }
        };
        let term = 4 + F::BYTES as u64;
        let mut len = 0u64;
        for_each_lc(&mut |lc| len += 4 + lc.len() as u64 * term);
        // circom's section order: constraints, header, wire map.
        w.section_sized(SEC_CONSTRAINTS, len, |put| {
            let mut piece = Vec::with_capacity(1 << 16);
            for_each_lc(&mut |lc| {
                piece.extend_from_slice(&(lc.len() as u32).to_le_bytes());
                for (c, v) in lc {
                    piece.extend_from_slice(&c.to_le_bytes());
                    piece.extend_from_slice(&v.to_le_bytes());
                }
                if piece.len() >= 1 << 16 {
                    put(&piece);
                    piece.clear();
                }
            });
            put(&piece);
            Ok::<(), std::convert::Infallible>(())
        })
        .expect("the length was counted with the same terms");
        w.section(SEC_HEADER, |b| {
            crate::codec::write_prime(b, &F::modulus(), F::BYTES);
            for v in [n_wires, n_pub_out, n_pub_in, self.header.n_prv_in] {
                b.extend_from_slice(&v.to_le_bytes());
            }
            b.extend_from_slice(&self.header.n_labels.to_le_bytes());
            b.extend_from_slice(&(r.n_constraints() as u32).to_le_bytes());
        });
        w.section(SEC_WIRE2LABEL, |b| {
            match &self.wire_to_label {
                Some(l) if l.len() == n_wires as usize => {
                    l.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes()))
                }
                _ => (0..n_wires as u64).for_each(|x| b.extend_from_slice(&x.to_le_bytes())),
            };
        });
    }
}

/// A linear combination's `(wire, coefficient)` terms.
type Terms<F> = [(u32, F)];

/// One constraint's A, B and C rows as their terms.
pub type Constraint<'a, F> = [&'a [(u32, F)]; 3];

/// `out` = the terms of one linear combination with repeated wires summed, in order of
/// first appearance.
fn merge_terms<F: PrimeField>(cols: &[u32], vals: &[F], out: &mut Vec<(u32, F)>) {
    out.clear();
    if cols.len() <= 16 {
        for (&c, &v) in cols.iter().zip(vals) {
            match out.iter_mut().find(|t| t.0 == c) {
                Some(t) => t.1 += v,
                None => out.push((c, v)),
            }
        }
    } else {
        let mut at = std::collections::HashMap::with_capacity(cols.len());
        for (&c, &v) in cols.iter().zip(vals) {
            match at.get(&c) {
                Some(&k) => {
                    let t: &mut (u32, F) = &mut out[k];
                    t.1 += v;
                }
                None => {
                    at.insert(c, out.len());
                    out.push((c, v));
                }
            }
        }
    }
}

/// Calls `visit(i, [A, B, C])` for every constraint of section 2, in order, each linear
/// combination as its `(wire, coefficient)` terms; stops at the first error, `visit`'s
/// own included. Counts are bounded by the section's length before anything is
/// allocated, wires by the header.
fn visit_constraints<F: PrimeField, E>(
    bytes: &[u8],
    h: &R1csHeader,
    file: &str,
    mut visit: impl FnMut(u64, [&[(u32, F)]; 3]) -> std::result::Result<(), E>,
) -> std::result::Result<(), E>
where
    E: From<crate::FormatError>,
{
    let ctx = Ctx::new(file).section("section 2 (constraints)");
    let mut cur = Cursor::new(bytes, ctx);
    let term = 4 + F::BYTES as u64;
    // Each constraint takes at least 12 bytes (three term counts): bound the rows first.
    cur.check_fits(h.n_constraints as u64, 12)?;
    let mut rows: [Vec<(u32, F)>; 3] = Default::default();
    for i in 0..h.n_constraints as u64 {
        for (name, row) in ["A", "B", "C"].into_iter().zip(rows.iter_mut()) {
            let n_terms = cur.u32().map_err(|e| e.at(i))?;
            cur.check_fits(n_terms as u64, term).map_err(|e| e.at(i))?;
            row.clear();
            for _ in 0..n_terms {
                let wire = cur.u32()?;
                if wire >= h.n_wires {
                    return Err(ctx
                        .invalid_at(
                            i,
                            format!(
                                "constraint {i}, {name}: wire {wire} is out of range ({} wires)",
                                h.n_wires
                            ),
                        )
                        .into());
                }
                let coeff: F = read_fe(cur.take(F::BYTES as u64)?, &ctx).map_err(|e| e.at(i))?;
                row.push((wire, coeff));
            }
        }
        visit(i, [&rows[0], &rows[1], &rows[2]])?;
    }
    cur.finish()?;
    Ok(())
}

fn parse_constraints<F: PrimeField>(bytes: &[u8], h: &R1csHeader, file: &str) -> Result<R1cs<F>> {
    let ctx = Ctx::new(file).section("section 2 (constraints)");
    let empty = || Csr::<F>::zeros(0, h.n_wires as usize).map_err(|e| ctx.invalid(e.to_string()));
    let mut mats = [empty()?, empty()?, empty()?];
    visit_constraints::<F, _>(bytes, h, file, |i, rows| {
        for (m, row) in mats.iter_mut().zip(rows) {
            m.push_row(row.iter().copied())
                .map_err(|e| ctx.invalid_at(i, e.to_string()))?;
        }
        Ok(())
    })?;
    let [a, b, c] = mats;
    R1cs::new(h.n_public(), a, b, c).map_err(|e| ctx.invalid(e.to_string()))
}
