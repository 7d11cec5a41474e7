//! `--distributed`: one Groth16 proof made by the ranks of an MPI job
//! (`mpirun -np N fastzk groth16 prove … --distributed`), with the schedule of
//! [`fastzk_groth16::distributed`]. Every rank maps the key and reads only its slices;
//! rank 0 reads (or computes) the witness and writes the proof. Each rank prints one
//! line with what it sent and received. Any error on any rank is printed with the rank's
//! number and ends the whole job (`MPI_Abort`), so no rank is left waiting.

/// Proves `p` as this process's rank of the MPI job it was started in.
#[cfg(not(feature = "mpi"))]
#[allow(clippy::extra_unused_type_parameters)] // the MPI build's signature
pub fn prove<E: fastzk_pairing::PairingCurve>(_p: &crate::args::ProveJob) -> anyhow::Result<()> {
    anyhow::bail!(
        "--distributed needs a fastzk built with MPI: `cargo build --release --features \
         mpi` (with an MPI library such as OpenMPI and libclang installed), then `mpirun -np \
         N fastzk groth16 prove … --distributed`"
    )
}

#[cfg(feature = "mpi")]
pub use with_mpi::prove;

#[cfg(feature = "mpi")]
mod with_mpi {
    use std::time::{Duration, Instant};

    use anyhow::{Context, Result};
    use fastzk_formats::codec::PointCheck;
    use fastzk_formats::{write_public_json, R1csFile};
    use fastzk_groth16::distributed::{DistributedError, Tag, Transport};
    use fastzk_groth16::{prove_distributed, write_proof_json, Bounded, ProveOptions, ZkeyView};
    use fastzk_pairing::{Fr, PairingCurve};
    use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
    use mpi::topology::{Communicator, SimpleCommunicator};
    use rand_core::OsRng;

    use crate::args::ProveJob;
    use crate::cmd::groth16::name;
    use crate::memory;
    use crate::progress::{eprint_whole, format_timings};

    /// Largest piece one MPI message carries (MPI counts in a C `int`).
    const PIECE: usize = 1 << 28;
    /// How often a waiting rank looks for its message.
    const POLL: Duration = Duration::from_micros(200);

