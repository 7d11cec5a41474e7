//! Merkle batch openings and the Orion commitment: honest openings verify and give the
//! polynomial's value (checked against the multilinear evaluation), every tampered part
//! of a proof is rejected.

use fastzk_field::{
    bn254, Field, Goldilocks, GoldilocksExt2, GoldilocksExt3, NttField, PrimeField,
};
use fastzk_multilinear::{HashKind, Mle, Transcript};
use fastzk_pcs::merkle::{self, hash_leaf, MerkleTree};
use fastzk_pcs::{
    block_weights, column_leaves, commit, commit_with, encode_and_hash, open, verify, EvalProof,
    ExtensionOf, OrionParams, PcsError, Rows,
};
use fastzk_testing::gen::rng;

#[test]
fn merkle_batch_openings() {
    for kind in [HashKind::Blake3, HashKind::Sha3_256] {
        for log in 0..7 {
            let n = 1usize << log;
            let leaves: Vec<_> = (0..n as u32)
                .map(|i| hash_leaf(kind, &i.to_le_bytes()))
                .collect();
            let tree = MerkleTree::new(kind, leaves.clone()).unwrap();
            assert_eq!(tree.depth(), log);
            let sets: Vec<Vec<usize>> = vec![
                vec![0],
                vec![n - 1],
                (0..n).collect(),
                vec![n / 2, 0, n / 2, n - 1],
                (0..n).step_by(3).collect(),
            ];
            for set in sets {
                let proof = tree.open(&set).unwrap();
                let opened: Vec<_> = set.iter().map(|&i| (i, leaves[i])).collect();
                merkle::verify(kind, &tree.root(), log, &opened, &proof).unwrap();
                // A wrong leaf, a wrong sibling, a missing or extra sibling, another root.
                let mut wrong = opened.clone();
                wrong[0].1[0] ^= 1;
                assert!(merkle::verify(kind, &tree.root(), log, &wrong, &proof).is_err());
                if !proof.siblings.is_empty() {
                    let mut p = proof.clone();
                    p.siblings[0][5] ^= 1;
                    assert!(merkle::verify(kind, &tree.root(), log, &opened, &p).is_err());
                    let mut p = proof.clone();
                    p.siblings.pop();
                    assert!(merkle::verify(kind, &tree.root(), log, &opened, &p).is_err());
                }
                let mut p = proof.clone();
                p.siblings.push([0; 32]);
                assert!(merkle::verify(kind, &tree.root(), log, &opened, &p).is_err());
                let mut root = tree.root();
                root[31] ^= 1;
                assert!(merkle::verify(kind, &root, log, &opened, &proof).is_err());
                if n > 1 {
                    // The right digest claimed at another index.
                    let moved = vec![((set[0] + 1) % n, leaves[set[0]])];
                    let p = tree.open(&[set[0]]).unwrap();
                    assert!(merkle::verify(kind, &tree.root(), log, &moved, &p).is_err());
                }
            }
            assert!(tree.open(&[n]).is_err());
            let out_of_range = vec![(n, leaves[0])];
            assert!(merkle::verify(
                kind,
                &tree.root(),
                log,
                &out_of_range,
                &tree.open(&[0]).unwrap()
            )
            .is_err());
            assert!(
                merkle::verify(kind, &tree.root(), log, &[], &tree.open(&[0]).unwrap()).is_err()
            );
        }
    }
    assert!(MerkleTree::new(HashKind::Blake3, vec![[0; 32]; 3]).is_err());
}

fn roundtrip<F: NttField, E: ExtensionOf<F>>(
    params: &OrionParams,
    n: usize,
    seed: u64,
) -> (Vec<F>, Vec<E>, E, EvalProof<F, E>, fastzk_pcs::Commitment) {
    let mut r = rng(seed);
    let evals: Vec<F> = (0..1usize << n).map(|_| F::random(&mut r)).collect();
    let point: Vec<E> = (0..n).map(|_| E::random(&mut r)).collect();
    let data = commit::<F, E, _>(params, n, &[&evals], &mut r).unwrap();
    let (w, col) = block_weights(params, &[E::ONE], &point);
    let mut tp = Transcript::new(params.hash, b"pcs test");
    let (value, proof) = open(params, &data, &w, &col, &mut tp).unwrap();
    // The value is the multilinear extension's.
    let lifted = Mle::new(evals.iter().map(|&x| E::from_base(x)).collect()).unwrap();
    assert_eq!(lifted.evaluate(&point).unwrap(), value, "n={n}");
    let mut tv = Transcript::new(params.hash, b"pcs test");
    verify(params, &data.commitment, &w, &col, value, &proof, &mut tv).unwrap();
    (evals, point, value, proof, data.commitment)
}

