//! The Fiat–Shamir transcript: everything the prover sends is absorbed, and each
//! challenge is derived from the hash of all of it so far.
//!
//! Two hashes, recorded in a proof's header by whoever writes one: SHA3-256 (what NoCap
//! uses) and BLAKE3 (faster on a CPU). A challenge is drawn by hashing the state with a
//! domain-separated counter into a 32-byte seed for ChaCha20, from which the field's own
//! uniform sampler ([`Field::random`]) takes what it needs: no modular bias, for any
//! field or extension.

use fastzk_field::{
    bls12_381, bn254, Field, Goldilocks, GoldilocksExt2, GoldilocksExt3, PrimeField,
};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use sha3::Digest;

/// The hash behind a transcript.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashKind {
    Sha3_256,
    Blake3,
}

impl HashKind {
    /// The byte a proof header stores.
    pub fn id(self) -> u8 {
        match self {
            HashKind::Sha3_256 => 1,
            HashKind::Blake3 => 2,
        }
    }

    pub fn from_id(id: u8) -> Option<Self> {
        match id {
            1 => Some(HashKind::Sha3_256),
            2 => Some(HashKind::Blake3),
            _ => None,
        }
    }
}

enum State {
    Sha3(Box<sha3::Sha3_256>),
    Blake3(Box<blake3::Hasher>),
}

/// A running Fiat–Shamir transcript.
pub struct Transcript {
    state: State,
    kind: HashKind,
    challenges: u64,
}

/// Field elements a transcript can absorb: their canonical bytes.
pub trait Absorb {
    fn absorb_into(&self, out: &mut Vec<u8>);
}

macro_rules! absorb_prime {
    ($($f:ty),*) => {$(
        impl Absorb for $f {
            fn absorb_into(&self, out: &mut Vec<u8>) {
                self.extend_le_bytes(out);
            }
        }
    )*};
}
absorb_prime!(Goldilocks, bn254::Fr, bls12_381::Fr);

impl Absorb for GoldilocksExt2 {
    fn absorb_into(&self, out: &mut Vec<u8>) {
        self.c0.absorb_into(out);
        self.c1.absorb_into(out);
    }
}

impl Absorb for GoldilocksExt3 {
    fn absorb_into(&self, out: &mut Vec<u8>) {
        for c in &self.c {
            c.absorb_into(out);
        }
    }
}

impl Transcript {
    /// A transcript for the protocol named by `label` (domain separation).
    pub fn new(kind: HashKind, label: &[u8]) -> Self {
        let state = match kind {
            HashKind::Sha3_256 => State::Sha3(Box::new(sha3::Sha3_256::new())),
            HashKind::Blake3 => State::Blake3(Box::new(blake3::Hasher::new())),
        };
        let mut t = Self {
            state,
            kind,
            challenges: 0,
        };
        t.append_bytes(b"fastzk transcript v1", label);
        t
    }

    pub fn kind(&self) -> HashKind {
        self.kind
    }

    fn update(&mut self, bytes: &[u8]) {
        match &mut self.state {
            State::Sha3(h) => h.update(bytes),
            State::Blake3(h) => {
                h.update(bytes);
            }
        }
    }

    /// Absorbs labelled bytes (label and data length-prefixed, so no two different
    /// sequences of messages hash alike).
    pub fn append_bytes(&mut self, label: &[u8], data: &[u8]) {
        self.update(&(label.len() as u64).to_le_bytes());
        self.update(label);
        self.update(&(data.len() as u64).to_le_bytes());
        self.update(data);
    }

    /// Absorbs field elements.
    pub fn append_elements<F: Absorb>(&mut self, label: &[u8], elems: &[F]) {
        let mut buf = Vec::with_capacity(elems.len() * 32);
        for e in elems {
            e.absorb_into(&mut buf);
        }
        self.append_bytes(label, &buf);
    }

    /// A 32-byte seed bound to everything absorbed so far; absorbing it back keeps later
    /// challenges distinct.
    fn seed(&mut self, label: &[u8]) -> [u8; 32] {
        self.challenges += 1;
        let counter = self.challenges.to_le_bytes();
        self.append_bytes(b"challenge", &[label, &counter[..]].concat());
        let out: [u8; 32] = match &self.state {
            State::Sha3(h) => (**h).clone().finalize().into(),
            State::Blake3(h) => *h.finalize().as_bytes(),
        };
        self.append_bytes(b"challenge output", &out);
        out
    }

    /// One uniform challenge.
    pub fn challenge<F: Field>(&mut self, label: &[u8]) -> F {
        let mut rng = ChaCha20Rng::from_seed(self.seed(label));
        F::random(&mut rng)
    }

    /// `n` uniform challenges.
    pub fn challenges<F: Field>(&mut self, label: &[u8], n: usize) -> Vec<F> {
        let mut rng = ChaCha20Rng::from_seed(self.seed(label));
        (0..n).map(|_| F::random(&mut rng)).collect()
    }

    /// `n` indices below `bound` (column openings, query positions).
    pub fn indices(&mut self, label: &[u8], n: usize, bound: usize) -> Vec<usize> {
        use rand_chacha::rand_core::RngCore;
        let mut rng = ChaCha20Rng::from_seed(self.seed(label));
        let bound = bound.max(1) as u64;
        // Rejection sampling: uniform, whatever the bound.
        let zone = u64::MAX - u64::MAX % bound;
        (0..n)
            .map(|_| loop {
                let v = rng.next_u64();
                if v < zone {
                    break (v % bound) as usize;
                }
            })
            .collect()
    }
}
