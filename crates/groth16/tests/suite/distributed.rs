//! The distributed prover on threads joined by channels: the same proof as the bounded
//! prover for 1, 2 and 3 ranks (and more ranks than some sections have points); a rank
//! that never answers, a malformed message, a misplaced witness and a bad witness are
//! errors naming what happened, within the transport's bound.

use std::time::{Duration, Instant};

use fastzk_field::PrimeField;
use fastzk_formats::codec::PointCheck;
use fastzk_groth16::distributed::{share, ChannelTransport, Tag};
use fastzk_groth16::{
    prove_bounded_with_rng, prove_distributed, setup_random, verify, Bounded, DistributedError,
    ProveError, ProveOptions, Transport, Zkey, ZkeyView,
};
use fastzk_pairing::{Bls12_381, Bn254, Fr, PairingCurve};
use fastzk_r1cs::synth::{synthesize, SynthParams};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn instance<E: PairingCurve>(log: u32, n_public: usize) -> (Vec<u8>, Vec<Fr<E>>) {
    let mut rng = ChaCha20Rng::seed_from_u64(100 + log as u64);
    let params = SynthParams {
        n_public,
        ..SynthParams::new(log)
    };
    let (r1cs, z) = synthesize::<Fr<E>>(&params, &mut rng).unwrap();
    let pk = setup_random::<E>(&r1cs, &mut rng).unwrap();
    (Zkey::new(pk).to_bytes().unwrap(), z)
}

const NOTHING: &(dyn Fn(&[u8]) + Sync) = &|_| {};

fn bounded(chunk: usize) -> Bounded<'static> {
    Bounded {
        chunk_points: chunk,
        block_entries: 5,
        check: PointCheck::Subgroup,
        release: NOTHING,
    }
}

type RankResult<E> =
    Result<(Option<fastzk_groth16::Proof<E>>, fastzk_groth16::RankReport), DistributedError>;

