//! Proving with bounded memory: the key is read a piece at a time from its bytes (a
//! memory-mapped file) and never decoded whole.
//!
//! The eager prover ([`crate::prove_with`]) decodes every query section and builds the
//! A and B matrices before it starts, which at 2^24 constraints is about 20 GiB. Here:
//!
//! * `A·z` and `B·z` are accumulated straight from section 4, a block of entries at a
//!   time (the products in parallel, the sums in file order), with the same index and
//!   range checks as the eager reader, each error naming its entry;
//! * the quotient's transforms run as in the eager prover, `p` written over `a`;
//! * each MSM walks its section in chunks of [`Bounded::chunk_points`] points:
//!   decode (and check) the chunk, one MSM of the fast engine, add the partial result,
//!   hand the chunk's bytes to [`Bounded::release`] (which gives a mapped file's pages
//!   back). Chunks of the fast engine rather than SimdMSM §5's streaming buckets
//!   ([`fastzk_msm::MsmStream`]): the engine keeps GLV and the IFMA flush, and with
//!   chunks of 2^20 points and more its cost per point is within a few percent of one
//!   MSM over the whole section.
//!
//! What stays in memory: the witness, three evaluation vectors of the domain's size
//! while the quotient is computed (then one), and one chunk of points. With the same
//! randomness the proof is identical to the eager prover's.

use fastzk_curve::serialize::SerializableCurve;
use fastzk_curve::Jacobian;
use fastzk_field::{Field, PrimeField};
use fastzk_formats::codec::{decode_points, point_len, read_mont, PointCheck};
use fastzk_formats::error::{Ctx, FormatError};
use fastzk_formats::snarkjs::montgomery_radix;
use fastzk_msm::{msm, msm_pair, MsmCurve};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;

use crate::prover::{check_witness, finish, odd_coset_quotient, Clock, MsmResults};
use crate::zkey::{coefficient_entries, coefficient_indices, entry_words, Section, ZkeyView};
use crate::{Fr, PairingCurve, Proof, ProveError, ProveOptions, ProveTimings};

/// How the bounded prover reads the key.
pub struct Bounded<'r> {
    /// Points decoded and multiplied at a time, per query section (at least 1).
    pub chunk_points: usize,
    /// Section 4 entries read at a time.
    pub block_entries: usize,
    /// How each point read is checked (as [`crate::Zkey::from_bytes_with`] would).
    pub check: PointCheck,
    /// Given each piece of the key's bytes once it has been read for the last time,
    /// so the pages of a mapped file can be dropped from memory.
    pub release: &'r (dyn Fn(&[u8]) + Sync),
}

impl Bounded<'_> {
    /// Chunks as large as `budget` bytes allow while B's G1 and G2 chunks are in flight
    /// together (their decoded points, the file's pages, the MSM engine's copies for GLV
    /// and the IFMA flush, the scalars' digits: 1,060 to 1,200 bytes a point for BN254,
    /// measured at 2^20 and 2^22, hence 10 × a G2 point's 128); at least 2^12.
    pub fn chunk_for_budget<E: PairingCurve>(budget: u64) -> usize {
        let per_point = 10 * point_len::<E::G2>() as u64;
        usize::try_from(budget / per_point)
            .unwrap_or(usize::MAX)
            .max(1 << 12)
    }
}

/// [`prove_bounded_with_rng`] with randomness from the OS CSPRNG.
pub fn prove_bounded<E: PairingCurve>(
    key: &ZkeyView<'_, E>,
    witness: &[Fr<E>],
    opts: &ProveOptions<'_, E>,
    bounded: &Bounded<'_>,
) -> Result<(Proof<E>, ProveTimings), ProveError> {
    prove_bounded_with_rng(key, witness, opts, bounded, &mut OsRng)
}