    /// Point-to-point messages of `MPI_COMM_WORLD`, each a header with the length, then
    /// pieces of at most [`PIECE`] bytes; every wait polls, bounded by `timeout`.
    struct MpiTransport<'w> {
        world: &'w SimpleCommunicator,
        timeout: Duration,
    }

    fn header_tag(tag: Tag) -> i32 {
        2 * tag as i32
    }

    fn piece_tag(tag: Tag) -> i32 {
        2 * tag as i32 + 1
    }

    impl MpiTransport<'_> {
        /// The next message with MPI tag `mpi_tag` from `from`, within the bound.
        fn next(&self, from: usize, tag: Tag, mpi_tag: i32) -> Result<Vec<u8>, DistributedError> {
            let source = self.world.process_at_rank(from as i32);
            let deadline = Instant::now() + self.timeout;
            loop {
                if let Some(matched) = source.immediate_matched_probe_with_tag(mpi_tag) {
                    return Ok(matched.matched_receive_vec::<u8>().0);
                }
                if Instant::now() > deadline {
                    return Err(DistributedError::Timeout {
                        rank: from,
                        waiting: self.rank(),
                        tag,
                        timeout: self.timeout,
                    });
                }
                std::thread::sleep(POLL);
            }
        }

        /// Sends one piece; if `to` has not taken it within the bound, says so and ends
        /// the job (an MPI send cannot be abandoned).
        fn send_piece(&self, to: usize, tag: Tag, mpi_tag: i32, piece: &[u8]) {
            let dest = self.world.process_at_rank(to as i32);
            let deadline = Instant::now() + self.timeout;
            mpi::request::scope(|scope| {
                let mut request = dest.immediate_send_with_tag(scope, piece, mpi_tag);
                loop {
                    match request.test() {
                        Ok(_) => return,
                        Err(pending) => request = pending,
                    }
                    if Instant::now() > deadline {
                        eprintln!(
                            "fastzk rank {}: error: rank {to} took nothing within {:?} while \
                             rank {} sent it {}: it has died or stalled",
                            self.rank(),
                            self.timeout,
                            self.rank(),
                            tag.name()
                        );
                        self.world.abort(2);
                    }
                    std::thread::sleep(POLL);
                }
            });
        }
    }

    impl Transport for MpiTransport<'_> {
        fn rank(&self) -> usize {
            self.world.rank() as usize
        }
        fn ranks(&self) -> usize {
            self.world.size() as usize
        }
        fn send(&self, to: usize, tag: Tag, bytes: &[u8]) -> Result<(), DistributedError> {
            let header = (bytes.len() as u64).to_le_bytes();
            self.send_piece(to, tag, header_tag(tag), &header);
            for piece in bytes.chunks(PIECE) {
                self.send_piece(to, tag, piece_tag(tag), piece);
            }
            Ok(())
        }
        fn receive(&self, from: usize, tag: Tag) -> Result<Vec<u8>, DistributedError> {
            let header = self.next(from, tag, header_tag(tag))?;
            let malformed = |why: String| DistributedError::Malformed {
                rank: from,
                tag,
                why,
            };
            let len = <[u8; 8]>::try_from(header.as_slice())
                .map(u64::from_le_bytes)
                .map_err(|_| malformed(format!("a {}-byte header", header.len())))?;
            let len = usize::try_from(len).map_err(|_| malformed(format!("{len} bytes")))?;
            let mut out = Vec::new();
            out.try_reserve_exact(len)
                .map_err(|_| malformed(format!("{len} bytes do not fit in memory")))?;
            while out.len() < len {
                let piece = self.next(from, tag, piece_tag(tag))?;
                if piece.is_empty() || out.len() + piece.len() > len {
                    return Err(malformed(format!(
                        "a piece of {} bytes after {} of {len}",
                        piece.len(),
                        out.len()
                    )));
                }
                out.extend_from_slice(&piece);
            }
            Ok(out)
        }
    }

    /// Proves `p` as this process's rank of the MPI job it was started in.
    pub fn prove<E: PairingCurve>(p: &ProveJob) -> Result<()> {
        // MPI's sockets report a closed peer as an error, which needs SIGPIPE ignored
        // again (`main` restored the default for pipes).
        // SAFETY: before MPI starts its threads; one signal's disposition.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
        let universe = mpi::initialize().context("MPI could not be initialised")?;
        let world = universe.world();
        let transport = MpiTransport {
            world: &world,
            timeout: Duration::from_secs(p.flags.rank_timeout),
        };
        if let Err(e) = run_rank::<E>(p, &transport) {
            eprintln!(
                "fastzk rank {} of {}: error: {e:#}",
                transport.rank(),
                transport.ranks()
            );
            world.abort(2);
        }
        Ok(())
    }

    fn run_rank<E: PairingCurve>(p: &ProveJob, transport: &MpiTransport<'_>) -> Result<()> {
        let start = Instant::now();
        let (rank, ranks) = (transport.rank(), transport.ranks());
        let file = name(&p.zkey);
        let map = memory::map_lazily(&p.zkey)?;
        let release = |piece: &[u8]| memory::release(&map, piece);
        // The validated-key cache needs the whole key's hash, which no rank reads: each
        // rank checks the points of its slices (on the curve only for --trusted-key).
        let check = if p.flags.trusted_key {
            PointCheck::OnCurve
        } else {
            PointCheck::Subgroup
        };
        let view = ZkeyView::<E>::parse(&map, &file, check)?;
        // The budget is shared by the ranks of this machine.
        let local_ranks = std::env::var("OMPI_COMM_WORLD_LOCAL_SIZE")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(1)
            .max(1);
        let budget = p
            .flags
            .max_memory
            .or_else(|| memory::machine_memory().map(|m| m / 4 * 3))
            .map(|b| b / local_ranks);
        let (chunk_points, block_entries) =
            match memory::plan::<E>(&p.zkey, budget, p.flags.chunk_points)? {
                memory::Plan::Eager => (usize::MAX, 1 << 22),
                memory::Plan::Bounded {
                    chunk_points,
                    block_entries,
                } => (chunk_points, block_entries),
            };
        let witness = match rank {
            0 => Some(p.witness.load::<Fr<E>>()?),
            _ => None,
        };
        let r1cs = match (&p.flags.r1cs, rank) {
            (Some(path), 0) => Some(R1csFile::<Fr<E>>::open(path)?.r1cs),
            _ => None,
        };
        let opts = ProveOptions {
            r1cs: r1cs.as_ref(),
            ..ProveOptions::default()
        };
        let bounded = Bounded {
            chunk_points,
            block_entries,
            check,
            release: &release,
        };
        let (proof, report) = prove_distributed(
            &view,
            witness.as_deref(),
            transport,
            &opts,
            &bounded,
            &mut OsRng,
        )
        .with_context(|| format!("proving with {file}"))?;
        let mib = |b: u64| b as f64 / (1 << 20) as f64;
        // One write for the whole report: the ranks share mpirun's stderr.
        let mut text = format!(
            "rank {rank} of {ranks}: sent {:.2} MiB, received {:.2} MiB, {:.2} s\n",
            mib(report.sent),
            mib(report.received),
            start.elapsed().as_secs_f64()
        );
        if let (Some(proof), Some(z)) = (proof, &witness) {
            write_proof_json(&p.proof, &proof)?;
            write_public_json(&p.public, &z[1..=view.n_public])?;
        }
        if p.flags.timings {
            text += &format!("rank {rank} of {ranks}, phases:\n");
            text += &format_timings(&report.timings.phases, &[], start.elapsed());
        }
        eprint_whole(&text);
        Ok(())
    }
}
