//! Devices found at run time, their buffers, programs and launches, on CUDA (`cudarc`,
//! driver and NVRTC loaded dynamically) or OpenCL (`opencl3`, ICD loader loaded
//! dynamically). Kernels are compiled at first use for the device and cached in memory
//! and on disk ([`crate::cache`]). Every driver failure is a [`GpuError`] naming it.
//!
//! The blocking calls on a [`Device`] (`upload`, `read`, `launch`, `finish`) use its own
//! in-order queue (an OpenCL command queue, a CUDA stream). For overlap there are
//! [`Stream`]s — further queues, recycled — ordered with each other by [`Event`]s, with
//! asynchronous copies to and from [`Pinned`] host memory; scratch buffers come from a
//! per-device pool ([`Device::scratch`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::GpuError;
use crate::{cuda, opencl};

/// A device API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    Cuda,
    OpenCl,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Cuda => "cuda",
            Backend::OpenCl => "opencl",
        })
    }
}

/// What a device is, as its driver reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub backend: Backend,
    /// Index among the backend's devices (across platforms for OpenCL).
    pub index: usize,
    pub name: String,
    /// The OpenCL platform, or the CUDA compute capability.
    pub platform: String,
    /// Driver version, as reported.
    pub driver: String,
    /// Global memory in bytes.
    pub memory: u64,
    pub compute_units: u32,
    /// A GPU (every CUDA device; OpenCL devices of type GPU), not a CPU or accelerator
    /// runtime such as PoCL: what `--device auto` may choose.
    pub gpu: bool,
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}{} ({}; {} compute units, {:.1} GiB; driver {})",
            self.backend,
            self.index,
            self.name,
            if self.gpu { "" } else { " [not a GPU]" },
            self.platform,
            self.compute_units,
            self.memory as f64 / (1u64 << 30) as f64,
            self.driver
        )
    }
}

/// The devices `backend` offers; an error when its driver cannot be loaded.
pub fn devices(backend: Backend) -> Result<Vec<DeviceInfo>, GpuError> {
    match backend {
        Backend::Cuda => cuda::devices(),
        Backend::OpenCl => opencl::devices(),
    }
}

/// What `--device` names: the CPU engines, a backend's first device, or the first GPU
/// there is (CUDA, then an OpenCL GPU), falling back to the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    Cpu,
    Cuda,
    OpenCl,
    Auto,
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "cpu" => Ok(Self::Cpu),
            "cuda" => Ok(Self::Cuda),
            "opencl" => Ok(Self::OpenCl),
            "auto" => Ok(Self::Auto),
            _ => Err(format!("unknown device {s:?} (cpu, cuda, opencl, auto)")),
        }
    }
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Cpu => "cpu",
            Self::Cuda => "cuda",
            Self::OpenCl => "opencl",
            Self::Auto => "auto",
        })
    }
}

impl DeviceChoice {
    /// The device to use, `None` for the CPU engines; an error when a named backend has
    /// no usable device (`auto` never fails: it falls back to the CPU).
    pub fn open(self) -> Result<Option<Device>, GpuError> {
        match self {
            Self::Cpu => Ok(None),
            Self::Cuda => Device::open(Backend::Cuda, 0).map(Some),
            Self::OpenCl => Device::open(Backend::OpenCl, 0).map(Some),
            Self::Auto => {
                for b in [Backend::Cuda, Backend::OpenCl] {
                    for d in devices(b).unwrap_or_default() {
                        if d.gpu {
                            if let Ok(dev) = Device::open(b, d.index) {
                                return Ok(Some(dev));
                            }
                        }
                    }
                }
                Ok(None)
            }
        }
    }
}

/// A buffer in a device's memory (bytes; typed by the kernels that read it).
pub struct Buffer {
    pub(crate) imp: BufferImp,
    len: usize,
}

pub(crate) enum BufferImp {
    Cl(opencl::ClBuffer),
    Cu(cuda::CuBuffer),
}

