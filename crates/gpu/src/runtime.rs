//! Devices found at run time, their buffers, programs and launches, on CUDA (`cudarc`,
//! driver and NVRTC loaded dynamically) or OpenCL (`opencl3`, ICD loader loaded
//! dynamically). Kernels are compiled at first use for the device and cached in memory
//! and on disk ([`crate::cache`]). Every driver failure is a [`GpuError`] naming it.
//!
//! Work on a device is issued on one in-order queue (an OpenCL command queue, a CUDA
//! stream); reads block until the queue has run what was issued before them.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

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
}

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
            (DeviceImp::Cl(d), ProgramImp::Cl(p)) => d.launch(p, kernel, threads, args),
            (DeviceImp::Cu(d), ProgramImp::Cu(p)) => d.launch(p, kernel, threads, args),
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

    /// Waits until everything issued has run.
    pub fn finish(&self) -> Result<(), GpuError> {
        match &self.imp {
            DeviceImp::Cl(d) => d.finish(),
            DeviceImp::Cu(d) => d.finish(),
        }
    }
}

fn foreign() -> GpuError {
    GpuError::Unsupported("a buffer or program of another device".into())
}
