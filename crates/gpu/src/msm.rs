//! MSM on a device, cuZK's algorithm (§4) in its sparse-matrix form:
//!
//! 1. **Digits** (one thread per point): signed `c`-bit windows of each scalar, counted per
//!    bucket with atomics — the ELL matrix of cuZK, never stored as such.
//! 2. **Transpose to CSR**: the counts' prefix sums give each bucket's row (work-group
//!    scans, their totals scanned and added back), the prefix sums of each bucket's chunk
//!    count where its chunks start, and a kernel writes every chunk's first entry; a
//!    scatter kernel puts every point index (with its digit's sign) into the next slot of
//!    its row. The counts never leave the device: the host reads only the segment sums.
//! 3. **Load-balanced SpMV**: rows are cut into chunks of at most [`CHUNK`] entries, one
//!    thread per chunk adding affine points into an XYZZ accumulator, then one thread per
//!    bucket adds its chunks — so a bucket that holds every point (all-equal scalars)
//!    is summed by many threads.
//! 4. **Bucket reduction** (Algorithm 4): each window's buckets in segments, one thread
//!    per segment computing its running and weighted sums; the host combines the few
//!    segment sums and the windows (Horner over `2^c`).
//!
//! With precomputed bases ([`DeviceMsm::upload_precomputed`]) every window's digits go
//! into one set of buckets, naming the base's shift for that window.
//!
//! Transfers overlap the work: scalars (and bases that are not resident) cross in pieces
//! of [`PIECE`] points through pinned memory on a copy stream, the digits of one piece
//! computed while the next travels and the bases arriving under the counting and the
//! scatter; the windows are then cut into up to [`WINDOW_STREAMS`] groups, each run on a
//! stream of its own. Scratch buffers and pinned memory come from the device's pool.

use std::sync::Arc;

use fastzk_curve::{Affine, Jacobian};
use fastzk_field::PrimeField;
use fastzk_msm::{MsmEngine, MsmError, PrecomputedBases};

use crate::runtime::{Arg, Device};
use crate::source::{affine_words, xyzz_from_words, DeviceCurve, DeviceField, Source};
use crate::GpuError;

/// Most entries one thread of the SpMV adds.
pub const CHUNK: usize = 32;
/// Most segments a window's buckets are cut into for the reduction.
pub const MAX_SEGMENTS: usize = 256;

/// The window for `n` points unless one is set: about log2(n) − 2 bits, within 4 … 16.
pub fn default_window(n: usize) -> u32 {
    (usize::BITS - n.leading_zeros())
        .saturating_sub(3)
        .clamp(4, 16)
}

/// An MSM engine on one device.
#[derive(Clone, Debug)]
pub struct DeviceMsm {
    device: Arc<Device>,
    /// Window bits, or `None` for the size-based default.
    window: Option<u32>,
    /// Points per piece of the overlapped uploads.
    piece: usize,
}

impl DeviceMsm {
    pub fn new(device: Arc<Device>) -> Self {
        Self {
            device,
            window: None,
            piece: PIECE,
        }
    }

    /// Uploads in pieces of `points` (at least one) instead of [`PIECE`].
    pub fn with_piece(mut self, points: usize) -> Self {
        self.piece = points.max(1);
        self
    }

    /// A fixed window of `c` bits (2..=16), instead of the size-based default.
    pub fn with_window(mut self, c: u32) -> Result<Self, MsmError> {
        if !(2..=16).contains(&c) {
            return Err(MsmError::InvalidWindow(c));
        }
        self.window = Some(c);
        Ok(self)
    }

    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    fn window_for(&self, n: usize) -> u32 {
        self.window.unwrap_or_else(|| default_window(n))
    }