impl Buffer {
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A kernel argument: a buffer or a scalar of the kernel's C type.
#[derive(Clone, Copy)]
pub enum Arg<'a> {
    Buf(&'a Buffer),
    U32(u32),
    U64(u64),
}

/// A compiled program: the kernels of one source on one device.
pub struct Program {
    pub(crate) imp: ProgramImp,
}

pub(crate) enum ProgramImp {
    Cl(opencl::ClProgram),
    Cu(cuda::CuProgram),
}

/// An opened device with its queue and its compiled programs.
pub struct Device {
    info: DeviceInfo,
    imp: DeviceImp,
    programs: Mutex<HashMap<blake3::Hash, Arc<Program>>>,
    /// The counter table of a counting device ([`crate::count`]).
    counters: Option<Mutex<Buffer>>,
    pool: Mutex<Pool>,
}

/// What a device keeps for reuse: idle streams, and scratch buffers and pinned host
/// memory by size class (a power of two), up to a cap.
#[derive(Default)]
struct Pool {
    queues: Vec<QueueImp>,
    buffers: HashMap<usize, Vec<BufferImp>>,
    pinned: HashMap<usize, Vec<PinnedImp>>,
    /// Bytes held in `buffers` and in `pinned`.
    buffer_bytes: usize,
    pinned_bytes: usize,
    stats: PoolStats,
    /// Streams alive now: while any is, dropped scratch buffers wait in `deferred`, since
    /// work issued on a stream may still use them.
    live_streams: usize,
    deferred: Vec<(usize, BufferImp)>,
    /// A stream failed to finish: its deferred buffers are freed, not reused.
    poisoned: bool,
}

impl Pool {
    /// Keeps an idle scratch buffer of `class` bytes for reuse, within the cap.
    fn keep(&mut self, class: usize, b: BufferImp) {
        if self.buffer_bytes + class <= POOL_CAP {
            self.buffer_bytes += class;
            self.buffers.entry(class).or_default().push(b);
        }
    }
}

/// How the pool served requests since the device was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Scratch buffers and pinned memory handed out again without an allocation.
    pub reused: u64,
    /// Those that needed a new allocation.
    pub allocated: u64,
    /// Bytes of device memory the pool holds now (idle scratch buffers).
    pub idle_device_bytes: usize,
    /// Bytes of pinned host memory the pool holds now.
    pub idle_pinned_bytes: usize,
}

/// Allocations are pooled by this class: the power of two at or above, at least 4 KiB.
fn size_class(bytes: usize) -> usize {
    bytes.max(4096).next_power_of_two()
}

/// The most idle memory the pool keeps, device and pinned each.
const POOL_CAP: usize = 1 << 30;

enum DeviceImp {
    Cl(opencl::ClDevice),
    Cu(cuda::CuDevice),
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({})", self.info)
    }
}

/// Plain words that cross to a device as they are.
pub trait Word: bytemuck::Pod {}
impl Word for u32 {}
impl Word for u64 {}

impl Device {
    /// Device `index` of `backend`.
    pub fn open(backend: Backend, index: usize) -> Result<Self, GpuError> {
        let (info, imp) = match backend {
            Backend::Cuda => {
                let (info, d) = cuda::CuDevice::open(index)?;
                (info, DeviceImp::Cu(d))
            }
            Backend::OpenCl => {
                let (info, d) = opencl::ClDevice::open(index)?;
                (info, DeviceImp::Cl(d))
            }
        };
        Ok(Self {
            info,
            imp,
            programs: Mutex::new(HashMap::new()),
            counters: None,
            pool: Mutex::new(Pool::default()),
        })
    }

    /// The device the test suites run on: CUDA device `i` with
    /// `FASTZK_TEST_CUDA_DEVICE=i` (on a GPU host), else OpenCL device
    /// `FASTZK_TEST_OPENCL_DEVICE` (0 by default: PoCL in CI); opened once per process
    /// and shared by its trials.
    pub fn for_tests() -> Result<Arc<Self>, String> {
        static DEV: OnceLock<Result<Arc<Device>, String>> = OnceLock::new();
        DEV.get_or_init(|| {
            let index = |var: &str| std::env::var(var).ok().and_then(|v| v.parse().ok());
            match index("FASTZK_TEST_CUDA_DEVICE") {
                Some(i) => Self::open(Backend::Cuda, i),
                None => Self::open(
                    Backend::OpenCl,
                    index("FASTZK_TEST_OPENCL_DEVICE").unwrap_or(0),
                ),
            }
            .map(Arc::new)
            .map_err(|e| e.to_string())
        })
        .clone()
    }

