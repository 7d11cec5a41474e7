//! The CUDA side of the runtime (`cudarc`: the driver and NVRTC opened at run time, so a
//! build needs no CUDA). Kernels are compiled by NVRTC for the device's architecture and
//! the PTX is cached on disk.

use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{
    result, CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr,
    DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions, Ptx};

use crate::error::GpuError;
use crate::runtime::{Arg, BufferImp, DeviceInfo};
use crate::{cache, Backend};

const B: Backend = Backend::Cuda;
/// Threads per block for every launch (kernels are written for any block size).
pub const BLOCK: u32 = 256;

fn driver(what: &str, e: DriverError) -> GpuError {
    GpuError::Driver {
        backend: B,
        what: what.into(),
        why: e.to_string(),
    }
}

/// Whether the driver library can be loaded (cudarc would otherwise panic on first use).
fn driver_present() -> Result<(), GpuError> {
    // SAFETY: only tries to open the shared library; no CUDA call is made.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(GpuError::NoDriver {
            backend: B,
            what: "the CUDA driver library (libcuda.so.1) could not be loaded: no NVIDIA \
                   driver on this machine"
                .into(),
        })
    }
}

/// Whether NVRTC can be loaded.
pub fn nvrtc_present() -> Result<(), GpuError> {
    // SAFETY: only tries to open the shared library.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(GpuError::NoDriver {
            backend: B,
            what: "NVRTC (libnvrtc.so.13) could not be loaded: install the CUDA 13 toolkit \
                   or pip's nvidia-cuda-nvrtc and put its lib folder on LD_LIBRARY_PATH"
                .into(),
        })
    }
}

/// `source` compiled to PTX by NVRTC for `arch` (`sm_90`, say), without a device.
pub fn compile_ptx(source: &str, arch: &'static str) -> Result<String, GpuError> {
    nvrtc(source, arch, &[]).map(|p| p.to_src())
}

/// Whether `source` is valid CUDA for `arch`: NVRTC's front end only (types, overloads,
/// templates; in milliseconds where code generation takes a minute). Inline PTX is not
/// checked: [`compile_ptx`] and ptxas do that.
pub fn check_syntax(source: &str, arch: &'static str) -> Result<(), GpuError> {
    nvrtc(source, arch, &["--fdevice-syntax-only"]).map(drop)
}

/// NVRTC on `source` for `arch` with C++17 and `extra` options.
fn nvrtc(source: &str, arch: &'static str, extra: &[&str]) -> Result<Ptx, GpuError> {
    nvrtc_present()?;
    let mut options = vec!["--std=c++17".to_string()];
    options.extend(extra.iter().map(|o| o.to_string()));
    let opts = CompileOptions {
        arch: Some(arch),
        options,
        ..Default::default()
    };
    compile_ptx_with_opts(source, opts).map_err(|e| GpuError::Build {
        backend: B,
        device: arch.to_string(),
        log: format!("{e:?}"),
    })
}

pub(crate) fn devices() -> Result<Vec<DeviceInfo>, GpuError> {
    driver_present()?;
    let n = CudaContext::device_count().map_err(|e| driver("counting devices", e))?;
    (0..n.max(0) as usize)
        .map(|i| {
            CudaContext::new(i)
                .map_err(|e| driver("opening a device", e))
                .map(|c| describe(i, &c))
        })
        .collect()
}

fn describe(index: usize, ctx: &Arc<CudaContext>) -> DeviceInfo {
    let attr = |a| ctx.attribute(a).unwrap_or(0);
    let (major, minor) = (
        attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
        attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
    );
    DeviceInfo {
        backend: B,
        index,
        name: ctx.name().unwrap_or_default(),
        platform: format!("compute capability {major}.{minor}"),
        driver: String::new(),
        memory: ctx.total_mem().unwrap_or(0) as u64,
        compute_units: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).max(0) as u32,
        gpu: true,
    }
}

pub(crate) struct CuDevice {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    arch: &'static str,
    name: String,
}

pub(crate) struct CuBuffer(CudaSlice<u8>);
pub(crate) struct CuProgram(Arc<CudaModule>);
/// A stream of its own.
pub(crate) struct CuQueue(Arc<CudaStream>);
pub(crate) struct CuEvent(CudaEvent);
/// Page-locked host memory (`cuMemHostAlloc`).
pub(crate) struct CuPinned {
    /// Owns the allocation (freed when dropped); `ptr` points into it.
    _slice: PinnedHostSlice<u8>,
    ptr: *mut u8,
}