    /// `bases` on the device, to be used by many MSMs ([`Self::msm_resident`]). The copy
    /// runs on a stream of its own in pieces through pinned memory, so it may run on one
    /// thread while kernels run on the device's queue on another (Groth16's prefetch).
    pub fn upload_bases<C: DeviceCurve>(
        &self,
        bases: &[Affine<C>],
    ) -> Result<ResidentBases<C>, GpuError> {
        check_size(bases.len())?;
        let d = &*self.device;
        let affine_bytes = 16 * C::Base::WORDS;
        let buf = d.alloc(affine_bytes * bases.len())?;
        let stream = d.stream()?;
        let mut staged = Vec::new();
        for first in (0..bases.len()).step_by(self.piece) {
            let part = &bases[first..(first + self.piece).min(bases.len())];
            let mut pinned = d.pinned(affine_bytes * part.len())?;
            pinned
                .as_mut_slice::<u64>()?
                .copy_from_slice(&bases_words(part));
            stream.upload(&buf, affine_bytes * first, &mut pinned)?;
            staged.push(pinned);
        }
        stream.finish()?;
        Ok(ResidentBases {
            buf,
            infinity: bases.iter().map(|p| p.infinity).collect(),
            shifts: None,
            _curve: std::marker::PhantomData,
        })
    }

    /// A fixed-base table on the device (`fastzk_msm::PrecomputedBases`: every window's
    /// shift `2^(w·c)·P_i` of each base): an MSM over it is one window of `n·windows`
    /// points — one set of buckets, one reduction, no doublings between windows — at
    /// `windows` times the memory ([`ResidentBases::device_bytes`]). Its MSMs use the
    /// table's window, whatever this engine's is.
    pub fn upload_precomputed<C: DeviceCurve>(
        &self,
        table: &PrecomputedBases<C>,
    ) -> Result<ResidentBases<C>, GpuError> {
        let m = table.windows() as usize;
        check_size(table.table().len())?;
        let mut resident = self.upload_bases(table.table())?;
        // The unshifted base says whether the point is at infinity (so are its shifts).
        resident.infinity = resident
            .infinity
            .iter()
            .step_by(m.max(1))
            .copied()
            .collect();
        resident.shifts = Some((table.window(), table.windows()));
        Ok(resident)
    }