    /// Whether [`Self::for_tests`] has a device: a device trial's condition, with the
    /// reason it is ignored where there is none.
    pub fn for_tests_available() -> Result<(), &'static str> {
        Self::for_tests().map(drop).map_err(|_| {
            "no device (install pocl-opencl-icd; FASTZK_TEST_CUDA_DEVICE=0 on a GPU host)"
        })
    }

    /// Device `index` of `backend` in counting mode: every kernel compiled with `FZ_COUNT`
    /// counts its primitives and device-memory bytes (slower; for the static model's
    /// checks, see [`crate::count`]).
    pub fn open_counting(backend: Backend, index: usize) -> Result<Self, GpuError> {
        let mut d = Self::open(backend, index)?;
        d.counters = Some(Mutex::new(d.alloc(4 * crate::count::WORDS)?));
        Ok(d)
    }

    /// The counters since the last reset (`None` unless counting).
    pub fn counts(&self) -> Result<Option<crate::count::Counts>, GpuError> {
        match &self.counters {
            None => Ok(None),
            Some(b) => {
                let b = b.lock().unwrap_or_else(|e| e.into_inner());
                Ok(Some(crate::count::Counts(
                    self.read_vec(&b, crate::count::WORDS)?,
                )))
            }
        }
    }

    /// Zeroes the counters.
    pub fn reset_counts(&self) -> Result<(), GpuError> {
        if let Some(b) = &self.counters {
            let mut b = b.lock().unwrap_or_else(|e| e.into_inner());
            self.write(&mut b, &[0u32; crate::count::WORDS])?;
        }
        Ok(())
    }

    /// Every device of `backend` (none when its driver is missing).
    pub fn all(backend: Backend) -> Vec<Self> {
        let n = devices(backend).map(|d| d.len()).unwrap_or(0);
        (0..n).filter_map(|i| Self::open(backend, i).ok()).collect()
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// `source` compiled for this device, once per process and, across runs, once per
    /// source, device and compiler version.
    pub fn program(&self, source: &str) -> Result<Arc<Program>, GpuError> {
        let counting;
        let source = if self.counters.is_some() {
            counting = format!("#define FZ_COUNT 1\n{source}");
            &counting
        } else {
            source
        };
        let h = blake3::hash(source.as_bytes());
        let mut programs = self.programs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = programs.get(&h) {
            return Ok(p.clone());
        }
        let imp = match &self.imp {
            DeviceImp::Cl(d) => ProgramImp::Cl(d.build(source)?),
            DeviceImp::Cu(d) => ProgramImp::Cu(d.build(source)?),
        };
        let p = Arc::new(Program { imp });
        programs.insert(h, p.clone());
        Ok(p)
    }

    /// A zero-filled buffer of `bytes` bytes.
    pub fn alloc(&self, bytes: usize) -> Result<Buffer, GpuError> {
        self.alloc_with(bytes, true)
    }

    /// A buffer of `bytes` bytes, cleared when `zeroed` (an upload overwrites it anyway).
    fn alloc_with(&self, bytes: usize, zeroed: bool) -> Result<Buffer, GpuError> {
        let imp = match &self.imp {
            DeviceImp::Cl(d) => BufferImp::Cl(d.alloc(bytes, zeroed)?),
            DeviceImp::Cu(d) => BufferImp::Cu(d.alloc(bytes, zeroed)?),
        };
        Ok(Buffer { imp, len: bytes })
    }

    /// A buffer holding `data`.
    pub fn upload<T: Word>(&self, data: &[T]) -> Result<Buffer, GpuError> {
        let mut b = self.alloc_with(size_of_val(data), false)?;
        self.write(&mut b, data)?;
        Ok(b)
    }

    /// Overwrites the start of `buf` with `data`.
    pub fn write<T: Word>(&self, buf: &mut Buffer, data: &[T]) -> Result<(), GpuError> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if bytes.len() > buf.len {
            return Err(GpuError::Unsupported(format!(
                "writing {} bytes into a buffer of {}",
                bytes.len(),
                buf.len
            )));
        }
        if bytes.is_empty() {
            return Ok(());
        }
        match (&self.imp, &mut buf.imp) {
            (DeviceImp::Cl(d), BufferImp::Cl(b)) => d.write(b, bytes),
            (DeviceImp::Cu(d), BufferImp::Cu(b)) => d.write(b, bytes),
            _ => Err(foreign()),
        }
    }

    /// The start of `buf` into `out`, after everything issued before.
    pub fn read<T: Word>(&self, buf: &Buffer, out: &mut [T]) -> Result<(), GpuError> {
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(out);
        if bytes.len() > buf.len {
            return Err(GpuError::Unsupported(format!(
                "reading {} bytes from a buffer of {}",
                bytes.len(),
                buf.len
            )));
        }
        if bytes.is_empty() {
            return Ok(());
        }
        match (&self.imp, &buf.imp) {
            (DeviceImp::Cl(d), BufferImp::Cl(b)) => d.read(b, bytes),
            (DeviceImp::Cu(d), BufferImp::Cu(b)) => d.read(b, bytes),
            _ => Err(foreign()),
        }
    }

    /// `read` into a new vector of `len` words.
    pub fn read_vec<T: Word>(&self, buf: &Buffer, len: usize) -> Result<Vec<T>, GpuError> {
        let mut v = vec![T::zeroed(); len];
        self.read(buf, &mut v)?;
        Ok(v)
    }

    /// Runs `kernel` of `program` on `threads` threads (kernels check their own bounds);
    /// nothing when `threads` is zero.
    pub fn launch(
        &self,
        program: &Program,
        kernel: &str,
        threads: usize,
        args: &[Arg<'_>],
    ) -> Result<(), GpuError> {
        self.launch_on(None, program, kernel, threads, args)
    }

    fn launch_on(
        &self,
        queue: Option<&QueueImp>,
        program: &Program,
        kernel: &str,
        threads: usize,
        args: &[Arg<'_>],
    ) -> Result<(), GpuError> {
        if threads == 0 {
            return Ok(());
        }
        let counters = self
            .counters
            .as_ref()
            .map(|c| c.lock().unwrap_or_else(|e| e.into_inner()));
        let with_counters: Vec<Arg<'_>>;
        let args = match &counters {
            Some(c) => {
                with_counters = args.iter().copied().chain([Arg::Buf(c)]).collect();
                &with_counters[..]
            }
            None => args,
        };
        match (&self.imp, &program.imp) {
            (DeviceImp::Cl(d), ProgramImp::Cl(p)) => d.launch(
                queue.map(|q| match q {
                    QueueImp::Cl(q) => q.inner(),
                    QueueImp::Cu(_) => unreachable!("a queue of this device"),
                }),
                p,
                kernel,
                threads,
                args,
            ),
            (DeviceImp::Cu(d), ProgramImp::Cu(p)) => d.launch(
                queue.map(|q| match q {
                    QueueImp::Cu(q) => q,
                    QueueImp::Cl(_) => unreachable!("a queue of this device"),
                }),
                p,
                kernel,
                threads,
                args,
            ),
            _ => Err(foreign()),
        }
    }

    /// Threads per work-group (block) of every launch on this device.
    pub fn group_size(&self) -> usize {
        match &self.imp {
            DeviceImp::Cl(_) => opencl::GROUP,
            DeviceImp::Cu(_) => cuda::BLOCK as usize,
        }
    }

    /// `groups` work-groups of [`Self::group_size`] threads (kernels that work per group).
    pub fn launch_groups(
        &self,
        program: &Program,
        kernel: &str,
        groups: usize,
        args: &[Arg<'_>],
    ) -> Result<(), GpuError> {
        self.launch(program, kernel, groups * self.group_size(), args)
    }

    /// Waits until everything issued on the device's own queue has run (not its
    /// [`Stream`]s').
    pub fn finish(&self) -> Result<(), GpuError> {
        match &self.imp {
            DeviceImp::Cl(d) => d.finish(),
            DeviceImp::Cu(d) => d.finish(),
        }
    }

    fn pool(&self) -> std::sync::MutexGuard<'_, Pool> {
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A stream of this device: an idle one from the pool, or a new queue (on an OpenCL
    /// device that is not a GPU, the device's own queue: see `opencl::ClDevice::queue`).
    pub fn stream(&self) -> Result<Stream<'_>, GpuError> {
        let idle = self.pool().queues.pop();
        let imp = match idle {
            Some(q) => q,
            None => match &self.imp {
                DeviceImp::Cl(d) => QueueImp::Cl(d.queue()?),
                DeviceImp::Cu(d) => QueueImp::Cu(d.queue()?),
            },
        };
        self.pool().live_streams += 1;
        Ok(Stream {
            device: self,
            imp: Some(imp),
        })
    }

    /// A scratch buffer of at least `bytes` bytes from the pool (its contents are
    /// whatever was left in it: clear it with [`Stream::zero`] if it must start at zero).
    /// Dropped, it goes back to the pool, to be handed out again only once no [`Stream`]
    /// of the device is alive (each has waited for its work), so work issued on a stream
    /// never meets a reused buffer, on error paths too. Work on the device's own queue
    /// ([`Device::launch`]) that uses it must be finished ([`Device::finish`]) first.
    pub fn scratch(&self, bytes: usize) -> Result<Scratch<'_>, GpuError> {
        let class = size_class(bytes);
        let idle = {
            let mut pool = self.pool();
            let b = pool.buffers.get_mut(&class).and_then(Vec::pop);
            if b.is_some() {
                pool.buffer_bytes -= class;
                pool.stats.reused += 1;
            } else {
                pool.stats.allocated += 1;
            }
            b
        };
        let imp = match idle {
            Some(b) => b,
            None => self.alloc_with(class, false)?.imp,
        };
        Ok(Scratch {
            device: self,
            buf: Some(Buffer { imp, len: bytes }),
            class,
        })
    }

    /// `bytes` bytes of page-locked host memory, zeroed, from the pool: the source and
    /// target of a [`Stream`]'s asynchronous copies.
    pub fn pinned(&self, bytes: usize) -> Result<Pinned<'_>, GpuError> {
        let class = size_class(bytes);
        let idle = {
            let mut pool = self.pool();
            let p = pool.pinned.get_mut(&class).and_then(Vec::pop);
            if p.is_some() {
                pool.pinned_bytes -= class;
                pool.stats.reused += 1;
            } else {
                pool.stats.allocated += 1;
            }
            p
        };
        let imp = match idle {
            Some(p) => p,
            None => match &self.imp {
                DeviceImp::Cl(d) => PinnedImp::Cl(d.pinned(class)?),
                DeviceImp::Cu(d) => PinnedImp::Cu(d.pinned(class)?),
            },
        };
        let mut p = Pinned {
            device: self,
            imp: Some(imp),
            len: bytes,
            class,
            pending: Vec::new(),
        };
        p.bytes_mut()?.fill(0);
        Ok(p)
    }

    /// How the pool has served scratch buffers and pinned memory.
    pub fn pool_stats(&self) -> PoolStats {
        let pool = self.pool();
        PoolStats {
            idle_device_bytes: pool.buffer_bytes,
            idle_pinned_bytes: pool.pinned_bytes,
            ..pool.stats
        }
    }
}

