//! One Groth16 proof computed by several processes ("ranks"), each reading only its
//! slice of the key.
//!
//! The five MSMs are split by ranges of bases: rank `k` of `N` takes variables
//! `[k·n/N, (k+1)·n/N)` of A, B (G1 and G2) and C, and the same share of the H query's
//! `2^log_n` points. The quotient's transforms stay on rank 0, which holds the whole
//! witness:
//!
//! | rank 0 | rank k > 0 |
//! |---|---|
//! | checks the witness, sends rank k its slice | waits for its witness slice |
//! | `A·z`, `B·z` from section 4; the transforms | waits |
//! | sends rank k its slice of `p` | waits for its slice of `p` |
//! | MSMs H, A, B, C over its share | MSMs H, A, B, C over its share, sends 5 points |
//! | adds the partials, draws `r, s`, assembles, self-checks | |
//!
//! The other ranks wait through the transforms rather than start on A, B and C: rank 0,
//! which must do the transforms *and* a share, ends last either way, and a rank that is
//! waiting for a message is one whose sender never blocks (MPI moves a large message
//! only when both sides are in the library, so a send to a rank deep in an MSM would
//! stall rank 0 until that MSM ends).
//!
//! Rank 0 therefore sends `(n + domain)·(N−1)/N` field elements and receives `5·(N−1)`
//! points; nothing else crosses. Each rank reads its slices of sections 5–9 of a
//! memory-mapped key and rank 0 section 4, so no rank touches the whole file. With the
//! same generator for `r, s` the proof is the one [`crate::prove_bounded_with_rng`]
//! makes (a test checks it for 1, 2 and 3 ranks).
//!
//! The messages go through a [`Transport`] (MPI in the CLI; threads and channels in the
//! tests). Every wait is bounded: a rank that has died or stalled becomes
//! [`DistributedError::Timeout`] naming it, never a hang.

use std::ops::Range;
use std::time::{Duration, Instant};

use fastzk_curve::serialize::SerializableCurve;
use fastzk_curve::Jacobian;
use fastzk_field::{Field, PrimeField};
use fastzk_formats::codec::{decode_point, encode_point, point_len, PointCheck};
use fastzk_formats::error::Ctx;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

use crate::bounded::{chunked_msm, chunked_msm_pair, streamed_quotient, Bounded};
use crate::prover::{check_witness, finish, Clock, MsmResults};
use crate::zkey::{Section, ZkeyView};
use crate::{Fr, PairingCurve, Proof, ProveError, ProveOptions, ProveTimings};

/// The kinds of message, one of each per rank and proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    /// Rank 0 → rank k: the witness values of rank k's variables.
    Witness = 1,
    /// Rank 0 → rank k: rank k's share of the quotient's coefficients `p`.
    Quotient = 2,
    /// Rank k → rank 0: the five partial sums.
    Partials = 3,
}

impl Tag {
    pub fn name(self) -> &'static str {
        match self {
            Tag::Witness => "its witness slice",
            Tag::Quotient => "its share of the quotient",
            Tag::Partials => "its partial sums",
        }
    }
}

/// Point-to-point messages between ranks.
pub trait Transport {
    fn rank(&self) -> usize;
    fn ranks(&self) -> usize;
    /// Sends `bytes` without waiting for the receiver to take them.
    fn send(&self, to: usize, tag: Tag, bytes: &[u8]) -> Result<(), DistributedError>;
    /// The next message with `tag` from `from`; [`DistributedError::Timeout`] if none
    /// comes within the transport's bound.
    fn receive(&self, from: usize, tag: Tag) -> Result<Vec<u8>, DistributedError>;
}

/// Why a distributed proof failed.
#[derive(Debug, thiserror::Error)]
pub enum DistributedError {
    #[error(
        "rank {rank} sent nothing within {timeout:?} while rank {waiting} waited for {}: \
         it has died or stalled",
        tag.name()
    )]
    Timeout {
        rank: usize,
        waiting: usize,
        tag: Tag,
        timeout: Duration,
    },
    #[error("rank {rank} sent a malformed message ({}): {why}", tag.name())]
    Malformed { rank: usize, tag: Tag, why: String },
    #[error("rank 0 must be given the witness, and no other rank")]
    WitnessPlacement,
    #[error("message passing failed: {0}")]
    Transport(String),
    #[error(transparent)]
    Prove(#[from] ProveError),
}

/// What one rank did.
#[derive(Clone, Debug, Default)]
pub struct RankReport {
    pub rank: usize,
    pub ranks: usize,
    /// Bytes this rank sent and received.
    pub sent: u64,
    pub received: u64,
    /// This rank's phases (rank 0's include the assembly and the self-check).
    pub timings: ProveTimings,
}

/// The share of `count` items that rank `k` of `ranks` takes.
pub fn share(count: usize, ranks: usize, k: usize) -> Range<usize> {
    let at = |k: usize| (count as u128 * k as u128 / ranks as u128) as usize;
    at(k)..at(k + 1)
}