/// The proof of [`crate::prove_with_rng`] from a key read chunk by chunk (see the module
/// docs). `opts.offload` is not used: the device backend wants whole sections.
pub fn prove_bounded_with_rng<E: PairingCurve>(
    key: &ZkeyView<'_, E>,
    witness: &[Fr<E>],
    opts: &ProveOptions<'_, E>,
    bounded: &Bounded<'_>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<(Proof<E>, ProveTimings), ProveError> {
    let mut clock = Clock::new(opts.on_phase);
    check_witness(key.n_vars, key.n_public, witness, opts, &mut clock)?;
    let p = streamed_quotient(key, witness, bounded, &mut clock)?;
    let r = Fr::<E>::random(rng);
    let s = Fr::<E>::random(rng);

    let n_pub = key.n_public;
    let chunked =
        |s: Section, scalars: &[Fr<E>]| chunked_msm::<E::G1, E>(key, s, 0, scalars, bounded);
    let h = clock.run("msm h (g1), chunked", || chunked(Section::H, &p))?;
    drop(p);
    let a = clock.run("msm a (g1), chunked", || chunked(Section::A, witness))?;
    let (b1, b2) = clock.run("msm b (g1 + g2), chunked", || {
        chunked_msm_pair(key, 0, witness, bounded)
    })?;
    let c = clock.run("msm c (g1), chunked", || {
        chunked(Section::C, &witness[n_pub + 1..])
    })?;
    let parts = MsmResults { a, b1, b2, c, h };
    let proof = finish(
        &key.vk,
        key.beta_g1,
        key.delta_g1,
        parts,
        (r, s),
        witness,
        opts,
        &mut clock,
    )?;
    Ok((proof, clock.timings))
}

/// The quotient's coefficients `p` (on the odd coset), `A·z` and `B·z` read from
/// section 4 a block at a time.
pub(crate) fn streamed_quotient<E: PairingCurve>(
    key: &ZkeyView<'_, E>,
    witness: &[Fr<E>],
    bounded: &Bounded<'_>,
    clock: &mut Clock<'_>,
) -> Result<Vec<Fr<E>>, ProveError> {
    let ctx = Ctx::new(&key.file);
    let abc = clock.run("spmv (a·z, b·z), streamed", || {
        let [a, b] = coefficient_products::<E>(key, witness, bounded, &ctx)?;
        let c: Vec<Fr<E>> = a.par_iter().zip(&b).map(|(x, y)| *x * *y).collect();
        Ok::<_, ProveError>([a, b, c])
    })?;
    clock.run("ntt (h on odd coset)", || {
        odd_coset_quotient::<E>(key.log_domain, key.omega_2n, abc)
    })
}

/// Chunk `k` of `count` items: `[start, end)`.
fn chunks(count: usize, size: usize) -> impl Iterator<Item = (usize, usize)> {
    let size = size.max(1);
    (0..count.div_ceil(size)).map(move |k| (k * size, ((k + 1) * size).min(count)))
}

/// Points `[start, end)` of a section, decoded and checked; errors name the point's
/// index in the whole section.
fn decode_chunk<'a, C: SerializableCurve + MsmCurve, E: PairingCurve>(
    key: &ZkeyView<'a, E>,
    s: Section,
    (start, end): (usize, usize),
    check: PointCheck,
) -> Result<(Vec<fastzk_curve::Affine<C>>, &'a [u8]), FormatError> {
    let len = point_len::<C>();
    let bytes = &key.bytes(s)[start * len..end * len];
    let ctx = Ctx::new(&key.file);
    let points = decode_points::<C>(bytes, (end - start) as u64, check, &ctx.section(s.name()))
        .map_err(|mut e| {
            e.index = e.index.map(|i| i + start as u64);
            e
        })?;
    Ok((points, bytes))
}