    /// `Σ scalars[i]·bases[i]` over bases already on the device: plain bases over their
    /// first `scalars.len()` (a key's powers of tau serve polynomials of any degree
    /// below their count), a fixed-base table over all of them.
    pub fn msm_resident<C: DeviceCurve>(
        &self,
        bases: &ResidentBases<C>,
        scalars: &[C::Scalar],
    ) -> Result<Jacobian<C>, MsmError> {
        let fits = match bases.shifts {
            None => scalars.len() <= bases.len(),
            Some(_) => scalars.len() == bases.len(),
        };
        if !fits {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars: scalars.len(),
            });
        }
        self.run(Bases::Resident(bases), scalars)
            .map_err(|e| MsmError::Device(e.to_string()))
    }

    /// The pipeline (module docs). Streams: `copy` takes the uploads in pieces (host
    /// conversion, transfer and the digits kernel overlap); `main` counts the digits and
    /// builds the rows; then each group of windows runs scatter, SpMV and reduction on a
    /// stream of its own.
    fn run<C: DeviceCurve>(
        &self,
        bases: Bases<'_, C>,
        scalars: &[C::Scalar],
    ) -> Result<Jacobian<C>, GpuError> {
        let n = scalars.len();
        check_size(n)?;
        if n == 0 {
            return Ok(Jacobian::identity());
        }
        let n32 = n as u32;
        // Precomputed bases: every window's digits into one set of buckets.
        let shifts = match bases {
            Bases::Resident(r) => r.shifts,
            Bases::Host(_) => None,
        };
        let shared = shifts.is_some();
        let c = shifts.map_or_else(|| self.window_for(n), |(c, _)| c);
        let bits = C::Scalar::modulus().bits() as u32;
        let windows = (bits + 1).div_ceil(c);
        if let Some((_, m)) = shifts {
            if m != windows {
                return Err(GpuError::Unsupported(format!(
                    "a table of {m} shifts for {windows} windows of {c} bits"
                )));
            }
        }
        let half = 1usize << (c - 1);
        // Windows that have buckets of their own.
        let bucket_windows = if shared { 1 } else { windows };
        let buckets = bucket_windows as usize * half;
        let point_words = 4 * C::Base::WORDS;
        let affine_bytes = 16 * C::Base::WORDS;

        let d = &*self.device;
        let mut src = Source::new();
        src.msm::<C>();
        let prog = d.program(src.text())?;
        let g = C::DEVICE_NAME;

        // Scratch buffers: back to the pool for reuse only once no stream is alive.
        let scalars_buf = d.scratch(32 * n)?;
        let digits = d.scratch(4 * n * windows as usize)?;
        let counts_buf = d.scratch(4 * buckets)?;
        let host_bases = match bases {
            Bases::Host(b) => Some((b, d.scratch(affine_bytes * n)?)),
            Bases::Resident(_) => None,
        };
        let bases_buf: &crate::Buffer = match (&bases, &host_bases) {
            (Bases::Resident(r), _) => &r.buf,
            (_, Some((_, buf))) => buf,
            _ => unreachable!("host bases have their buffer"),
        };
        let mut staged = Vec::new();
        let main = d.stream()?;
        let copy = d.stream()?;
        main.zero(&counts_buf, 4 * buckets)?;

        // Scalars up in pieces; each piece's digits while the next one travels. The point
        // at infinity adds nothing: its scalar is zeroed, so it has no digits.
        let infinity = |i: usize| match bases {
            Bases::Host(b) => b[i].infinity,
            Bases::Resident(r) => r.infinity[i],
        };
        let piece = self.piece;
        for first in (0..n).step_by(piece) {
            let count = piece.min(n - first);
            let mut pinned = d.pinned(32 * count)?;
            for (i, out) in pinned
                .as_mut_slice::<u64>()?
                .chunks_exact_mut(4)
                .enumerate()
            {
                if !infinity(first + i) {
                    out.copy_from_slice(&C::scalar_limbs(&scalars[first + i]));
                }
            }
            copy.upload(&scalars_buf, 32 * first, &mut pinned)?;
            main.wait(&copy.record()?)?;
            main.launch(
                &prog,
                "fz_msm_digits",
                count,
                &[
                    Arg::Buf(&scalars_buf),
                    Arg::U32(n32),
                    Arg::U32(first as u32),
                    Arg::U32(count as u32),
                    Arg::U32(c),
                    Arg::U32(windows),
                    Arg::U32(shared as u32),
                    Arg::Buf(&digits),
                    Arg::Buf(&counts_buf),
                ],
            )?;
            staged.push(pinned);
        }
        // Bases (when not resident) follow on the copy stream, under the counting and the
        // scatter; only the SpMV waits for them.
        if let Some((b, buf)) = &host_bases {
            for first in (0..n).step_by(piece) {
                let count = piece.min(n - first);
                let mut pinned = d.pinned(affine_bytes * count)?;
                pinned
                    .as_mut_slice::<u64>()?
                    .copy_from_slice(&bases_words(&b[first..first + count]));
                copy.upload(buf, affine_bytes * first, &mut pinned)?;
                staged.push(pinned);
            }
        }
        let bases_ready = copy.record()?;

        // Rows and their chunks on the device, from the counts: the exclusive prefix sums
        // of the counts (where each bucket's row starts) and of their chunks (where each
        // bucket's chunks start), then every chunk's first entry and the scatter's
        // cursors. Nothing crosses to the host.
        let offsets = scan(d, &prog, &main, &counts_buf, buckets, 0)?;
        let bucket_chunks = scan(d, &prog, &main, &counts_buf, buckets, CHUNK as u32)?;
        // Each bucket has at most ⌈its entries / CHUNK⌉ ≤ its entries / CHUNK + 1 chunks.
        let digit_count = n * windows as usize;
        let max_chunks = digit_count / CHUNK + buckets;
        let chunk_buf = d.scratch(4 * (max_chunks + 1))?;
        let cursor = d.scratch(4 * buckets)?;
        main.launch(
            &prog,
            "fz_msm_chunk_table",
            buckets,
            &[
                Arg::Buf(&offsets),
                Arg::Buf(&bucket_chunks),
                Arg::U32(buckets as u32),
                Arg::U32(CHUNK as u32),
                Arg::Buf(&chunk_buf),
                Arg::Buf(&cursor),
            ],
        )?;
        let rows_ready = main.record()?;

        let entries = d.scratch(4 * digit_count)?;
        let partial = d.scratch(8 * point_words * max_chunks)?;
        let bucket_sums = d.scratch(8 * point_words * buckets)?;
        let segments = half.min(MAX_SEGMENTS);
        let len = half / segments;
        let parts = bucket_windows as usize * segments;
        let running = d.scratch(8 * point_words * parts)?;
        let weighted = d.scratch(8 * point_words * parts)?;

        // Groups of windows, each on a stream of its own (one group over shared buckets).
        let groups = if shared {
            vec![(0, windows)]
        } else {
            window_groups(windows)
        };
        let streams = groups
            .iter()
            .map(|_| d.stream())
            .collect::<Result<Vec<_>, _>>()?;
        let mut results = Vec::with_capacity(groups.len());
        for (&(w0, w1), s) in groups.iter().zip(&streams) {
            // The windows whose buckets this group sums and reduces.
            let (r0, r1) = if shared { (0, 1) } else { (w0, w1) };
            let (b0, b1) = (r0 as usize * half, r1 as usize * half);
            s.wait(&rows_ready)?;
            s.launch(
                &prog,
                "fz_msm_scatter",
                n * (w1 - w0) as usize,
                &[
                    Arg::Buf(&digits),
                    Arg::U32(n32),
                    Arg::U32(w0),
                    Arg::U32(w1),
                    Arg::U32(windows),
                    Arg::U32(shared as u32),
                    Arg::Buf(&cursor),
                    Arg::Buf(&entries),
                ],
            )?;
            s.wait(&bases_ready)?;
            // As many threads as these buckets can have chunks; the kernel reads how many
            // they have.
            let group_digits = n * (w1 - w0) as usize;
            s.launch(
                &prog,
                &format!("{g}_msm_chunk_sums"),
                group_digits / CHUNK + (b1 - b0),
                &[
                    Arg::Buf(bases_buf),
                    Arg::Buf(&entries),
                    Arg::Buf(&chunk_buf),
                    Arg::Buf(&bucket_chunks),
                    Arg::U32(b0 as u32),
                    Arg::U32(b1 as u32),
                    Arg::Buf(&partial),
                ],
            )?;
            s.launch(
                &prog,
                &format!("{g}_msm_bucket_sums"),
                b1 - b0,
                &[
                    Arg::Buf(&partial),
                    Arg::Buf(&bucket_chunks),
                    Arg::U32(b0 as u32),
                    Arg::U32(b1 as u32),
                    Arg::Buf(&bucket_sums),
                ],
            )?;
            s.launch(
                &prog,
                &format!("{g}_msm_reduce"),
                (r1 - r0) as usize * segments,
                &[
                    Arg::Buf(&bucket_sums),
                    Arg::U32(half as u32),
                    Arg::U32(r0),
                    Arg::U32(r1),
                    Arg::U32(segments as u32),
                    Arg::Buf(&running),
                    Arg::Buf(&weighted),
                ],
            )?;
            let bytes = 8 * point_words * (r1 - r0) as usize * segments;
            let at = 8 * point_words * r0 as usize * segments;
            let mut r = d.pinned(bytes)?;
            let mut t = d.pinned(bytes)?;
            s.download(&running, at, &mut r)?;
            s.download(&weighted, at, &mut t)?;
            results.push((r0, r, t));
        }

        // Σ_d d·bucket_d per window = Σ_s T_s + (s·len)·R_s; then Horner over the windows.
        let mut sums = vec![Jacobian::<C>::identity(); bucket_windows as usize];
        for (w0, mut r, mut t) in results {
            let r = r.as_slice::<u64>()?.to_vec();
            let t = t.as_slice::<u64>()?;
            for (k, (run, sum)) in r
                .chunks_exact(point_words)
                .zip(t.chunks_exact(point_words))
                .enumerate()
            {
                let (w, s) = (w0 as usize + k / segments, k % segments);
                let run = xyzz_from_words::<C>(run).to_jacobian();
                let sum = xyzz_from_words::<C>(sum).to_jacobian();
                sums[w] = sums[w] + sum + run.mul_bigint(&[(s * len) as u64]);
            }
        }
        let mut acc = Jacobian::<C>::identity();
        for window in sums.into_iter().rev() {
            for _ in 0..c {
                acc = acc.double();
            }
            acc += window;
        }
        Ok(acc)
    }
}

