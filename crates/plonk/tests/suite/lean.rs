//! Keys opened for bounded memory (coefficients and powers of tau left in the file): the
//! proof is the one the held key gives with the same blinding, for chunk sizes that do
//! and do not divide the domain; the points are still checked, a bad one named; such a
//! key is not written.

use fastzk_formats::{read_wtns, ErrorKind, PointCheck};
use fastzk_pairing::{Bls12_381, Bn254, Fr};
use fastzk_plonk::zkey::key_sizes;
use fastzk_plonk::{prove_with_rng, setup, verify, PlonkCircuit, Powers, ProveOptions, ProvingKey};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_runtime::LayerPairing;
use fastzk_testing::fixtures::{bytes, path as data};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn lean<E: LayerPairing>(path: &std::path::Path) -> ProvingKey<E> {
    ProvingKey::<E>::open_lean_with(path, |bytes| {
        // The pieces are the header and section 14, in order.
        let mut total = 0;
        bytes.for_each(&mut |piece| total += piece.len())?;
        assert!(total > 0);
        Ok(PointCheck::Subgroup)
    })
    .unwrap()
}

/// The held key's proof and the lean key's, same blinding, for several chunk sizes.
fn same_proofs<E: LayerPairing>(held: &ProvingKey<E>, lean: &ProvingKey<E>, witness: &[Fr<E>]) {
    assert!(lean.in_file.is_some() && lean.ptau.is_empty() && lean.q[0].is_empty());
    let n = held.domain_size();
    let (want, public, _) = prove_with_rng(
        held,
        witness,
        &ProveOptions::default(),
        &mut ChaCha20Rng::seed_from_u64(7),
    )
    .unwrap();
    assert!(verify(&held.vk, &public, &want).unwrap());
    for chunk in [
        None,
        Some(1),
        Some(3),
        Some(n / 2),
        Some(n + 6),
        Some(10 * n),
    ] {
        let opts = ProveOptions {
            chunk_points: chunk,
            ..ProveOptions::default()
        };
        let (got, got_public, _) =
            prove_with_rng(lean, witness, &opts, &mut ChaCha20Rng::seed_from_u64(7)).unwrap();
        assert_eq!(got, want, "chunk {chunk:?}");
        assert_eq!(got_public, public);
    }
}

pub fn snarkjs_keys_prove_alike_held_or_lean() {
    let zkey = data("bn254/poly_plonk.zkey");
    let held = ProvingKey::<Bn254>::open(&zkey, PointCheck::Subgroup).unwrap();
    let witness = read_wtns(data("bn254/poly.wtns")).unwrap();
    same_proofs(&held, &lean::<Bn254>(&zkey), &witness);
    let sizes = key_sizes(&zkey).unwrap();
    assert_eq!(sizes.domain_size, held.domain_size());
    assert_eq!(sizes.n_vars, held.n_vars);
    assert_eq!(sizes.n_constraints, held.n_constraints);
    assert_eq!(sizes.n_public, held.n_public());
    assert_eq!(sizes.n_additions, held.additions.len());

    let zkey = data("bls12_381/multiplier_plonk.zkey");
    let held = ProvingKey::<Bls12_381>::open(&zkey, PointCheck::Subgroup).unwrap();
    let witness = read_wtns(data("bls12_381/multiplier.wtns")).unwrap();
    same_proofs(&held, &lean::<Bls12_381>(&zkey), &witness);
}

pub fn a_synthetic_key_with_many_public_inputs_proves_alike() {
    type F = Fr<Bn254>;
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let params = SynthParams {
        n_public: 6,
        ..SynthParams::plonk(7)
    };
    let (r1cs, witness) = synthesize::<F>(&params, &mut rng).unwrap();
    let circuit = PlonkCircuit::from_r1cs(&r1cs);
    let pk = setup(
        &circuit,
        &Powers::<Bn254>::random(circuit.log_domain(), &mut rng),
    )
    .unwrap();
    let path = scratch("synth");
    pk.save(&path).unwrap();
    let lean_key = lean::<Bn254>(&path);
    same_proofs(&pk, &lean_key, &witness);
    // A key left in its file is proved with, not written.
    let e = lean_key.to_bytes().unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)), "{e}");
    std::fs::remove_file(&path).unwrap();
}

pub fn a_bad_power_of_tau_is_named_when_the_lean_key_is_opened() {
    let mut file = bytes("bn254/poly_plonk.zkey");
    let held = ProvingKey::<Bn254>::from_bytes(file.clone(), "k", PointCheck::Subgroup).unwrap();
    // Point 5 of section 14 gets a y coordinate off the curve.
    let first = section_start(&file, 14);
    let size = u64::from_le_bytes(file[first - 8..first].try_into().unwrap());
    assert_eq!(size as usize, (held.domain_size() + 6) * 64);
    let at = first + 5 * 64 + 40;
    file[at] ^= 1;
    let path = scratch("bad");
    std::fs::write(&path, &file).unwrap();
    let e = ProvingKey::<Bn254>::open_lean_with(&path, |_| Ok(PointCheck::OnCurve)).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("section 14"), "{text}");
    assert_eq!(e.index, Some(5), "{text}");
    // Trusted bytes are not checked again (the proof's self-check stays).
    assert!(ProvingKey::<Bn254>::open_lean_with(&path, |_| Ok(PointCheck::Prevalidated)).is_ok());
    std::fs::remove_file(&path).unwrap();
}

/// A file name of this test process's own in the temporary directory.
fn scratch(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("fastzk-lean-{}-{name}.zkey", std::process::id()))
}

/// Where section `id`'s bytes start in a binary file (its end if the id is not there): `magic, version, count`, then `id: u32, size: u64, bytes` each.
fn section_start(file: &[u8], id: u32) -> usize {
    let u32_at = |at: usize| u32::from_le_bytes(file[at..at + 4].try_into().unwrap());
    let mut at = 12;
    while at < file.len() {
        let size = u64::from_le_bytes(file[at + 4..at + 12].try_into().unwrap()) as usize;
        if u32_at(at) == id {
            return at + 12;
        }
        at += 12 + size;
    }
    file.len()
}