/// Rank `transport.rank()`'s part of a proof. Rank 0 passes the witness and gets the
/// proof; the other ranks pass `None` and get `None`. `opts.self_check` and
/// `opts.r1cs` act on rank 0.
pub fn prove_distributed<E: PairingCurve>(
    key: &ZkeyView<'_, E>,
    witness: Option<&[Fr<E>]>,
    transport: &dyn Transport,
    opts: &ProveOptions<'_, E>,
    bounded: &Bounded<'_>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<(Option<Proof<E>>, RankReport), DistributedError> {
    let (rank, ranks) = (transport.rank(), transport.ranks());
    let mut report = RankReport {
        rank,
        ranks,
        ..RankReport::default()
    };
    let mut clock = Clock::new(opts.on_phase);
    let vars = |k| share(key.n_vars, ranks, k);
    let h_share = |k| share(key.domain_size(), ranks, k);
    let proof = match (rank, witness) {
        (0, Some(witness)) => {
            check_witness(key.n_vars, key.n_public, witness, opts, &mut clock)?;
            clock.run("send witness slices", || {
                for k in 1..ranks {
                    let bytes = encode_scalars(&witness[vars(k)]);
                    report.sent += bytes.len() as u64;
                    transport.send(k, Tag::Witness, &bytes)?;
                }
                Ok::<_, DistributedError>(())
            })?;
            let p = streamed_quotient(key, witness, bounded, &mut clock)?;
            clock.run("send quotient shares", || {
                for k in 1..ranks {
                    let bytes = encode_scalars(&p[h_share(k)]);
                    report.sent += bytes.len() as u64;
                    transport.send(k, Tag::Quotient, &bytes)?;
                }
                Ok::<_, DistributedError>(())
            })?;
            let h = h_share(0);
            let own = &witness[vars(0)];
            let mut sum = partial_msms(key, vars(0), own, h.start, &p[h], bounded, &mut clock)?;
            drop(p);
            clock.run("receive partials", || {
                for k in 1..ranks {
                    let bytes = transport.receive(k, Tag::Partials)?;
                    report.received += bytes.len() as u64;
                    let part = decode_partials::<E>(&bytes, k)?;
                    sum = MsmResults {
                        a: sum.a + part.a,
                        b1: sum.b1 + part.b1,
                        b2: sum.b2 + part.b2,
                        c: sum.c + part.c,
                        h: sum.h + part.h,
                    };
                }
                Ok::<_, DistributedError>(())
            })?;
            let (r, s) = (Fr::<E>::random(rng), Fr::<E>::random(rng));
            let proof = finish(
                &key.vk,
                key.beta_g1,
                key.delta_g1,
                sum,
                (r, s),
                witness,
                opts,
                &mut clock,
            )?;
            Some(proof)
        }
        (k, None) if k > 0 => {
            let own = vars(k);
            let bytes = clock.run("receive witness slice", || {
                transport.receive(0, Tag::Witness)
            })?;
            report.received += bytes.len() as u64;
            let w = decode_scalars::<Fr<E>>(&bytes, own.len(), 0, Tag::Witness)?;
            drop(bytes);
            let h = h_share(k);
            let bytes = clock.run("receive quotient share", || {
                transport.receive(0, Tag::Quotient)
            })?;
            report.received += bytes.len() as u64;
            let p = decode_scalars::<Fr<E>>(&bytes, h.len(), 0, Tag::Quotient)?;
            drop(bytes);
            let part = partial_msms(key, own.clone(), &w, h.start, &p, bounded, &mut clock)?;
            let bytes = encode_partials(&part);
            report.sent += bytes.len() as u64;
            transport.send(0, Tag::Partials, &bytes)?;
            None
        }
        _ => return Err(DistributedError::WitnessPlacement),
    };
    report.timings = clock.timings;
    Ok((proof, report))
}

/// The partial sums of a share: A, B and C over variables `vars` (`w` holds their
/// values), H over points `h_first..h_first + p.len()`.
fn partial_msms<E: PairingCurve>(
    key: &ZkeyView<'_, E>,
    vars: Range<usize>,
    w: &[Fr<E>],
    h_first: usize,
    p: &[Fr<E>],
    bounded: &Bounded<'_>,
    clock: &mut Clock<'_>,
) -> Result<MsmResults<E>, ProveError> {
    let h = clock.run("msm h (g1), own share", || {
        chunked_msm::<E::G1, E>(key, Section::H, h_first, p, bounded)
    })?;
    let a = clock.run("msm a (g1), own share", || {
        chunked_msm::<E::G1, E>(key, Section::A, vars.start, w, bounded)
    })?;
    let (b1, b2) = clock.run("msm b (g1 + g2), own share", || {
        chunked_msm_pair(key, vars.start, w, bounded)
    })?;
    // C's point j is variable n_public + 1 + j.
    let first_private = key.n_public + 1;
    let c_from = vars.start.max(first_private).min(vars.end);
    let c = clock.run("msm c (g1), own share", || {
        chunked_msm::<E::G1, E>(
            key,
            Section::C,
            c_from.saturating_sub(first_private),
            &w[c_from - vars.start..],
            bounded,
        )
    })?;
    Ok(MsmResults { a, b1, b2, c, h })
}