/// Scalars (and host bases) cross in pieces of this many points (by default), so that the
/// transfer of one overlaps the work on the one before.
pub const PIECE: usize = 1 << 16;
/// At most this many streams run groups of windows side by side.
pub const WINDOW_STREAMS: u32 = 4;

/// The windows cut into at most [`WINDOW_STREAMS`] contiguous groups `[w0, w1)`.
fn window_groups(windows: u32) -> Vec<(u32, u32)> {
    let k = WINDOW_STREAMS.min(windows).max(1);
    (0..k)
        .map(|i| (windows * i / k, windows * (i + 1) / k))
        .filter(|(a, b)| a < b)
        .collect()
}

/// The MSM's device prefix sums on `values`, through the host (for tests and other
/// callers): `values.len() + 1` entries, `f(v) = ⌈v / div⌉` when `div > 0`, else `v`.
pub fn prefix_sums(device: &Device, values: &[u32], div: u32) -> Result<Vec<u32>, GpuError> {
    let mut src = Source::new();
    src.msm_shared();
    let prog = device.program(src.text())?;
    let input = device.upload(values)?;
    let stream = device.stream()?;
    let out = scan(device, &prog, &stream, &input, values.len(), div)?;
    stream.finish()?;
    device.read_vec(&out, values.len() + 1)
}