#[test]
fn honest_openings_verify() {
    let params = OrionParams::default();
    for n in [0, 1, 2, 5, 8, 13, 15] {
        roundtrip::<Goldilocks, GoldilocksExt2>(&params, n, n as u64);
    }
    for n in [0, 3, 10] {
        roundtrip::<bn254::Fr, bn254::Fr>(&params, n, 100 + n as u64);
    }
    let sha = OrionParams {
        hash: HashKind::Sha3_256,
        proximity_reps: 4,
        log_rows: 3,
        ..OrionParams::default()
    };
    roundtrip::<Goldilocks, GoldilocksExt2>(&sha, 11, 7);
}

#[test]
fn every_tampered_part_is_rejected() {
    let params = OrionParams::default();
    let n = 14;
    let (_, point, value, proof, com) = roundtrip::<Goldilocks, GoldilocksExt2>(&params, n, 21);
    let check = |point: &[GoldilocksExt2],
                 value,
                 proof: &EvalProof<Goldilocks, GoldilocksExt2>,
                 com: &fastzk_pcs::Commitment| {
        let (w, col) = block_weights(&params, &[GoldilocksExt2::ONE], point);
        let mut tv = Transcript::new(params.hash, b"pcs test");
        verify(&params, com, &w, &col, value, proof, &mut tv)
    };
    let one = GoldilocksExt2::ONE;
    assert!(check(&point, value + one, &proof, &com).is_err());
    let mut p2 = point.clone();
    p2[0] += one;
    assert!(check(&p2, value, &proof, &com).is_err());
    let mut c2 = com;
    c2.root[0] ^= 1;
    assert!(matches!(
        check(&point, value, &proof, &c2),
        Err(PcsError::Merkle(_))
    ));
    for k in 0..params.proximity_reps {
        for j in [0, 7, proof.combos[k].len() - 1] {
            let mut p = proof.clone();
            p.combos[k][j] += one;
            assert!(
                check(&point, value, &p, &com).is_err(),
                "combination {k}, entry {j}"
            );
        }
    }
    for j in [0, 100, proof.row_eval.len() - 1] {
        let mut p = proof.clone();
        p.row_eval[j] += one;
        assert!(
            check(&point, value, &p, &com).is_err(),
            "row evaluation {j}"
        );
    }
    let height = proof.columns[0].len();
    for (c, i) in [
        (0, 0),
        (5, height / 2),
        (proof.columns.len() - 1, height - 1),
    ] {
        let mut p = proof.clone();
        p.columns[c][i] += Goldilocks::ONE;
        assert!(
            matches!(check(&point, value, &p, &com), Err(PcsError::Merkle(_))),
            "column {c}"
        );
    }
    for s in [0, proof.merkle.siblings.len() / 2] {
        let mut p = proof.clone();
        p.merkle.siblings[s][3] ^= 0x80;
        assert!(check(&point, value, &p, &com).is_err(), "sibling {s}");
    }
    let mut p = proof.clone();
    p.columns.pop();
    assert!(check(&point, value, &p, &com).is_err());
    let mut p = proof.clone();
    p.combos.pop();
    assert!(check(&point, value, &p, &com).is_err());
    let mut p = proof.clone();
    p.row_eval.push(one);
    assert!(check(&point, value, &p, &com).is_err());
    assert!(check(&point[1..], value, &proof, &com).is_err());
    // The same proof in another transcript draws other queries.
    let mut tv = Transcript::new(params.hash, b"another statement");
    let (w, col) = block_weights(&params, &[GoldilocksExt2::ONE], &point);
    assert!(verify(&params, &com, &w, &col, value, &proof, &mut tv).is_err());
    let mut r = rng(1);
    let three = [Goldilocks::ONE; 3];
    assert!(commit::<_, GoldilocksExt2, _>(&params, 2, &[&three], &mut r).is_err());
    let (a, b) = ([Goldilocks::ONE; 4], [Goldilocks::ONE; 5]);
    assert!(commit::<_, GoldilocksExt2, _>(&params, 2, &[&a, &b], &mut r).is_err());
    assert!(commit::<Goldilocks, GoldilocksExt2, _>(&params, 2, &[], &mut r).is_err());
    assert!(commit::<_, GoldilocksExt2, _>(&params, 99, &[&a], &mut r).is_err());
    for i in [0, proof.salts.len() - 1] {
        let mut p = proof.clone();
        p.salts[i][5] ^= 1;
        assert!(
            matches!(check(&point, value, &p, &com), Err(PcsError::Merkle(_))),
            "salt {i}"
        );
    }
    let mut p = proof.clone();
    p.salts.pop();
    assert!(check(&point, value, &p, &com).is_err());
}

