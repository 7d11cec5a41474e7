//! The development setup of [`crate::setup_random`], written straight to a `.zkey` file.
//!
//! The in-memory setup holds the circuit's matrices and every query point at once:
//! about 1 KiB per constraint, 16 GiB at 2^24. Here the circuit is read one constraint at
//! a time (from a memory-mapped `.r1cs`, say) and each query section is computed and
//! written a chunk of points at a time, so what is held is the three column values per
//! variable (`A_i(τ)`, `B_i(τ)`, `C_i(τ)`) and, for a moment, the Lagrange weights of
//! the rows: 96 bytes per variable and 32 per row, about 8 GiB at 2^26. Same generator,
//! same draws: the file is byte for byte the one [`crate::write_zkey`] writes for
//! [`crate::setup_random`]'s key (a test checks it).

use std::path::Path;

use fastzk_curve::serialize::SerializableCurve;
use fastzk_curve::{Affine, FixedBase};
use fastzk_field::{Field, PrimeField};
use fastzk_formats::binfile::{BinWriter, SizedSectionError};
use fastzk_formats::codec::{encode_points, point_len};
use fastzk_formats::{Constraint, R1csView};
use fastzk_r1cs::R1cs;
use rand_core::{CryptoRng, RngCore};

use crate::setup::{domain, lagrange_range, single_points, SetupError, Toxic};
use crate::zkey::{coefficient_factor, write_head, MAGIC};
use crate::{Fr, PairingCurve, VerifyingKey};

/// Points computed and written per step (a few MiB of G2 points); small in the unit
/// tests, so that small circuits cross chunk boundaries.
const CHUNK: usize = if cfg!(test) { 1 << 7 } else { 1 << 16 };