/// `Σ scalars[i]·P[first + i]` over points `first..first + scalars.len()` of section `s`,
/// a chunk at a time.
pub(crate) fn chunked_msm<C: SerializableCurve + MsmCurve<Scalar = Fr<E>>, E: PairingCurve>(
    key: &ZkeyView<'_, E>,
    s: Section,
    first: usize,
    scalars: &[Fr<E>],
    bounded: &Bounded<'_>,
) -> Result<Jacobian<C>, ProveError> {
    let mut sum = Jacobian::<C>::identity();
    for (start, end) in chunks(scalars.len(), bounded.chunk_points) {
        let range = (first + start, first + end);
        let (points, bytes) = decode_chunk::<C, E>(key, s, range, bounded.check)?;
        sum += msm(&points, &scalars[start..end])?;
        drop(points);
        (bounded.release)(bytes);
    }
    Ok(sum)
}

/// B in G1 and in G2.
type BResults<E> = (
    Jacobian<<E as PairingCurve>::G1>,
    Jacobian<<E as PairingCurve>::G2>,
);

/// B in G1 and G2 over variables `first..first + witness.len()`, with one pass over the
/// scalars per chunk.
pub(crate) fn chunked_msm_pair<E: PairingCurve>(
    key: &ZkeyView<'_, E>,
    first: usize,
    witness: &[Fr<E>],
    bounded: &Bounded<'_>,
) -> Result<BResults<E>, ProveError> {
    let mut sums = (Jacobian::identity(), Jacobian::identity());
    for (start, end) in chunks(witness.len(), bounded.chunk_points) {
        let range = (first + start, first + end);
        let (g1, g1_bytes) = decode_chunk::<E::G1, E>(key, Section::B1, range, bounded.check)?;
        let (g2, g2_bytes) = decode_chunk::<E::G2, E>(key, Section::B2, range, bounded.check)?;
        let (b1, b2) = msm_pair(&g1, &g2, &witness[start..end])?;
        sums = (sums.0 + b1, sums.1 + b2);
        drop((g1, g2));
        (bounded.release)(g1_bytes);
        (bounded.release)(g2_bytes);
    }
    Ok(sums)
}

/// `A·z` and `B·z` on `H` from section 4, `block_entries` entries at a time.
fn coefficient_products<E: PairingCurve>(
    key: &ZkeyView<'_, E>,
    witness: &[Fr<E>],
    bounded: &Bounded<'_>,
    ctx: &Ctx<'_>,
) -> Result<[Vec<Fr<E>>; 2], ProveError> {
    let ctx = ctx.section("section 4 (coefficients)");
    let entries = coefficient_entries::<E>(key.coefficients, &ctx)?;
    let entry = 12 + Fr::<E>::BYTES;
    let (n_vars, domain) = (key.n_vars as u64, key.domain_size() as u64);
    let mut out = [
        vec![Fr::<E>::ZERO; key.domain_size()],
        vec![Fr::<E>::ZERO; key.domain_size()],
    ];
    let block = bounded.block_entries.max(1) * entry;
    for (k, bytes) in entries.chunks(block).enumerate() {
        let first = (k * bounded.block_entries.max(1)) as u64;
        // The stored value is `coef·R` read as Montgomery: `v·z` is `coef·z·R`, and the
        // sums are brought back with one product by `R⁻¹` each at the end.
        let products: Vec<Fr<E>> = bytes
            .par_chunks_exact(entry)
            .enumerate()
            .map(|(i, e)| {
                let at = first + i as u64;
                let (_, _, col) = coefficient_indices(e, at, n_vars, domain, &ctx)?;
                let v: Fr<E> = read_mont(&e[12..], &ctx).map_err(|e| e.at(at))?;
                Ok(v * witness[col])
            })
            .collect::<Result<_, FormatError>>()?;
        for (e, p) in bytes.chunks_exact(entry).zip(&products) {
            let (matrix, row, _) = entry_words(e);
            out[matrix as usize][row as usize] += *p;
        }
        (bounded.release)(bytes);
    }
    let r_inv = montgomery_radix::<Fr<E>>()
        .inverse()
        .expect("R is invertible");
    for v in &mut out {
        v.par_iter_mut().for_each(|x| *x *= r_inv);
    }
    Ok(out)
}
