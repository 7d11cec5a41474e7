//! The bounded-memory prover against the eager one: with the same randomness the proofs
//! are identical, whatever the chunk and block sizes; every byte of the large sections
//! is handed back once read; a bad point or entry is named by its index in the section.

use std::sync::Mutex;

use fastzk_formats::codec::{point_len, PointCheck};
use fastzk_formats::error::FormatError;
use fastzk_groth16::{
    prove_bounded_with_rng, prove_with_rng, setup_random, verify, Bounded, ProveError,
    ProveOptions, Section, Zkey, ZkeyView,
};
use fastzk_pairing::{Bls12_381, Bn254, Fr, PairingCurve};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// A synthetic circuit's zkey bytes and witness.
fn instance<E: PairingCurve>(log: u32, n_public: usize) -> (Vec<u8>, Vec<Fr<E>>) {
    let mut rng = ChaCha20Rng::seed_from_u64(log as u64);
    let params = SynthParams {
        n_public,
        ..SynthParams::new(log)
    };
    let (r1cs, z) = synthesize::<Fr<E>>(&params, &mut rng).unwrap();
    let pk = setup_random::<E>(&r1cs, &mut rng).unwrap();
    (Zkey::new(pk).to_bytes().unwrap(), z)
}

/// Byte ranges (relative to the key) handed to `release`.
struct Released<'a> {
    base: &'a [u8],
    ranges: Mutex<Vec<(usize, usize)>>,
}

impl Released<'_> {
    fn record(&self, piece: &[u8]) {
        let start = piece.as_ptr() as usize - self.base.as_ptr() as usize;
        self.ranges
            .lock()
            .unwrap()
            .push((start, start + piece.len()));
    }
}

fn bounded<'r>(chunk: usize, block: usize, release: &'r (dyn Fn(&[u8]) + Sync)) -> Bounded<'r> {
    Bounded {
        chunk_points: chunk,
        block_entries: block,
        check: PointCheck::Subgroup,
        release,
    }
}

fn same_proof_as_eager<E: PairingCurve>() {
    for (log, n_public) in [(3, 1), (7, 2), (10, 4)] {
        let (bytes, z) = instance::<E>(log, n_public);
        let eager = Zkey::<E>::from_bytes(&bytes, "k.zkey", fastzk_formats::Validate::Yes)
            .unwrap()
            .proving_key;
        let opts = ProveOptions::default();
        let (expected, _) =
            prove_with_rng(&eager, &z, &opts, &mut ChaCha20Rng::seed_from_u64(1)).unwrap();
        let view = ZkeyView::<E>::parse(&bytes, "k.zkey", PointCheck::Subgroup).unwrap();
        for (chunk, block) in [(1, 1), (3, 5), (7, 64), (1 << 20, 1 << 20)] {
            let released = Released {
                base: &bytes,
                ranges: Mutex::new(Vec::new()),
            };
            let release = |b: &[u8]| released.record(b);
            let (proof, timings) = prove_bounded_with_rng(
                &view,
                &z,
                &opts,
                &bounded(chunk, block, &release),
                &mut ChaCha20Rng::seed_from_u64(1),
            )
            .unwrap();
            assert_eq!(proof, expected, "2^{log}, chunk {chunk}, block {block}");
            assert!(verify(&eager.vk, &z[1..=n_public], &proof).unwrap());
            assert!(timings.phases.iter().any(|(p, _)| p.contains("chunked")));

            // Each query section and section 4's entries, released exactly once.
            let mut ranges = released.ranges.into_inner().unwrap();
            ranges.sort();
            let mut expected_ranges: Vec<(usize, usize)> =
                [Section::A, Section::B1, Section::B2, Section::C, Section::H]
                    .iter()
                    .map(|s| view.bytes(*s))
                    .chain([&view.coefficients[4..]])
                    .filter(|b| !b.is_empty())
                    .map(|b| {
                        let s = b.as_ptr() as usize - bytes.as_ptr() as usize;
                        (s, s + b.len())
                    })
                    .collect();
            expected_ranges.sort();
            let mut merged: Vec<(usize, usize)> = Vec::new();
            for (s, e) in ranges {
                match merged.last_mut() {
                    Some(last) if last.1 == s => last.1 = e,
                    _ => merged.push((s, e)),
                }
            }
            // Sections lie back to back only across headers, so merging stops at each.
            assert_eq!(merged, expected_ranges, "chunk {chunk}, block {block}");
        }
    }
}

#[test]
fn bounded_proof_is_the_eager_proof_bn254() {
    same_proof_as_eager::<Bn254>();
}

#[test]
fn bounded_proof_is_the_eager_proof_bls12_381() {
    same_proof_as_eager::<Bls12_381>();
}

#[test]
fn a_bad_point_or_entry_is_named_by_its_index_in_the_section() {
    let (mut bytes, z) = instance::<Bn254>(6, 2);
    let view = ZkeyView::<Bn254>::parse(&bytes, "k.zkey", PointCheck::Subgroup).unwrap();
    // Point 37 of the H query (chunks of 8: the fifth chunk), y coordinate bumped.
    let len = point_len::<<Bn254 as PairingCurve>::G1>();
    let h = view.bytes(Section::H).as_ptr() as usize - bytes.as_ptr() as usize;
    let coef = view.coefficients.as_ptr() as usize - bytes.as_ptr() as usize;
    drop(view);
    let mut bad_point = bytes.clone();
    bad_point[h + 37 * len + len / 2] ^= 1;
    // Entry 11 of section 4 (blocks of 4): its signal index out of range.
    let entry = 12 + 32;
    bytes[coef + 4 + 11 * entry + 8..coef + 4 + 11 * entry + 12]
        .copy_from_slice(&u32::MAX.to_le_bytes());
    let release = |_: &[u8]| {};
    for (key, section, index) in [
        (&bad_point, "section 9 (H)", 37),
        (&bytes, "section 4 (coefficients)", 11),
    ] {
        let view = ZkeyView::<Bn254>::parse(key, "k.zkey", PointCheck::Subgroup).unwrap();
        let e = prove_bounded_with_rng(
            &view,
            &z,
            &ProveOptions::default(),
            &bounded(8, 4, &release),
            &mut ChaCha20Rng::seed_from_u64(1),
        )
        .unwrap_err();
        let ProveError::Format(FormatError {
            section: Some(s),
            index: Some(i),
            ..
        }) = &e
        else {
            panic!("{e:?}")
        };
        assert_eq!((s.as_str(), *i), (section, index), "{e}");
    }
}

#[test]
fn chunks_follow_the_budget() {
    // 10 × a 128-byte BN254 G2 point per chunk point; never below 2^12.
    assert_eq!(Bounded::chunk_for_budget::<Bn254>(1280 << 20), 1 << 20);
    assert_eq!(Bounded::chunk_for_budget::<Bn254>(0), 1 << 12);
}