/// Every rank of a mesh on its own thread; results in rank order.
fn run_ranks<E: PairingCurve>(
    bytes: &[u8],
    z: &[Fr<E>],
    transports: Vec<ChannelTransport>,
    chunk: usize,
    seed: u64,
) -> Vec<RankResult<E>> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = transports
            .into_iter()
            .map(|t| {
                scope.spawn(move || {
                    let key = ZkeyView::<E>::parse(bytes, "k.zkey", PointCheck::Subgroup).unwrap();
                    let witness = (t.rank() == 0).then_some(z);
                    let mut rng = ChaCha20Rng::seed_from_u64(seed);
                    prove_distributed(
                        &key,
                        witness,
                        &t,
                        &ProveOptions::default(),
                        &bounded(chunk),
                        &mut rng,
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn same_proof_as_one_process<E: PairingCurve>() {
    for (log, n_public, chunk) in [(3, 1, 2), (6, 2, 5), (9, 3, 100)] {
        let (bytes, z) = instance::<E>(log, n_public);
        let key = ZkeyView::<E>::parse(&bytes, "k.zkey", PointCheck::Subgroup).unwrap();
        let (expected, _) = prove_bounded_with_rng(
            &key,
            &z,
            &ProveOptions::default(),
            &bounded(chunk),
            &mut ChaCha20Rng::seed_from_u64(7),
        )
        .unwrap();
        for ranks in [1, 2, 3, 5] {
            let mesh = ChannelTransport::mesh(ranks, Duration::from_secs(60));
            let results = run_ranks::<E>(&bytes, &z, mesh, chunk, 7);
            let mut reports = Vec::new();
            for (k, r) in results.into_iter().enumerate() {
                let (proof, report) = r.unwrap();
                assert_eq!(proof.is_some(), k == 0, "rank {k}");
                if let Some(proof) = proof {
                    assert_eq!(proof, expected, "2^{log}, {ranks} ranks");
                    assert!(verify(&key.vk, &z[1..=n_public], &proof).unwrap());
                }
                reports.push(report);
            }
            // Rank 0 sends every other rank its variables and its share of p, and gets
            // five points back from each; the other ranks' counts mirror it.
            let fe = <Fr<E> as PrimeField>::BYTES as u64;
            let points = 4 * fastzk_formats::codec::point_len::<E::G1>() as u64
                + fastzk_formats::codec::point_len::<E::G2>() as u64;
            let mut sent_to_others = 0;
            for (k, report) in reports.iter().enumerate().skip(1) {
                let expect = (share(z.len(), ranks, k).len() as u64
                    + share(key.domain_size(), ranks, k).len() as u64)
                    * fe;
                assert_eq!((report.received, report.sent), (expect, points), "rank {k}");
                sent_to_others += expect;
            }
            assert_eq!(reports[0].sent, sent_to_others);
            assert_eq!(reports[0].received, points * (ranks as u64 - 1));
        }
    }
}

#[test]
fn the_distributed_proof_is_the_single_process_proof() {
    same_proof_as_one_process::<Bn254>();
    same_proof_as_one_process::<Bls12_381>();
}

#[test]
fn a_rank_that_never_answers_is_named_within_the_bound() {
    let (bytes, z) = instance::<Bn254>(5, 1);
    let key = ZkeyView::<Bn254>::parse(&bytes, "k.zkey", PointCheck::Subgroup).unwrap();
    let bound = Duration::from_millis(300);
    // Rank 0 alone of two: waits for rank 1's partials.
    let mut mesh = ChannelTransport::mesh(2, bound);
    let rank1 = mesh.pop().unwrap(); // never runs
    let t0 = Instant::now();
    let e = prove_distributed(
        &key,
        Some(&z),
        &mesh[0],
        &ProveOptions::default(),
        &bounded(8),
        &mut ChaCha20Rng::seed_from_u64(1),
    )
    .unwrap_err();
    assert!(t0.elapsed() < Duration::from_secs(30));
    assert!(
        matches!(
            e,
            DistributedError::Timeout {
                rank: 1,
                waiting: 0,
                tag: Tag::Partials,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("rank 1"), "{e}");
    // Rank 1 whose rank 0 never starts: waits for its witness slice.
    drop((mesh, rank1));
    let rank1 = ChannelTransport::mesh(2, bound).pop().unwrap();
    let e = prove_distributed::<Bn254>(
        &key,
        None,
        &rank1,
        &ProveOptions::default(),
        &bounded(8),
        &mut ChaCha20Rng::seed_from_u64(1),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            DistributedError::Timeout {
                rank: 0,
                tag: Tag::Witness,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn malformed_messages_misplaced_witnesses_and_bad_witnesses_are_errors() {
    let (bytes, mut z) = instance::<Bn254>(5, 1);
    let key = ZkeyView::<Bn254>::parse(&bytes, "k.zkey", PointCheck::Subgroup).unwrap();
    let opts = ProveOptions::default();
    let mut rng = ChaCha20Rng::seed_from_u64(1);

    // A rank 1 that takes its inputs and answers with three bytes.
    let mesh = ChannelTransport::mesh(2, Duration::from_secs(60));
    let e = std::thread::scope(|scope| {
        let fake = &mesh[1];
        scope.spawn(move || {
            fake.receive(0, Tag::Witness).unwrap();
            fake.receive(0, Tag::Quotient).unwrap();
            fake.send(0, Tag::Partials, &[1, 2, 3]).unwrap();
        });
        prove_distributed(&key, Some(&z), &mesh[0], &opts, &bounded(8), &mut rng).unwrap_err()
    });
    assert!(
        matches!(
            e,
            DistributedError::Malformed {
                rank: 1,
                tag: Tag::Partials,
                ..
            }
        ),
        "{e}"
    );

    // The witness goes to rank 0 only.
    let mesh = ChannelTransport::mesh(2, Duration::from_millis(100));
    for (t, w) in [(&mesh[0], None), (&mesh[1], Some(&z[..]))] {
        let e = prove_distributed(&key, w, t, &opts, &bounded(8), &mut rng).unwrap_err();
        assert!(matches!(e, DistributedError::WitnessPlacement), "{e}");
    }

    // A witness that does not satisfy the circuit is refused by rank 0's self-check.
    z[3] += Fr::<Bn254>::ONE;
    let mesh = ChannelTransport::mesh(1, Duration::from_millis(100));
    let e = prove_distributed(&key, Some(&z), &mesh[0], &opts, &bounded(8), &mut rng).unwrap_err();
    assert!(
        matches!(e, DistributedError::Prove(ProveError::SelfCheckFailed)),
        "{e}"
    );
}
