//! MSM on a device, cuZK's algorithm (§4) in its sparse-matrix form:
//!
//! 1. **Digits** (one thread per point): signed `c`-bit windows of each scalar, counted per
//!    bucket with atomics — the ELL matrix of cuZK, never stored as such.
//! 2. **Transpose to CSR**: the counts' prefix sums give each bucket's row; a scatter
//!    kernel puts every point index (with its digit's sign) into the next slot of its row.
//! 3. **Load-balanced SpMV**: rows are cut into chunks of at most [`CHUNK`] entries, one
//!    thread per chunk adding affine points into an XYZZ accumulator, then one thread per
//!    bucket adds its chunks — so a bucket that holds every point (all-equal scalars)
//!    is summed by many threads.
//! 4. **Bucket reduction** (Algorithm 4): each window's buckets in segments, one thread
//!    per segment computing its running and weighted sums; the host combines the few
//!    segment sums and the windows (Horner over `2^c`).
//!
//! The host computes the prefix sums and the chunk table (a pass over the
//! `windows · 2^(c−1)` counts, not over the points).

use std::sync::Arc;

use fastzk_curve::{Affine, Jacobian};
use fastzk_field::PrimeField;
use fastzk_msm::{MsmEngine, MsmError};

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
}

impl DeviceMsm {
    pub fn new(device: Arc<Device>) -> Self {
        Self {
            device,
            window: None,
        }
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

    /// `bases` on the device, to be used by many MSMs ([`Self::msm_resident`]).
    pub fn upload_bases<C: DeviceCurve>(
        &self,
        bases: &[Affine<C>],
    ) -> Result<ResidentBases<C>, GpuError> {
        let n = bases.len();
        if u32::try_from(n).map_or(true, |n| n >= 1 << 31) {
            return Err(GpuError::Unsupported(format!(
                "{n} points in one device MSM"
            )));
        }
        let mut words = Vec::with_capacity(n * 2 * C::Base::WORDS);
        let zero = vec![0u64; 2 * C::Base::WORDS];
        for p in bases {
            if p.infinity {
                words.extend_from_slice(&zero);
            } else {
                affine_words(p, &mut words);
            }
        }
        Ok(ResidentBases {
            buf: self.device.upload(&words)?,
            infinity: bases.iter().map(|p| p.infinity).collect(),
            _curve: std::marker::PhantomData,
        })
    }

    /// `Σ scalars[i]·bases[i]` over bases already on the device.
    pub fn msm_resident<C: DeviceCurve>(
        &self,
        bases: &ResidentBases<C>,
        scalars: &[C::Scalar],
    ) -> Result<Jacobian<C>, MsmError> {
        if bases.len() != scalars.len() {
            return Err(MsmError::LengthMismatch {
                bases: bases.len(),
                scalars: scalars.len(),
            });
        }
        self.run_on(bases, scalars)
            .map_err(|e| MsmError::Device(e.to_string()))
    }

    fn run_on<C: DeviceCurve>(
        &self,
        bases: &ResidentBases<C>,
        scalars: &[C::Scalar],
    ) -> Result<Jacobian<C>, GpuError> {
        let n = scalars.len();
        if n == 0 {
            return Ok(Jacobian::identity());
        }
        // The point at infinity adds nothing: its scalar is zeroed, so it has no digits.
        let mut limbs = Vec::with_capacity(4 * n);
        for (k, &inf) in scalars.iter().zip(&bases.infinity) {
            limbs.extend_from_slice(&if inf { [0; 4] } else { C::scalar_limbs(k) });
        }
        let n32 = n as u32;
        let c = self.window_for(n);
        let bits = C::Scalar::modulus().bits() as u32;
        let windows = (bits + 1).div_ceil(c);
        let half = 1usize << (c - 1);
        let buckets = windows as usize * half;

        let d = &*self.device;
        let mut src = Source::new();
        src.msm::<C>();
        let prog = d.program(src.text())?;
        let g = C::DEVICE_NAME;

        let scalars_buf = d.upload(&limbs)?;
        let bases_buf = &bases.buf;
        let digits = d.alloc(4 * n * windows as usize)?;
        let counts_buf = d.alloc(4 * buckets)?;
        d.launch(
            &prog,
            "fz_msm_digits",
            n,
            &[
                Arg::Buf(&scalars_buf),
                Arg::U32(n32),
                Arg::U32(c),
                Arg::U32(windows),
                Arg::Buf(&digits),
                Arg::Buf(&counts_buf),
            ],
        )?;
        let counts: Vec<u32> = d.read_vec(&counts_buf, buckets)?;

        // Rows (exclusive prefix sums) and their chunks.
        let mut offsets = Vec::with_capacity(buckets + 1);
        let mut bucket_chunks = Vec::with_capacity(buckets + 1);
        let mut chunk_start = Vec::new();
        let mut at = 0u32;
        for &k in &counts {
            offsets.push(at);
            bucket_chunks.push(chunk_start.len() as u32);
            let mut s = 0;
            while s < k {
                chunk_start.push(at + s);
                s += CHUNK as u32;
            }
            at += k;
        }
        offsets.push(at);
        bucket_chunks.push(chunk_start.len() as u32);
        let chunks = chunk_start.len();
        chunk_start.push(at);

        let cursor = d.upload(&offsets)?;
        let entries = d.alloc(4 * at as usize)?;
        d.launch(
            &prog,
            "fz_msm_scatter",
            n * windows as usize,
            &[
                Arg::Buf(&digits),
                Arg::U32(n32),
                Arg::U32(windows),
                Arg::Buf(&cursor),
                Arg::Buf(&entries),
            ],
        )?;

        let point_words = 4 * C::Base::WORDS;
        let chunk_buf = d.upload(&chunk_start)?;
        let partial = d.alloc(8 * point_words * chunks)?;
        d.launch(
            &prog,
            &format!("{g}_msm_chunk_sums"),
            chunks,
            &[
                Arg::Buf(bases_buf),
                Arg::Buf(&entries),
                Arg::Buf(&chunk_buf),
                Arg::U32(chunks as u32),
                Arg::Buf(&partial),
            ],
        )?;
        let bucket_chunk_buf = d.upload(&bucket_chunks)?;
        let bucket_sums = d.alloc(8 * point_words * buckets)?;
        d.launch(
            &prog,
            &format!("{g}_msm_bucket_sums"),
            buckets,
            &[
                Arg::Buf(&partial),
                Arg::Buf(&bucket_chunk_buf),
                Arg::U32(buckets as u32),
                Arg::Buf(&bucket_sums),
            ],
        )?;

        let segments = half.min(MAX_SEGMENTS);
        let len = half / segments;
        let parts = windows as usize * segments;
        let running = d.alloc(8 * point_words * parts)?;
        let weighted = d.alloc(8 * point_words * parts)?;
        d.launch(
            &prog,
            &format!("{g}_msm_reduce"),
            parts,
            &[
                Arg::Buf(&bucket_sums),
                Arg::U32(half as u32),
                Arg::U32(windows),
                Arg::U32(segments as u32),
                Arg::Buf(&running),
                Arg::Buf(&weighted),
            ],
        )?;
        let r: Vec<u64> = d.read_vec(&running, point_words * parts)?;
        let t: Vec<u64> = d.read_vec(&weighted, point_words * parts)?;

        // Σ_d d·bucket_d per window = Σ_s T_s + (s·len)·R_s; then Horner over the windows.
        let mut acc = Jacobian::<C>::identity();
        for w in (0..windows as usize).rev() {
            for _ in 0..c {
                acc = acc.double();
            }
            let mut window = Jacobian::<C>::identity();
            for s in 0..segments {
                let i = (w * segments + s) * point_words;
                let run = xyzz_from_words::<C>(&r[i..i + point_words]).to_jacobian();
                let sum = xyzz_from_words::<C>(&t[i..i + point_words]).to_jacobian();
                window = window + sum + run.mul_bigint(&[(s * len) as u64]);
            }
            acc += window;
        }
        Ok(acc)
    }
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
        let resident = self
            .upload_bases(bases)
            .map_err(|e| MsmError::Device(e.to_string()))?;
        self.msm_resident(&resident, scalars)
    }
}

/// Bases on a device: uploaded once, used by many MSMs (the point at infinity is stored
/// as zeros and its scalar zeroed at each MSM).
pub struct ResidentBases<C> {
    buf: crate::Buffer,
    infinity: Vec<bool>,
    _curve: std::marker::PhantomData<C>,
}

impl<C> ResidentBases<C> {
    pub fn len(&self) -> usize {
        self.infinity.len()
    }
    pub fn is_empty(&self) -> bool {
        self.infinity.is_empty()
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