/// Two blocks under one root: the opening proves `β_0·f_0(r) + β_1·f_1(r)`, and a
/// value for other weights is rejected.
#[test]
fn blocks_open_as_a_weighted_sum() {
    type E = GoldilocksExt3;
    let params = OrionParams::default();
    let mut r = rng(5);
    let n = 13;
    let f: Vec<Vec<Goldilocks>> = (0..2)
        .map(|_| (0..1 << n).map(|_| Goldilocks::random(&mut r)).collect())
        .collect();
    let data = commit::<_, E, _>(&params, n, &[&f[0], &f[1]], &mut r).unwrap();
    let point: Vec<E> = (0..n).map(|_| E::random(&mut r)).collect();
    let beta = [E::random(&mut r), E::random(&mut r)];
    let (w, col) = block_weights(&params, &beta, &point);
    let mut tp = Transcript::new(params.hash, b"blocks");
    let (value, proof) = open(&params, &data, &w, &col, &mut tp).unwrap();
    let at = |v: &[Goldilocks]| {
        Mle::new(v.iter().map(|&x| E::from_base(x)).collect())
            .unwrap()
            .evaluate(&point)
            .unwrap()
    };
    assert_eq!(value, beta[0] * at(&f[0]) + beta[1] * at(&f[1]));
    let check = |beta: &[E], value: E| {
        let (w, col) = block_weights(&params, beta, &point);
        let mut tv = Transcript::new(params.hash, b"blocks");
        verify(&params, &data.commitment, &w, &col, value, &proof, &mut tv)
    };
    check(&beta, value).unwrap();
    assert!(check(&[beta[0], beta[1] + E::ONE], value).is_err());
    assert!(check(&beta[..1], value).is_err());
}