/// A constraint system setup can walk: its counts and its rows in order.
pub trait ConstraintSource<F> {
    fn n_constraints(&self) -> usize;
    /// Public variables, the constant one excluded.
    fn n_public(&self) -> usize;
    /// Variables, the constant one included.
    fn n_vars(&self) -> usize;
    /// `visit(i, [A, B, C])` for every constraint in order, each row as its terms.
    fn visit(&self, visit: &mut dyn FnMut(usize, Constraint<'_, F>)) -> Result<(), SetupError>;
}

impl<F: PrimeField> ConstraintSource<F> for R1cs<F> {
    fn n_constraints(&self) -> usize {
        R1cs::n_constraints(self)
    }
    fn n_public(&self) -> usize {
        R1cs::n_public(self)
    }
    fn n_vars(&self) -> usize {
        R1cs::n_vars(self)
    }
    fn visit(&self, visit: &mut dyn FnMut(usize, Constraint<'_, F>)) -> Result<(), SetupError> {
        let mut rows: [Vec<(u32, F)>; 3] = Default::default();
        for i in 0..R1cs::n_constraints(self) {
            for (row, m) in rows.iter_mut().zip([self.a(), self.b(), self.c()]) {
                let (cols, vals) = m.row(i);
                row.clear();
                row.extend(cols.iter().copied().zip(vals.iter().copied()));
            }
            visit(i, [&rows[0], &rows[1], &rows[2]]);
        }
        Ok(())
    }
}

impl<F: PrimeField> ConstraintSource<F> for R1csView<'_, F> {
    fn n_constraints(&self) -> usize {
        self.header.n_constraints as usize
    }
    fn n_public(&self) -> usize {
        self.header.n_public()
    }
    fn n_vars(&self) -> usize {
        self.header.n_wires as usize
    }
    fn visit(&self, visit: &mut dyn FnMut(usize, Constraint<'_, F>)) -> Result<(), SetupError> {
        self.visit_constraints::<SetupError>(|i, rows| {
            visit(i as usize, rows);
            Ok(())
        })
    }
}

/// Writes a random development key for `circuit` to `path` (**not for production**, see
/// [`crate::setup`]) and returns its verifying key. `on_section` hears the name of each
/// section as its work starts (a long setup can show where it is).
pub fn setup_random_to_file<E: PairingCurve>(
    circuit: &dyn ConstraintSource<Fr<E>>,
    path: &Path,
    rng: &mut (impl RngCore + CryptoRng),
    on_section: &mut dyn FnMut(&'static str),
) -> Result<VerifyingKey<E>, SetupError> {
    let (m, n_pub, n_vars) = (
        circuit.n_constraints(),
        circuit.n_public(),
        circuit.n_vars(),
    );
    if n_pub >= n_vars {
        return Err(SetupError::Invalid(format!(
            "{n_pub} public variables need more than the circuit's {n_vars} variables"
        )));
    }
    let (log_n, omega_2n) = domain::<E>(m, n_pub)?;
    let n = 1usize << log_n;
    let t = Toxic::<Fr<E>>::draw(rng, log_n);

    // Pass 1: each variable's A_i(τ), B_i(τ), C_i(τ), and section 4's entry count.
    on_section("columns at tau");
    let lag = lagrange_range(t.tau, log_n, omega_2n.square(), 0, 1, n);
    let mut sums = [(); 3].map(|_| vec![Fr::<E>::ZERO; n_vars]);
    let mut entries = 0u64;
    circuit.visit(&mut |i, rows| {
        for (sum, row) in sums.iter_mut().zip(rows) {
            for &(col, v) in row {
                sum[col as usize] += v * lag[i];
            }
        }
        entries += (rows[0].len() + rows[1].len()) as u64;
    })?;
    // snarkjs' rows for the public variables: A[m + i][i] = 1.
    for i in 0..=n_pub {
        sums[0][i] += lag[m + i];
    }
    entries += n_pub as u64 + 1;
    drop(lag);
    let [at, bt, ct] = sums;
    let (ic_scalars, c_scalars) = t.combined(&at, &bt, &ct, n_pub);
    drop(ct);
    let entries = u32::try_from(entries).map_err(|_| {
        SetupError::Invalid(format!(
            "{entries} matrix entries: a .zkey counts them in 32 bits"
        ))
    })?;

    let g1 = FixedBase::<E::G1>::new(&Affine::generator());
    let g2 = FixedBase::<E::G2>::new(&Affine::generator());
    let (vk, beta_g1, delta_g1) = single_points(&t, &ic_scalars, &g1, &g2);

    let mut w = BinWriter::create(path, MAGIC, 1)?;
    let written = (|| {
        write_head(&mut w, &vk, [&beta_g1, &delta_g1], [n_vars, n_pub, n]);

        // Pass 2: section 4, row by row, A's entries before B's (snarkjs' order).
        on_section("coefficients");
        let r2 = coefficient_factor::<E>();
        let entry_len = 12 + Fr::<E>::BYTES as u64;
        w.section_sized(4, 4 + entries as u64 * entry_len, |put| {
            put(&entries.to_le_bytes());
            let mut piece = Vec::with_capacity(1 << 16);
            let mut push =
                |matrix: u32, row: usize, col: u32, v: Fr<E>, put: &mut dyn FnMut(&[u8])| {
                    for word in [matrix, row as u32, col] {
                        piece.extend_from_slice(&word.to_le_bytes());
                    }
                    piece.extend_from_slice(&(v * r2).to_le_bytes());
                    if piece.len() >= 1 << 16 {
                        put(&piece);
                        piece.clear();
                    }
                };
            circuit.visit(&mut |i, rows| {
                for (matrix, row) in [(0u32, rows[0]), (1, rows[1])] {
                    for &(col, v) in row {
                        push(matrix, i, col, v, put);
                    }
                }
            })?;
            for i in 0..=n_pub {
                push(0, m + i, i as u32, Fr::<E>::ONE, put);
            }
            put(&piece);
            Ok::<(), SetupError>(())
        })
        .map_err(sized)?;

        on_section("A query");
        write_query(&mut w, 5, &g1, at.len(), |r| at[r].to_vec())?;
        drop(at);
        on_section("B query (G1)");
        write_query(&mut w, 6, &g1, bt.len(), |r| bt[r].to_vec())?;
        on_section("B query (G2)");
        write_query(&mut w, 7, &g2, bt.len(), |r| bt[r].to_vec())?;
        drop(bt);
        on_section("C query");
        write_query(&mut w, 8, &g1, c_scalars.len(), |r| c_scalars[r].to_vec())?;
        drop(c_scalars);
        on_section("H query");
        write_query(&mut w, 9, &g1, n, |r| t.h_scalars(log_n, omega_2n, r))?;
        w.raw_section(10, &crate::zkey::empty_contributions());
        w.finish_file()?;
        Ok::<(), SetupError>(())
    })();
    if written.is_err() {
        // No half-written key is left behind (the error says why).
        std::fs::remove_file(path).ok();
    }
    written?;
    Ok(vk)
}

fn sized(e: SizedSectionError<SetupError>) -> SetupError {
    match e {
        SizedSectionError::Fill(e) => e,
        e => SetupError::Invalid(e.to_string()),
    }
}

/// Section `id`: `[kᵢ]G` for `count` scalars, computed and written `CHUNK` at a time.
fn write_query<C: SerializableCurve>(
    w: &mut BinWriter,
    id: u32,
    base: &FixedBase<C>,
    count: usize,
    scalars: impl Fn(std::ops::Range<usize>) -> Vec<C::Scalar>,
) -> Result<(), SetupError> {
    let len = (count * point_len::<C>()) as u64;
    w.section_sized(id, len, |put| {
        let mut piece = Vec::new();
        for start in (0..count).step_by(CHUNK) {
            let points = base.mul_many(&scalars(start..count.min(start + CHUNK)));
            piece.clear();
            encode_points(&mut piece, &points);
            put(&piece);
        }
        Ok::<(), SetupError>(())
    })
    .map_err(sized)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{setup_random, write_zkey};
    use fastzk_formats::R1csFile;
    use fastzk_pairing::{Bls12_381, Bn254};
    use fastzk_r1cs::synth::{synthesize, SynthParams};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn assert_same_file(got: &Path, want: &Path) {
        let (got, want) = (std::fs::read(got).unwrap(), std::fs::read(want).unwrap());
        let first = got.iter().zip(&want).position(|(a, b)| a != b);
        assert!(
            got.len() == want.len() && first.is_none(),
            "{} bytes against {}, first difference at {first:?}",
            got.len(),
            want.len()
        );
    }

    fn same_file_as_in_memory<E: PairingCurve>(log_size: u32, n_public: usize, seed: u64) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let params = SynthParams {
            n_public,
            ..SynthParams::new(log_size)
        };
        let (r1cs, _) = synthesize::<Fr<E>>(&params, &mut rng).unwrap();
        let dir = std::env::temp_dir();
        let tag = format!("{}-{log_size}-{seed}", std::process::id());
        let (expected, streamed) = (
            dir.join(format!("fastzk-setup-mem-{tag}.zkey")),
            dir.join(format!("fastzk-setup-file-{tag}.zkey")),
        );
        let in_memory = |r1cs: &R1cs<Fr<E>>| {
            let pk = setup_random::<E>(r1cs, &mut ChaCha20Rng::seed_from_u64(seed + 1)).unwrap();
            write_zkey(&expected, &pk).unwrap();
            pk.vk
        };
        let streamed_from = |circuit: &dyn ConstraintSource<Fr<E>>| {
            let mut sections = Vec::new();
            let vk = setup_random_to_file::<E>(
                circuit,
                &streamed,
                &mut ChaCha20Rng::seed_from_u64(seed + 1),
                &mut |s| sections.push(s),
            )
            .unwrap();
            assert_eq!(sections.len(), 7, "{sections:?}");
            vk
        };

        // From the matrices in memory.
        assert_eq!(streamed_from(&r1cs), in_memory(&r1cs));
        assert_same_file(&streamed, &expected);

        // From the .r1cs file read in place (whose rows have repeated wires merged, so
        // the reference is the circuit read back from the same bytes).
        let bytes = R1csFile::from_r1cs(r1cs).to_bytes();
        let view = R1csView::<Fr<E>>::parse(&bytes, "synthetic.r1cs").unwrap();
        let parsed = R1csFile::<Fr<E>>::from_bytes(&bytes, "synthetic.r1cs").unwrap();
        assert_eq!(streamed_from(&view), in_memory(&parsed.r1cs));
        assert_same_file(&streamed, &expected);
        std::fs::remove_file(&streamed).unwrap();
        std::fs::remove_file(&expected).unwrap();
    }

    #[test]
    fn the_streamed_key_is_byte_for_byte_the_in_memory_one() {
        // 2^10 crosses CHUNK boundaries in every section sized by the circuit.
        same_file_as_in_memory::<Bn254>(10, 3, 1);
        same_file_as_in_memory::<Bn254>(4, 1, 2);
        same_file_as_in_memory::<Bls12_381>(6, 2, 3);
    }

    #[test]
    fn a_key_that_cannot_be_written_or_a_circuit_that_is_malformed_is_an_error() {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        let (r1cs, _) = synthesize::<Fr<Bn254>>(&SynthParams::new(4), &mut rng).unwrap();
        let e = setup_random_to_file::<Bn254>(
            &r1cs,
            Path::new("/nonexistent/dir/k.zkey"),
            &mut rng,
            &mut |_| {},
        )
        .unwrap_err();
        assert!(e.to_string().contains("/nonexistent/dir/k.zkey"), "{e}");

        // A wire past the header's count, found while walking the file.
        let mut bytes = R1csFile::from_r1cs(r1cs).to_bytes();
        let view = R1csView::<Fr<Bn254>>::parse(&bytes, "c.r1cs").unwrap();
        let n_wires = view.header.n_wires;
        // The file header (12 bytes), section 2's id and size (12), constraint 0's count
        // of A terms (4): then its first wire.
        let first_wire = 28;
        bytes[first_wire..first_wire + 4].copy_from_slice(&n_wires.to_le_bytes());
        let view = R1csView::<Fr<Bn254>>::parse(&bytes, "c.r1cs").unwrap();
        let path = std::env::temp_dir().join(format!("fastzk-bad-{}.zkey", std::process::id()));
        let e = setup_random_to_file::<Bn254>(&view, &path, &mut rng, &mut |_| {}).unwrap_err();
        std::fs::remove_file(&path).ok(); // created or not, it goes
        assert!(e.to_string().contains("out of range"), "{e}");
    }
}