// SAFETY: the allocation and its pointer move together; the runtime's `Pinned` hands the
// memory out only behind `&`/`&mut` borrows after waiting for its copies.
unsafe impl Send for CuPinned {}

impl CuPinned {
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr
    }
}

impl CuDevice {
    pub(crate) fn open(index: usize) -> Result<(DeviceInfo, Self), GpuError> {
        driver_present()?;
        let found = CudaContext::device_count().map_err(|e| driver("counting devices", e))?;
        if index >= found.max(0) as usize {
            return Err(GpuError::NoDevice {
                backend: B,
                index,
                found: found.max(0) as usize,
            });
        }
        let ctx = CudaContext::new(index).map_err(|e| driver("opening a device", e))?;
        let info = describe(index, &ctx);
        let attr = |a| ctx.attribute(a).unwrap_or(0);
        // One short string per opened device, kept for NVRTC's `&'static` option.
        let arch: &'static str = Box::leak(
            format!(
                "sm_{}{}",
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
            )
            .into_boxed_str(),
        );
        let stream = ctx.default_stream();
        let name = info.name.clone();
        Ok((
            info,
            Self {
                ctx,
                stream,
                arch,
                name,
            },
        ))
    }

    pub(crate) fn build(&self, source: &str) -> Result<CuProgram, GpuError> {
        let key = cache::key(source, &format!("cuda|{}|{}", self.name, self.arch));
        let ptx = match cache::load(&key, "ptx").and_then(|b| String::from_utf8(b).ok()) {
            Some(p) => p,
            None => {
                let p = compile_ptx(source, self.arch)?;
                cache::store(&key, "ptx", p.as_bytes());
                p
            }
        };
        let m = self
            .ctx
            .load_module(Ptx::from_src(ptx))
            .map_err(|e| driver("loading a module", e))?;
        Ok(CuProgram(m))
    }

    pub(crate) fn alloc(&self, bytes: usize, zeroed: bool) -> Result<CuBuffer, GpuError> {
        let size = bytes.max(8);
        if zeroed {
            self.stream.alloc_zeros::<u8>(size)
        } else {
            // SAFETY: the caller overwrites the buffer before any kernel reads it.
            unsafe { self.stream.alloc::<u8>(size) }
        }
        .map(CuBuffer)
        .map_err(|e| GpuError::Alloc {
            backend: B,
            device: self.name.clone(),
            bytes,
            why: e.to_string(),
        })
    }

    pub(crate) fn write(&self, b: &mut CuBuffer, bytes: &[u8]) -> Result<(), GpuError> {
        let mut dst = b.0.slice_mut(0..bytes.len());
        self.stream
            .memcpy_htod(bytes, &mut dst)
            .map_err(|e| driver("writing a buffer", e))?;
        self.finish()
    }

    pub(crate) fn read(&self, b: &CuBuffer, out: &mut [u8]) -> Result<(), GpuError> {
        let src = b.0.slice(0..out.len());
        self.stream
            .memcpy_dtoh(&src, out)
            .map_err(|e| driver("reading a buffer", e))?;
        self.finish()
    }

    pub(crate) fn queue(&self) -> Result<CuQueue, GpuError> {
        self.ctx
            .new_stream()
            .map(CuQueue)
            .map_err(|e| driver("creating a stream", e))
    }

    pub(crate) fn pinned(&self, bytes: usize) -> Result<CuPinned, GpuError> {
        // SAFETY: the memory is uninitialised; `Pinned` zeroes it before handing it out.
        let mut slice = unsafe { self.ctx.alloc_pinned_with_flags::<u8>(bytes.max(8), 0) }
            .map_err(|e| GpuError::Alloc {
                backend: B,
                device: self.name.clone(),
                bytes,
                why: format!("pinned host memory: {e}"),
            })?;
        let ptr = slice
            .as_mut_ptr()
            .map_err(|e| driver("pinned host memory", e))?;
        Ok(CuPinned { _slice: slice, ptr })
    }

    /// Runs `name` on `queue`, or on the device's own stream.
    pub(crate) fn launch(
        &self,
        queue: Option<&CuQueue>,
        p: &CuProgram,
        name: &str,
        threads: usize,
        args: &[Arg<'_>],
    ) -> Result<(), GpuError> {
        let f: CudaFunction =
            p.0.load_function(name)
                .map_err(|e| driver(&format!("finding kernel {name}"), e))?;
        let stream = queue.map_or(&self.stream, |q| &q.0);
        let mut run = stream.launch_builder(&f);
        for a in args {
            match a {
                Arg::Buf(b) => match &b.imp {
                    BufferImp::Cu(c) => run.arg(&c.0),
                    BufferImp::Cl(_) => {
                        return Err(GpuError::Unsupported(
                            "an OpenCL buffer passed to a CUDA kernel".into(),
                        ))
                    }
                },
                Arg::U32(v) => run.arg(v),
                Arg::U64(v) => run.arg(v),
            };
        }
        let blocks = u32::try_from(threads.div_ceil(BLOCK as usize))
            .map_err(|_| GpuError::Unsupported(format!("{threads} threads in one launch")))?;
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the arguments match the kernel's parameters in order and C type, and
        // the kernel checks its index against its bounds.
        unsafe { run.launch(cfg) }
            .map(drop)
            .map_err(|e| driver(&format!("launching {name}"), e))
    }

    pub(crate) fn finish(&self) -> Result<(), GpuError> {
        self.stream
            .synchronize()
            .map_err(|e| driver("waiting for the stream", e))
    }
}