/// A further in-order queue on a device (an OpenCL command queue, a CUDA stream): what is
/// issued on one stream runs in order; streams run side by side, ordered with each other
/// only by [`Event`]s. Dropping a stream waits for its work and returns it to the
/// device's pool.
pub struct Stream<'d> {
    device: &'d Device,
    imp: Option<QueueImp>,
}

pub(crate) enum QueueImp {
    Cl(opencl::ClQueue),
    Cu(cuda::CuQueue),
}

/// A point in a stream's work: everything issued on it before the event was recorded.
pub struct Event(EventImp);

enum EventImp {
    Cl(opencl::ClEvent),
    Cu(cuda::CuEvent),
}

impl Event {
    /// Blocks the host until the work before the event has run.
    pub fn wait(&self) -> Result<(), GpuError> {
        match &self.0 {
            EventImp::Cl(e) => e.wait(),
            EventImp::Cu(e) => e.wait(),
        }
    }
}

impl Stream<'_> {
    fn q(&self) -> &QueueImp {
        self.imp
            .as_ref()
            .expect("a stream holds its queue until dropped")
    }

    /// `groups` work-groups of [`Device::group_size`] threads, after what was issued
    /// before on this stream.
    pub fn launch_groups(
        &self,
        program: &Program,
        kernel: &str,
        groups: usize,
        args: &[Arg<'_>],
    ) -> Result<(), GpuError> {
        self.launch(program, kernel, groups * self.device.group_size(), args)
    }

    /// Runs `kernel` of `program` on `threads` threads, after what was issued before on
    /// this stream.
    pub fn launch(
        &self,
        program: &Program,
        kernel: &str,
        threads: usize,
        args: &[Arg<'_>],
    ) -> Result<(), GpuError> {
        self.device
            .launch_on(Some(self.q()), program, kernel, threads, args)
    }

    /// An event for everything issued on this stream so far.
    pub fn record(&self) -> Result<Event, GpuError> {
        Ok(Event(match self.q() {
            QueueImp::Cl(q) => EventImp::Cl(q.record()?),
            QueueImp::Cu(q) => EventImp::Cu(q.record()?),
        }))
    }

    /// What is issued on this stream from now on runs after `event`'s work.
    pub fn wait(&self, event: &Event) -> Result<(), GpuError> {
        match (self.q(), &event.0) {
            (QueueImp::Cl(q), EventImp::Cl(e)) => q.wait(e),
            (QueueImp::Cu(q), EventImp::Cu(e)) => q.wait(e),
            _ => Err(foreign()),
        }
    }

    /// Zeroes the first `bytes` bytes of `buf` (a multiple of 4).
    pub fn zero(&self, buf: &Buffer, bytes: usize) -> Result<(), GpuError> {
        check_fits(bytes, 0, buf)?;
        if bytes == 0 {
            return Ok(());
        }
        match (self.q(), &buf.imp) {
            (QueueImp::Cl(q), BufferImp::Cl(b)) => q.zero(b, bytes),
            (QueueImp::Cu(q), BufferImp::Cu(b)) => q.zero(b, bytes),
            _ => Err(foreign()),
        }
    }

    /// Copies all of `src` into `dst` from byte `at`, without waiting: `src` cannot be
    /// touched on the host until the copy has run ([`Pinned`] waits for it).
    pub fn upload(&self, dst: &Buffer, at: usize, src: &mut Pinned<'_>) -> Result<(), GpuError> {
        check_fits(src.len, at, dst)?;
        if src.len > 0 {
            let (ptr, len) = (src.ptr(), src.len);
            // SAFETY (both arms): `src` records the event below and waits for it before the
            // host touches or frees its memory; the copy fits `dst` (checked).
            match (self.q(), &dst.imp) {
                // SAFETY: as above.
                (QueueImp::Cl(q), BufferImp::Cl(b)) => unsafe { q.write(b, at, ptr, len) },
                // SAFETY: as above.
                (QueueImp::Cu(q), BufferImp::Cu(b)) => unsafe { q.write(b, at, ptr, len) },
                _ => Err(foreign()),
            }?;
            src.pending.push(self.record()?);
        }
        Ok(())
    }

    /// Copies `dst.len()` bytes of `src` from byte `at` into `dst`, without waiting:
    /// reading `dst` waits for the copy.
    pub fn download(&self, src: &Buffer, at: usize, dst: &mut Pinned<'_>) -> Result<(), GpuError> {
        check_fits(dst.len, at, src)?;
        if dst.len > 0 {
            let (ptr, len) = (dst.ptr(), dst.len);
            match (self.q(), &src.imp) {
                // SAFETY: as for `upload`; the host cannot read `dst` before the copy has run.
                (QueueImp::Cl(q), BufferImp::Cl(b)) => unsafe { q.read(b, at, ptr, len) },
                // SAFETY: as above.
                (QueueImp::Cu(q), BufferImp::Cu(b)) => unsafe { q.read(b, at, ptr, len) },
                _ => Err(foreign()),
            }?;
            dst.pending.push(self.record()?);
        }
        Ok(())
    }

    /// Waits until everything issued on this stream has run.
    pub fn finish(&self) -> Result<(), GpuError> {
        match self.q() {
            QueueImp::Cl(q) => q.finish(),
            QueueImp::Cu(q) => q.finish(),
        }
    }
}

impl Drop for Stream<'_> {
    fn drop(&mut self) {
        // A stream whose work cannot be waited for is not reused.
        let finished = self.finish().is_ok();
        let mut pool = self.device.pool();
        if let Some(q) = self.imp.take().filter(|_| finished) {
            pool.queues.push(q);
        }
        pool.poisoned |= !finished;
        pool.live_streams -= 1;
        if pool.live_streams == 0 {
            let deferred = std::mem::take(&mut pool.deferred);
            if !std::mem::take(&mut pool.poisoned) {
                for (class, b) in deferred {
                    pool.keep(class, b);
                }
            }
        }
    }
}