fn encode_scalars<F: PrimeField>(values: &[F]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * F::BYTES);
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

fn decode_scalars<F: PrimeField>(
    bytes: &[u8],
    expected: usize,
    from: usize,
    tag: Tag,
) -> Result<Vec<F>, DistributedError> {
    let malformed = |why: String| DistributedError::Malformed {
        rank: from,
        tag,
        why,
    };
    if bytes.len() != expected * F::BYTES {
        return Err(malformed(format!(
            "{} bytes, expected {expected} field elements",
            bytes.len()
        )));
    }
    bytes
        .par_chunks_exact(F::BYTES)
        .map(|b| F::from_le_bytes(b).map_err(|e| malformed(e.to_string())))
        .collect()
}

fn encode_partials<E: PairingCurve>(p: &MsmResults<E>) -> Vec<u8> {
    let mut out = Vec::new();
    for g1 in [&p.a, &p.b1, &p.c, &p.h] {
        encode_point(&mut out, &g1.to_affine());
    }
    encode_point(&mut out, &p.b2.to_affine());
    out
}

fn decode_partials<E: PairingCurve>(
    bytes: &[u8],
    from: usize,
) -> Result<MsmResults<E>, DistributedError> {
    let (l1, l2) = (point_len::<E::G1>(), point_len::<E::G2>());
    let malformed = |why: String| DistributedError::Malformed {
        rank: from,
        tag: Tag::Partials,
        why,
    };
    if bytes.len() != 4 * l1 + l2 {
        return Err(malformed(format!(
            "{} bytes, expected four G1 and one G2 point",
            bytes.len()
        )));
    }
    let ctx = Ctx::new("partial sums");
    fn point<C: SerializableCurve>(
        bytes: &[u8],
        ctx: &Ctx<'_>,
    ) -> Result<Jacobian<C>, fastzk_formats::FormatError> {
        // Sums of subgroup points: on the curve is what a sender can get wrong.
        decode_point::<C>(bytes, PointCheck::OnCurve, ctx).map(Jacobian::from)
    }
    let g1 = |k: usize| point::<E::G1>(&bytes[k * l1..(k + 1) * l1], &ctx);
    let parts = (|| {
        Ok::<_, fastzk_formats::FormatError>(MsmResults {
            a: g1(0)?,
            b1: g1(1)?,
            c: g1(2)?,
            h: g1(3)?,
            b2: point::<E::G2>(&bytes[4 * l1..], &ctx)?,
        })
    })();
    parts.map_err(|e| malformed(e.to_string()))
}

/// A [`Transport`] between threads of one process, for tests and for checking the
/// schedule without MPI: rank `k` of [`ChannelTransport::mesh`]`(n, timeout)`.
pub struct ChannelTransport {
    rank: usize,
    ranks: usize,
    timeout: Duration,
    to: Vec<std::sync::mpsc::Sender<Message>>,
    /// The incoming channel, and the messages that arrived before they were asked for.
    inbox: std::sync::Mutex<(std::sync::mpsc::Receiver<Message>, Vec<Message>)>,
}

/// Sender, tag, bytes.
type Message = (usize, Tag, Vec<u8>);

impl ChannelTransport {
    /// `ranks` connected transports; each `receive` waits at most `timeout`.
    pub fn mesh(ranks: usize, timeout: Duration) -> Vec<Self> {
        let (senders, receivers): (Vec<_>, Vec<_>) =
            (0..ranks).map(|_| std::sync::mpsc::channel()).unzip();
        receivers
            .into_iter()
            .enumerate()
            .map(|(rank, from)| Self {
                rank,
                ranks,
                timeout,
                to: senders.clone(),
                inbox: std::sync::Mutex::new((from, Vec::new())),
            })
            .collect()
    }
}

impl Transport for ChannelTransport {
    fn rank(&self) -> usize {
        self.rank
    }
    fn ranks(&self) -> usize {
        self.ranks
    }
    fn send(&self, to: usize, tag: Tag, bytes: &[u8]) -> Result<(), DistributedError> {
        self.to[to]
            .send((self.rank, tag, bytes.to_vec()))
            .map_err(|_| DistributedError::Transport(format!("rank {to} has gone")))
    }
    fn receive(&self, from: usize, tag: Tag) -> Result<Vec<u8>, DistributedError> {
        let mut inbox = self.inbox.lock().expect("not poisoned");
        let (from_channel, early) = &mut *inbox;
        if let Some(i) = early.iter().position(|m| m.0 == from && m.1 == tag) {
            return Ok(early.remove(i).2);
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match from_channel.recv_timeout(left) {
                Ok((f, t, bytes)) if f == from && t == tag => return Ok(bytes),
                Ok(other) => early.push(other),
                Err(_) => {
                    return Err(DistributedError::Timeout {
                        rank: from,
                        waiting: self.rank,
                        tag,
                        timeout: self.timeout,
                    })
                }
            }
        }
    }
}
