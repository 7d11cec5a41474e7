//! The proof file: write → read is the identity, a stored file from an earlier build
//! still reads and verifies (the format is stable), and every malformed file — every
//! truncation, every header byte changed, counts larger than the file — gives an error
//! naming the problem, never a panic or a large allocation.

use fastzk_field::{bn254, Goldilocks, GoldilocksExt3, NttField};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use fastzk_r1cs::R1cs;
use fastzk_spartan::format::{read_proof, sniff_field, write_proof};
use fastzk_spartan::{prove, verify, Proof, SpartanParams};
use fastzk_testing::gen::rng;

type Gl3 = GoldilocksExt3;
const FIXTURE: &str = "spartan/synth4_goldilocks.proof";

fn instance<F: NttField>(log: u32, seed: u64) -> (R1cs<F>, Vec<F>) {
    synthesize(&SynthParams::new(log), &mut rng(seed)).unwrap()
}

pub fn write_then_read_is_the_identity() {
    let params = SpartanParams::default();
    let (r1cs, z) = instance::<Goldilocks>(9, 1);
    let proof: Proof<Goldilocks, Gl3> = prove(&params, &r1cs, &z).unwrap();
    let bytes = write_proof(&params, &proof);
    // The elements plus a header and counts of a few hundred bytes.
    assert!((proof.size_bytes()..proof.size_bytes() + 300).contains(&bytes.len()));
    let (p2, back) = read_proof::<Goldilocks, Gl3>(&bytes, "t.proof").unwrap();
    assert_eq!(p2, params);
    assert_eq!(back, proof);
    assert_eq!(sniff_field(&bytes), Some(1));
    verify(&p2, &r1cs, &z[1..2], &back).unwrap();

    let (r1cs, z) = instance::<bn254::Fr>(6, 2);
    let proof: Proof<bn254::Fr, bn254::Fr> = prove(&params, &r1cs, &z).unwrap();
    let bytes = write_proof(&params, &proof);
    let (_, back) = read_proof::<bn254::Fr, bn254::Fr>(&bytes, "t.proof").unwrap();
    assert_eq!(back, proof);
    assert_eq!(sniff_field(&bytes), Some(2));
    // The wrong field or extension for the file.
    assert!(read_proof::<Goldilocks, Gl3>(&bytes, "t.proof").is_err());
}

pub fn the_stored_proof_still_reads_and_verifies() {
    let path = fastzk_testing::fixtures::path(FIXTURE);
    let (r1cs, z) = instance::<Goldilocks>(4, 4);
    if std::env::var_os("FASTZK_WRITE_FIXTURES").is_some() {
        let proof: Proof<Goldilocks, Gl3> = prove(&SpartanParams::default(), &r1cs, &z).unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, write_proof(&SpartanParams::default(), &proof)).unwrap();
    }
    let bytes = fastzk_testing::fixtures::bytes(FIXTURE);
    let (params, proof) = read_proof::<Goldilocks, Gl3>(&bytes, FIXTURE).unwrap();
    verify(&params, &r1cs, &z[1..2], &proof).unwrap();
}

pub fn malformed_files_are_refused_with_a_reason() {
    let bytes = fastzk_testing::fixtures::bytes(FIXTURE);
    let read = |b: &[u8]| read_proof::<Goldilocks, Gl3>(b, "t.proof");
    // Every truncation in the header and the first values, then every 61st length and
    // the last ones (a full pass reads the file once per length).
    let n = bytes.len();
    let lengths = (0..400.min(n))
        .chain((400..n).step_by(61))
        .chain(n.saturating_sub(100)..n);
    for len in lengths {
        let e = read(&bytes[..len]).unwrap_err();
        assert!(e.to_string().starts_with("t.proof: at byte"), "{e}");
    }
    // Trailing bytes.
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(read(&longer).unwrap_err().what.contains("after the proof"));
    // Every header byte changed (magic, version, field, degree, hash, zk, rows, blowup,
    // queries, repetitions, witness size).
    for i in 0..26 {
        let mut b = bytes.clone();
        b[i] = b[i].wrapping_add(0x41);
        match read(&b) {
            Err(_) => {}
            // A changed parameter that still parses must not verify.
            Ok((params, proof)) => {
                let (r1cs, z) = instance::<Goldilocks>(4, 4);
                assert!(
                    verify(&params, &r1cs, &z[1..2], &proof).is_err(),
                    "byte {i}"
                );
            }
        }
    }
    // A count far beyond the file: refused before allocating.
    // (Bytes 58..82 are the outer mask sum, 82..86 count the outer sumcheck's rounds,
    // 86..90 the first round's values, which start at 90.)
    let mut b = bytes.clone();
    b[82..86].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(read(&b).is_err());
    let mut b = bytes.clone();
    b[86..90].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(read(&b).is_err());
    // A non-canonical element (all ones is above the Goldilocks modulus).
    let mut b = bytes.clone();
    let at = 90;
    b[at..at + 8].copy_from_slice(&[0xff; 8]);
    let e = read(&b).unwrap_err();
    assert!(
        e.what.contains("canonical") || e.what.contains("items"),
        "{e}"
    );
    assert!(read(b"fzsp").is_err());
    assert!(read(b"").is_err());
}

