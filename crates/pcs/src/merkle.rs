//! Binary Merkle trees over 32-byte digests (SHA3-256 or BLAKE3), built in parallel,
//! with batch openings that send each sibling once.
//!
//! Leaves and inner nodes are hashed with different one-byte prefixes, so a leaf can
//! never be passed off as a node (second-preimage hygiene).

use std::collections::BTreeMap;

use fastzk_multilinear::HashKind;
use rayon::prelude::*;
use sha3::Digest as _;

use crate::PcsError;

pub type Digest = [u8; 32];

/// The prefix of a leaf's hash input.
pub const LEAF: u8 = 0;
/// The prefix of an inner node's hash input.
pub const NODE: u8 = 1;
/// Nodes per rayon task.
const PAR_MIN: usize = 1 << 10;

/// The digest of `parts` concatenated, behind a one-byte domain prefix.
pub fn hash(kind: HashKind, prefix: u8, parts: &[&[u8]]) -> Digest {
    match kind {
        HashKind::Sha3_256 => {
            let mut h = sha3::Sha3_256::new();
            h.update([prefix]);
            for p in parts {
                h.update(p);
            }
            h.finalize().into()
        }
        HashKind::Blake3 => {
            let mut h = blake3::Hasher::new();
            h.update(&[prefix]);
            for p in parts {
                h.update(p);
            }
            *h.finalize().as_bytes()
        }
    }
}

/// A leaf's digest from its bytes.
pub fn hash_leaf(kind: HashKind, bytes: &[u8]) -> Digest {
    hash(kind, LEAF, &[bytes])
}

fn hash_node(kind: HashKind, l: &Digest, r: &Digest) -> Digest {
    hash(kind, NODE, &[l, r])
}

/// A tree over a power-of-two number of leaf digests.
#[derive(Clone, Debug)]
pub struct MerkleTree {
    kind: HashKind,
    /// `layers[0]` are the leaves, the last layer is the root alone.
    layers: Vec<Vec<Digest>>,
}

/// Openings of several leaves: the siblings that cannot be recomputed from the opened
/// leaves themselves, layer by layer, in increasing index order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultiProof {
    pub siblings: Vec<Digest>,
}

impl MerkleTree {
    pub fn new(kind: HashKind, leaves: Vec<Digest>) -> Result<Self, PcsError> {
        if !leaves.len().is_power_of_two() {
            return Err(PcsError::Shape(format!(
                "a Merkle tree needs a power-of-two number of leaves, got {}",
                leaves.len()
            )));
        }
        let mut layers = vec![leaves];
        while layers.last().expect("at least the leaves").len() > 1 {
            let prev = layers.last().expect("non-empty");
            let parent = |pair: &[Digest]| hash_node(kind, &pair[0], &pair[1]);
            let next: Vec<Digest> = if prev.len() >= 2 * PAR_MIN {
                prev.par_chunks(2).map(parent).collect()
            } else {
                prev.chunks(2).map(parent).collect()
            };
            layers.push(next);
        }
        Ok(Self { kind, layers })
    }

    /// The tree from its layers computed elsewhere (a device's), leaves first: checked
    /// for shape only (each layer half the one below, one root), not rehashed — a wrong
    /// digest makes openings the verifier rejects, never a proof it accepts.
    pub fn from_layers(kind: HashKind, layers: Vec<Vec<Digest>>) -> Result<Self, PcsError> {
        let leaves = layers.first().map_or(0, Vec::len);
        let shaped = leaves.is_power_of_two()
            && layers.len() == leaves.trailing_zeros() as usize + 1
            && layers
                .iter()
                .enumerate()
                .all(|(i, l)| l.len() == leaves >> i);
        if !shaped {
            return Err(PcsError::Shape(format!(
                "Merkle layers of {:?} digests",
                layers.iter().map(Vec::len).collect::<Vec<_>>()
            )));
        }
        Ok(Self { kind, layers })
    }

    /// Its layers, leaves first.
    pub fn layers(&self) -> &[Vec<Digest>] {
        &self.layers
    }

    pub fn kind(&self) -> HashKind {
        self.kind
    }

    pub fn root(&self) -> Digest {
        self.layers.last().expect("non-empty")[0]
    }

    /// Number of layers above the leaves.
    pub fn depth(&self) -> usize {
        self.layers.len() - 1
    }

    pub fn leaves(&self) -> usize {
        self.layers[0].len()
    }

    /// The siblings needed to authenticate the leaves at `indices` (any order, repeats
    /// allowed).
    pub fn open(&self, indices: &[usize]) -> Result<MultiProof, PcsError> {
        if let Some(&bad) = indices.iter().find(|&&i| i >= self.leaves()) {
            return Err(PcsError::Shape(format!(
                "leaf {bad} of a tree with {} leaves",
                self.leaves()
            )));
        }
        let mut known: Vec<usize> = indices.to_vec();
        known.sort_unstable();
        known.dedup();
        let mut siblings = Vec::new();
        for layer in &self.layers[..self.depth()] {
            let mut next = Vec::with_capacity(known.len());
            let mut k = 0;
            while k < known.len() {
                let i = known[k];
                let pair_known = i.is_multiple_of(2) && known.get(k + 1) == Some(&(i + 1));
                if pair_known {
                    k += 2;
                } else {
                    siblings.push(layer[i ^ 1]);
                    k += 1;
                }
                next.push(i / 2);
            }
            known = next;
        }
        Ok(MultiProof { siblings })
    }
}

/// Checks that `leaves` (index → digest) belong to the tree of `depth` layers with this
/// `root`.
pub fn verify(
    kind: HashKind,
    root: &Digest,
    depth: usize,
    leaves: &[(usize, Digest)],
    proof: &MultiProof,
) -> Result<(), PcsError> {
    let fail = |why: &str| Err(PcsError::Merkle(why.to_owned()));
    let mut known: BTreeMap<usize, Digest> = BTreeMap::new();
    for &(i, d) in leaves {
        if depth >= usize::BITS as usize || i >> depth != 0 {
            return fail("leaf index outside the tree");
        }
        if known.insert(i, d).is_some_and(|prev| prev != d) {
            return fail("one leaf opened with two values");
        }
    }
    if known.is_empty() {
        return fail("no leaf opened");
    }
    let mut sib = proof.siblings.iter();
    for _ in 0..depth {
        let mut next = BTreeMap::new();
        let entries: Vec<(usize, Digest)> = known.into_iter().collect();
        let mut k = 0;
        while k < entries.len() {
            let (i, d) = entries[k];
            let (l, r) = if i.is_multiple_of(2) && entries.get(k + 1).map(|e| e.0) == Some(i + 1) {
                k += 2;
                (d, entries[k - 1].1)
            } else {
                k += 1;
                let Some(s) = sib.next() else {
                    return fail("too few siblings");
                };
                if i.is_multiple_of(2) {
                    (d, *s)
                } else {
                    (*s, d)
                }
            };
            next.insert(i / 2, hash_node(kind, &l, &r));
        }
        known = next;
    }
    if sib.next().is_some() {
        return fail("unused siblings");
    }
    match known.get(&0) {
        Some(r) if r == root => Ok(()),
        _ => fail("root mismatch"),
    }
}