fn check_fits(bytes: usize, at: usize, buf: &Buffer) -> Result<(), GpuError> {
    if at.checked_add(bytes).is_none_or(|end| end > buf.len) {
        return Err(GpuError::Unsupported(format!(
            "{bytes} bytes at {at} in a buffer of {}",
            buf.len
        )));
    }
    Ok(())
}

/// A scratch buffer from a device's pool ([`Device::scratch`]); back to the pool when
/// dropped.
pub struct Scratch<'d> {
    device: &'d Device,
    buf: Option<Buffer>,
    class: usize,
}

impl std::ops::Deref for Scratch<'_> {
    type Target = Buffer;
    fn deref(&self) -> &Buffer {
        self.buf.as_ref().expect("held until dropped")
    }
}

impl Drop for Scratch<'_> {
    fn drop(&mut self) {
        let mut pool = self.device.pool();
        if let Some(b) = self.buf.take() {
            if pool.live_streams > 0 {
                pool.deferred.push((self.class, b.imp));
            } else {
                pool.keep(self.class, b.imp);
            }
        }
    }
}

/// Page-locked host memory ([`Device::pinned`]): the source and target of a stream's
/// asynchronous copies. Host access waits for the copies in flight; back to the pool
/// when dropped (after they have run).
pub struct Pinned<'d> {
    device: &'d Device,
    imp: Option<PinnedImp>,
    len: usize,
    class: usize,
    pending: Vec<Event>,
}