/// Exclusive prefix sums of `f(input[0..n])` on `stream` (`f(v) = ⌈v / div⌉` when
/// `div > 0`, else `v`): `n + 1` entries, the last one the total. Work-group scans, then
/// the groups' totals scanned the same way and added back.
fn scan<'d>(
    d: &'d Device,
    prog: &crate::Program,
    stream: &crate::runtime::Stream<'d>,
    input: &crate::Buffer,
    n: usize,
    div: u32,
) -> Result<crate::runtime::Scratch<'d>, GpuError> {
    let group = d.group_size();
    let groups = (n + 1).div_ceil(group);
    let out = d.scratch(4 * groups * group)?;
    let sums = d.scratch(4 * groups)?;
    stream.launch_groups(
        prog,
        "fz_scan_groups",
        groups,
        &[
            Arg::Buf(input),
            Arg::U32(n as u32),
            Arg::U32(div),
            Arg::Buf(&out),
            Arg::Buf(&sums),
        ],
    )?;
    if groups > 1 {
        let offsets = scan(d, prog, stream, &sums, groups, 0)?;
        stream.launch_groups(
            prog,
            "fz_scan_add",
            groups,
            &[Arg::Buf(&out), Arg::Buf(&offsets)],
        )?;
    }
    Ok(out)
}

