//! snarkjs' Plonk transcript: Keccak-256 over the absorbed items since the last reset.
//!
//! Points are encoded uncompressed and big-endian (ffjavascript `toRprUncompressed`:
//! `x ‖ y`, the identity as zeros), scalars as their canonical big-endian bytes, and a
//! challenge is the digest read as a big-endian integer and reduced modulo `r`.

use fastzk_curve::serialize::{PointEncoding, SnarkjsUncompressed};
use fastzk_curve::Affine;
use fastzk_field::PrimeField;
use sha3::{Digest, Keccak256};

use crate::{Fr, PairingCurve, G1};

/// The transcript of one challenge: the items absorbed since the last reset.
pub struct Transcript<E: PairingCurve> {
    bytes: Vec<u8>,
    items: usize,
    _curve: core::marker::PhantomData<E>,
}

impl<E: PairingCurve> Default for Transcript<E> {
    fn default() -> Self {
        Self {
            bytes: Vec::new(),
            items: 0,
            _curve: core::marker::PhantomData,
        }
    }
}

impl<E: PairingCurve> Transcript<E> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets everything absorbed (snarkjs resets before each challenge).
    pub fn reset(&mut self) {
        self.bytes.clear();
        self.items = 0;
    }

    pub fn add_point(&mut self, p: &G1<E>) {
        let enc: Vec<u8> = <SnarkjsUncompressed as PointEncoding<E::G1>>::encode(p);
        self.bytes.extend_from_slice(&enc);
        self.items += 1;
    }

    pub fn add_points<'a>(&mut self, ps: impl IntoIterator<Item = &'a Affine<E::G1>>) {
        for p in ps {
            self.add_point(p);
        }
    }

    pub fn add_scalar(&mut self, s: &Fr<E>) {
        let mut le = s.to_le_bytes();
        le.reverse();
        self.bytes.extend_from_slice(&le);
        self.items += 1;
    }

    /// `keccak256(items) mod r`. snarkjs refuses an empty transcript; every challenge
    /// of the protocol absorbs something, so an empty one is a bug here.
    pub fn challenge(&self) -> Fr<E> {
        debug_assert!(self.items > 0, "a challenge of an empty transcript");
        let digest = Keccak256::digest(&self.bytes);
        let mut le = digest.to_vec();
        le.reverse();
        Fr::<E>::from_le_bytes_mod_order(&le)
    }
}

/// Round 2: `β` and `γ`, from the key's commitments, the public inputs and `[a], [b], [c]`.
pub fn beta_gamma<E: PairingCurve>(
    vk: &crate::VerifyingKey<E>,
    public: &[Fr<E>],
    abc: [&G1<E>; 3],
) -> (Fr<E>, Fr<E>) {
    let mut t = Transcript::<E>::new();
    t.add_points(vk.q.iter().chain(&vk.s));
    public.iter().for_each(|x| t.add_scalar(x));
    t.add_points(abc);
    let beta = t.challenge();
    t.reset();
    t.add_scalar(&beta);
    (beta, t.challenge())
}

/// Round 3: `α`.
pub fn alpha<E: PairingCurve>(beta: &Fr<E>, gamma: &Fr<E>, z: &G1<E>) -> Fr<E> {
    let mut t = Transcript::<E>::new();
    t.add_scalar(beta);
    t.add_scalar(gamma);
    t.add_point(z);
    t.challenge()
}

/// Round 4: `ξ`.
pub fn xi<E: PairingCurve>(alpha: &Fr<E>, t123: [&G1<E>; 3]) -> Fr<E> {
    let mut t = Transcript::<E>::new();
    t.add_scalar(alpha);
    t.add_points(t123);
    t.challenge()
}

/// Round 5: `v`, from `ξ` and the six evaluations in proof order.
pub fn v<E: PairingCurve>(xi: &Fr<E>, evaluations: [&Fr<E>; 6]) -> Fr<E> {
    let mut t = Transcript::<E>::new();
    t.add_scalar(xi);
    evaluations.iter().for_each(|e| t.add_scalar(e));
    t.challenge()
}

/// The verifier's batching challenge `u`.
pub fn u<E: PairingCurve>(wxi: &G1<E>, wxiw: &G1<E>) -> Fr<E> {
    let mut t = Transcript::<E>::new();
    t.add_point(wxi);
    t.add_point(wxiw);
    t.challenge()
}