pub fn counts_of_empty_rows_are_bounded() {
    // Found by fuzzing: 2^32 − 1 sumcheck rounds of zero values each fit in no bytes at
    // all, and used to allocate as many empty vectors.
    let bytes = fastzk_testing::fixtures::bytes(FIXTURE);
    let mut b = bytes[..82].to_vec();
    b.extend_from_slice(&u32::MAX.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    let e = read_proof::<Goldilocks, Gl3>(&b, "t.proof").unwrap_err();
    assert!(e.what.contains("rounds, at most 64"), "{e}");
}

pub fn snark_proofs_and_keys_write_then_read_and_refuse_damage() {
    use fastzk_spartan::format::{
        is_key, read_key, read_snark_proof, write_key, write_snark_proof,
    };
    use fastzk_spartan::{prove_snark, setup, verify_snark, SnarkProof};
    let params = SpartanParams::default();
    let (r1cs, z) = instance::<Goldilocks>(5, 6);
    let pk = setup::<Goldilocks, Gl3>(&params, r1cs).unwrap();
    let proof: SnarkProof<Goldilocks, Gl3> = prove_snark(&params, &pk, &z).unwrap();
    let bytes = write_snark_proof(&params, &proof);
    assert!((proof.size_bytes()..proof.size_bytes() + 600).contains(&bytes.len()));
    let (p2, back) = read_snark_proof::<Goldilocks, Gl3>(&bytes, "s.proof").unwrap();
    assert_eq!((p2, &back), (params, &proof));
    assert_eq!(sniff_field(&bytes), Some(1));
    verify_snark(&params, &pk.vk, &z[1..2], &back).unwrap();
    // A NIZK reader refuses a SNARK proof and the other way round.
    assert!(read_proof::<Goldilocks, Gl3>(&bytes, "s.proof").is_err());
    let nizk = write_proof(&params, &proof.proof);
    assert!(read_snark_proof::<Goldilocks, Gl3>(&nizk, "n.proof").is_err());
    // Truncations (sampled: each read is linear), trailing bytes, huge counts.
    let n = bytes.len();
    for len in (0..300).chain((300..n).step_by(997)).chain(n - 50..n) {
        let e = read_snark_proof::<Goldilocks, Gl3>(&bytes[..len], "s.proof").unwrap_err();
        assert!(e.to_string().starts_with("s.proof: at byte"), "{e}");
    }
    let mut longer = bytes.clone();
    longer.push(1);
    assert!(read_snark_proof::<Goldilocks, Gl3>(&longer, "s.proof").is_err());

    // The key: the verifying key and the circuit's bytes.
    let circuit = b"stand-in for the .r1cs bytes".to_vec();
    let key = write_key::<Goldilocks, Gl3>(&params, &pk.vk, &circuit);
    assert!(is_key(&key) && !is_key(&bytes));
    assert_eq!(sniff_field(&key), Some(1));
    let (kp, vk, rest) = read_key::<Goldilocks, Gl3>(&key, "c.skey").unwrap();
    assert_eq!((kp, vk, rest), (params, pk.vk, circuit.as_slice()));
    for len in 0..key.len() - circuit.len() {
        assert!(
            read_key::<Goldilocks, Gl3>(&key[..len], "c.skey").is_err(),
            "{len}"
        );
    }
    // Sizes that do not agree, or a circuit length that is not the file's.
    let at = key.len() - circuit.len() - 8 - 64 - 4;
    let mut b = key.clone();
    b[at + 1] = 3; // log_mem
    let e = read_key::<Goldilocks, Gl3>(&b, "c.skey").unwrap_err();
    assert!(e.what.contains("do not agree"), "{e}");
    let mut b = key.clone();
    b.push(0);
    let e = read_key::<Goldilocks, Gl3>(&b, "c.skey").unwrap_err();
    assert!(e.what.contains("announced"), "{e}");
    // A changed root reads, and then fails to verify.
    let mut b = key.clone();
    b[at + 4] ^= 1;
    let (_, bad_vk, _) = read_key::<Goldilocks, Gl3>(&b, "c.skey").unwrap();
    assert!(verify_snark(&params, &bad_vk, &z[1..2], &proof).is_err());
}

const SNARK_FIXTURE: &str = "spartan/synth4_goldilocks_snark.proof";
const KEY_FIXTURE: &str = "spartan/synth4_goldilocks.skey";

/// A SNARK proof and key from an earlier build still read, and the proof verifies
/// against the key (`FASTZK_WRITE_FIXTURES=1` rewrites them). The key's circuit is a
/// stand-in: readers and verifiers never parse it.
pub fn the_stored_snark_proof_and_key_still_read_and_verify() {
    use fastzk_spartan::format::{read_key, read_snark_proof, write_key, write_snark_proof};
    use fastzk_spartan::{prove_snark, setup, verify_snark, SnarkProof};
    let params = SpartanParams::default();
    let (r1cs, z) = instance::<Goldilocks>(4, 4);
    let pk = setup::<Goldilocks, Gl3>(&params, r1cs).unwrap();
    if std::env::var_os("FASTZK_WRITE_FIXTURES").is_some() {
        let proof: SnarkProof<Goldilocks, Gl3> = prove_snark(&params, &pk, &z).unwrap();
        for (name, bytes) in [
            (SNARK_FIXTURE, write_snark_proof(&params, &proof)),
            (
                KEY_FIXTURE,
                write_key::<Goldilocks, Gl3>(&params, &pk.vk, b"circuit"),
            ),
        ] {
            std::fs::write(fastzk_testing::fixtures::path(name), bytes).unwrap();
        }
    }
    let key = fastzk_testing::fixtures::bytes(KEY_FIXTURE);
    let (kp, vk, _) = read_key::<Goldilocks, Gl3>(&key, KEY_FIXTURE).unwrap();
    assert_eq!((kp, vk), (params, pk.vk), "setup is deterministic");
    let bytes = fastzk_testing::fixtures::bytes(SNARK_FIXTURE);
    let (p, proof) = read_snark_proof::<Goldilocks, Gl3>(&bytes, SNARK_FIXTURE).unwrap();
    verify_snark(&p, &vk, &z[1..2], &proof).unwrap();
}