enum PinnedImp {
    Cl(opencl::ClPinned),
    Cu(cuda::CuPinned),
}

impl Pinned<'_> {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn ptr(&self) -> *mut u8 {
        match self.imp.as_ref().expect("held until dropped") {
            PinnedImp::Cl(p) => p.ptr(),
            PinnedImp::Cu(p) => p.ptr(),
        }
    }

    /// Waits for the copies in flight.
    fn settle(&mut self) -> Result<(), GpuError> {
        for e in self.pending.drain(..) {
            e.wait()?;
        }
        Ok(())
    }

    fn bytes_mut(&mut self) -> Result<&mut [u8], GpuError> {
        self.settle()?;
        // SAFETY: `len` bytes of the allocation (at least `class`), no copy in flight,
        // and `&mut self` keeps the stream calls out until the borrow ends.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr(), self.len) })
    }

    /// The contents as words, once the copies in flight have run.
    pub fn as_slice<T: Word>(&mut self) -> Result<&[T], GpuError> {
        Ok(bytemuck::cast_slice(self.bytes_mut()?))
    }

    /// The contents as words to fill, once the copies in flight have run.
    pub fn as_mut_slice<T: Word>(&mut self) -> Result<&mut [T], GpuError> {
        Ok(bytemuck::cast_slice_mut(self.bytes_mut()?))
    }
}

impl Drop for Pinned<'_> {
    fn drop(&mut self) {
        // Memory a copy may still reach is neither reused nor freed.
        if self.settle().is_err() {
            std::mem::forget(self.imp.take());
            return;
        }
        let Some(p) = self.imp.take() else { return };
        let mut pool = self.device.pool();
        if pool.pinned_bytes + self.class <= POOL_CAP {
            pool.pinned_bytes += self.class;
            pool.pinned.entry(self.class).or_default().push(p);
        } else {
            drop(pool);
            if let (PinnedImp::Cl(p), DeviceImp::Cl(d)) = (&p, &self.device.imp) {
                d.unmap(p);
            }
        }
    }
}

fn foreign() -> GpuError {
    GpuError::Unsupported("a buffer or program of another device".into())
}