/// Where an MSM's bases are.
enum Bases<'a, C: DeviceCurve> {
    Host(&'a [Affine<C>]),
    Resident(&'a ResidentBases<C>),
}

impl<C: DeviceCurve> Clone for Bases<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C: DeviceCurve> Copy for Bases<'_, C> {}

fn check_size(n: usize) -> Result<(), GpuError> {
    if u32::try_from(n).map_or(true, |n| n >= 1 << 31) {
        return Err(GpuError::Unsupported(format!(
            "{n} points in one device MSM"
        )));
    }
    Ok(())
}

/// The bases' words as the kernels read them (the point at infinity as zeros).
fn bases_words<C: DeviceCurve>(bases: &[Affine<C>]) -> Vec<u64> {
    let mut words = Vec::with_capacity(bases.len() * 2 * C::Base::WORDS);
    let zero = vec![0u64; 2 * C::Base::WORDS];
    for p in bases {
        if p.infinity {
            words.extend_from_slice(&zero);
        } else {
            affine_words(p, &mut words);
        }
    }
    words
}

impl<C: DeviceCurve> MsmEngine<C> for DeviceMsm {
    fn name(&self) -> String {
        format!("device MSM on {}", self.device.info())
    }

    fn msm(&self, bases: &[Affine<C>], scalars: &[C::Scalar]) -> Result<Jacobian<C>, MsmError> {
        if bases.len() != scalars.len() {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars: scalars.len(),
            });
        }
        self.run(Bases::Host(bases), scalars)
            .map_err(|e| MsmError::Device(e.to_string()))
    }
}

/// Bases on a device: uploaded once, used by many MSMs (the point at infinity is stored
/// as zeros and its scalar zeroed at each MSM).
pub struct ResidentBases<C> {
    buf: crate::Buffer,
    infinity: Vec<bool>,
    /// A precomputed table's window and shifts per base.
    shifts: Option<(u32, u32)>,
    _curve: std::marker::PhantomData<C>,
}

impl<C> ResidentBases<C> {
    /// The number of bases (not of a table's shifts).
    pub fn len(&self) -> usize {
        self.infinity.len()
    }
    pub fn is_empty(&self) -> bool {
        self.infinity.is_empty()
    }
    /// Device memory the bases take (a precomputed table: `windows` times the bases').
    pub fn device_bytes(&self) -> usize {
        self.buf.len()
    }
    /// The window of a precomputed table.
    pub fn precomputed_window(&self) -> Option<u32> {
        self.shifts.map(|(c, _)| c)
    }
}

/// One MSM split across several devices (cuZK §3.2's multi-GPU MSM): each device takes a
/// contiguous range of the bases, in proportion to its compute units, on its own thread;
/// the host adds the partial results.
#[derive(Clone, Debug)]
pub struct MultiDeviceMsm {
    engines: Vec<DeviceMsm>,
}

impl MultiDeviceMsm {
    /// An error when `devices` is empty.
    pub fn new(devices: Vec<Arc<Device>>) -> Result<Self, GpuError> {
        if devices.is_empty() {
            return Err(GpuError::Unsupported(
                "a split MSM needs at least one device".into(),
            ));
        }
        Ok(Self {
            engines: devices.into_iter().map(DeviceMsm::new).collect(),
        })
    }

    /// Where each device's range starts, for `n` points (the last entry is `n`).
    fn bounds(&self, n: usize) -> Vec<usize> {
        let weights: Vec<usize> = self
            .engines
            .iter()
            .map(|e| e.device.info().compute_units.max(1) as usize)
            .collect();
        let total: usize = weights.iter().sum();
        let mut bounds = vec![0];
        let mut acc = 0;
        for w in &weights {
            acc += w;
            bounds.push(n * acc / total);
        }
        bounds
    }
}

impl<C: DeviceCurve> MsmEngine<C> for MultiDeviceMsm {
    fn name(&self) -> String {
        format!("device MSM split over {} devices", self.engines.len())
    }

    fn msm(&self, bases: &[Affine<C>], scalars: &[C::Scalar]) -> Result<Jacobian<C>, MsmError> {
        if bases.len() != scalars.len() {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars: scalars.len(),
            });
        }
        let b = self.bounds(bases.len());
        let parts: Vec<Result<Jacobian<C>, MsmError>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .engines
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let (lo, hi) = (b[i], b[i + 1]);
                    s.spawn(move || e.msm(&bases[lo..hi], &scalars[lo..hi]))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(MsmError::Device("a device thread panicked".into()))
                    })
                })
                .collect()
        });
        parts
            .into_iter()
            .try_fold(Jacobian::identity(), |acc, p| Ok(acc + p?))
    }
}