impl CuQueue {
    /// Copies `len` bytes from `src` into `b` at `offset`, without waiting.
    ///
    /// # Safety
    /// `src` must stay valid and unchanged until the copy has run, and `offset + len` must
    /// fit the buffer.
    pub(crate) unsafe fn write(
        &self,
        b: &CuBuffer,
        offset: usize,
        src: *const u8,
        len: usize,
    ) -> Result<(), GpuError> {
        let (dst, _record) = b.0.device_ptr(&self.0);
        // SAFETY: the caller's contract.
        unsafe {
            result::memcpy_htod_async(
                dst + offset as u64,
                std::slice::from_raw_parts(src, len),
                self.0.cu_stream(),
            )
        }
        .map_err(|e| driver("an asynchronous write", e))
    }

    /// Copies `len` bytes of `b` at `offset` into `dst`, without waiting.
    ///
    /// # Safety
    /// `dst` must stay valid and untouched until the copy has run, and `offset + len`
    /// must fit the buffer.
    pub(crate) unsafe fn read(
        &self,
        b: &CuBuffer,
        offset: usize,
        dst: *mut u8,
        len: usize,
    ) -> Result<(), GpuError> {
        let (src, _record) = b.0.device_ptr(&self.0);
        // SAFETY: the caller's contract.
        unsafe {
            result::memcpy_dtoh_async(
                std::slice::from_raw_parts_mut(dst, len),
                src + offset as u64,
                self.0.cu_stream(),
            )
        }
        .map_err(|e| driver("an asynchronous read", e))
    }

    /// Zeroes the first `len` bytes of `b`.
    pub(crate) fn zero(&self, b: &CuBuffer, len: usize) -> Result<(), GpuError> {
        let (dst, _record) = b.0.device_ptr(&self.0);
        // SAFETY: `len` fits the buffer (the caller's check).
        unsafe { result::memset_d8_async(dst, 0, len, self.0.cu_stream()) }
            .map_err(|e| driver("clearing a buffer", e))
    }

    pub(crate) fn record(&self) -> Result<CuEvent, GpuError> {
        self.0
            .record_event(None)
            .map(CuEvent)
            .map_err(|e| driver("recording an event", e))
    }

    pub(crate) fn wait(&self, e: &CuEvent) -> Result<(), GpuError> {
        self.0
            .wait(&e.0)
            .map_err(|e| driver("waiting for an event", e))
    }

    pub(crate) fn finish(&self) -> Result<(), GpuError> {
        self.0
            .synchronize()
            .map_err(|e| driver("waiting for a stream", e))
    }
}

impl CuEvent {
    pub(crate) fn wait(&self) -> Result<(), GpuError> {
        self.0
            .synchronize()
            .map_err(|e| driver("waiting for an event", e))
    }
}