/// Hiding at work: the zero polynomial's opened columns and proximity combination are
/// random (nonzero everywhere, with overwhelming probability) and differ between two
/// commitments; without hiding they are all zero.
/// A caller's encoder: one that encodes and hashes as `encode_and_hash` gives the
/// commitment `commit` gives (same randomness); one that fails, or gives codewords or a
/// tree of the wrong shape or hash, is an error naming the encoding, never a commitment.
#[test]
fn commit_with_takes_the_callers_encoder() {
    type E = GoldilocksExt3;
    let params = OrionParams::default();
    let evals: Vec<Goldilocks> = (0..1u64 << 10).map(Goldilocks::from_u64).collect();
    let plain = commit::<_, E, _>(&params, 10, &[&evals], &mut rng(3)).unwrap();
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let counted = |rows: &Rows<'_, Goldilocks>| {
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        encode_and_hash(rows)
    };
    let same = commit_with::<_, E, _>(&params, 10, &[&evals], &mut rng(3), &counted).unwrap();
    assert_eq!(same.commitment, plain.commitment);
    assert_eq!(calls.into_inner(), 1);
    type Out = Result<(Vec<Goldilocks>, MerkleTree), PcsError>;
    let failing = |_: &Rows<'_, Goldilocks>| -> Out { Err(PcsError::Encode("no device".into())) };
    let short = |rows: &Rows<'_, Goldilocks>| -> Out {
        let (mut v, t) = encode_and_hash(rows)?;
        v.pop();
        Ok((v, t))
    };
    let half_tree = |rows: &Rows<'_, Goldilocks>| -> Out {
        let (v, t) = encode_and_hash(rows)?;
        let layers = t.layers()[1..].to_vec();
        Ok((v, MerkleTree::from_layers(t.kind(), layers)?))
    };
    let other_hash = |rows: &Rows<'_, Goldilocks>| -> Out {
        let (v, t) = encode_and_hash(rows)?;
        Ok((
            v,
            MerkleTree::from_layers(HashKind::Sha3_256, t.layers().to_vec())?,
        ))
    };
    for (encoder, says) in [
        (&failing as fastzk_pcs::Encoder<'_, Goldilocks>, "no device"),
        (&short, "values from the encoder"),
        (&half_tree, "leaves from the encoder"),
        (&other_hash, "Sha3_256 tree"),
    ] {
        let e = commit_with::<_, E, _>(&params, 10, &[&evals], &mut rng(3), encoder)
            .err()
            .expect("refused");
        assert!(matches!(e, PcsError::Encode(_)), "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
}

/// Column leaves against each column hashed on its own (salt, then the elements' bytes),
/// matrices narrower and wider than a block of columns, with and without salts, and no
/// rows at all.
#[test]
fn column_leaves_hash_each_column() {
    let mut r = rng(9);
    for kind in [HashKind::Blake3, HashKind::Sha3_256] {
        for (height, width) in [(0, 4), (1, 1), (3, 64), (5, 130), (200, 2)] {
            let m: Vec<Goldilocks> = (0..height * width)
                .map(|_| Goldilocks::random(&mut r))
                .collect();
            let salts: Vec<[u8; 16]> = (0..width).map(|j| [j as u8 ^ 0x5a; 16]).collect();
            for salts in [&salts[..], &[]] {
                let want: Vec<_> = (0..width)
                    .map(|j| {
                        let mut bytes = salts.get(j).map_or(Vec::new(), |s| s.to_vec());
                        for i in 0..height {
                            bytes.extend_from_slice(&m[i * width + j].to_le_bytes());
                        }
                        hash_leaf(kind, &bytes)
                    })
                    .collect();
                assert_eq!(
                    column_leaves(kind, &m, width, salts),
                    want,
                    "{height}×{width}"
                );
            }
        }
    }
}

/// A tree rebuilt from its layers is the tree; layers of the wrong shape are refused.
#[test]
fn trees_rebuild_from_their_layers_of_the_right_shape() {
    let leaves: Vec<[u8; 32]> = (0..8u8)
        .map(|i| hash_leaf(HashKind::Blake3, &[i]))
        .collect();
    let tree = MerkleTree::new(HashKind::Blake3, leaves).unwrap();
    let again = MerkleTree::from_layers(HashKind::Blake3, tree.layers().to_vec()).unwrap();
    assert_eq!(again.root(), tree.root());
    assert_eq!(again.open(&[1, 6]).unwrap(), tree.open(&[1, 6]).unwrap());
    let mut no_root = tree.layers().to_vec();
    no_root.pop();
    let mut odd = tree.layers().to_vec();
    odd[0].pop();
    let mut wide_root = tree.layers().to_vec();
    wide_root[3].push([0; 32]);
    for bad in [vec![], no_root, odd, wide_root] {
        assert!(MerkleTree::from_layers(HashKind::Blake3, bad).is_err());
    }
}

#[test]
fn hiding_randomises_what_an_opening_shows() {
    type E = GoldilocksExt3;
    let zero = vec![Goldilocks::ZERO; 1 << 12];
    let point: Vec<E> = (0..12).map(|i| E::from_u64(i + 2)).collect();
    let show = |params: &OrionParams, seed: u64| {
        let mut r = rng(seed);
        let data = commit::<_, E, _>(params, 12, &[&zero], &mut r).unwrap();
        let (w, col) = block_weights(params, &[E::ONE], &point);
        let mut tp = Transcript::new(params.hash, b"hiding");
        let (value, proof) = open(params, &data, &w, &col, &mut tp).unwrap();
        assert_eq!(value, E::ZERO);
        proof
    };
    let hiding = OrionParams::default();
    let (p1, p2) = (show(&hiding, 1), show(&hiding, 2));
    assert!(p1.columns.iter().flatten().all(|x| *x != Goldilocks::ZERO));
    assert!(p1.combos[0].iter().all(|x| *x != E::ZERO));
    assert_ne!(p1.columns, p2.columns);
    assert_eq!(p1.salts.len(), p1.columns.len());
    let plain = OrionParams {
        hiding: false,
        ..hiding
    };
    let p = show(&plain, 1);
    assert!(p.columns.iter().flatten().all(|x| *x == Goldilocks::ZERO));
    assert!(p.combos[0].iter().all(|x| *x == E::ZERO));
    assert!(p.salts.is_empty());
}
