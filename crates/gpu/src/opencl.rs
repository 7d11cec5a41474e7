//! The OpenCL side of the runtime (`opencl3`, ICD loader opened at run time). Devices are
//! numbered across platforms in the order the loader lists them.

use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device as ClDev, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_GPU};
use opencl3::error_codes::{ClError, DLOPEN_FUNCTION_NOT_AVAILABLE, DLOPEN_RUNTIME_LOAD_FAILED};
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer as ClMemBuffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::platform::get_platforms;
use opencl3::program::Program as ClProg;
use opencl3::types::{cl_device_id, CL_BLOCKING};

use crate::error::GpuError;
use crate::runtime::{Arg, BufferImp, DeviceInfo};
use crate::{cache, Backend};

const B: Backend = Backend::OpenCl;
/// `clGetPlatformIDs` with no platform installed (cl_khr_icd).
const CL_PLATFORM_NOT_FOUND_KHR: i32 = -1001;
/// Work-items per work-group for every launch (kernels check their own bounds).
pub(crate) const GROUP: usize = 64;

fn driver(what: &str, e: ClError) -> GpuError {
    if e.0 == DLOPEN_RUNTIME_LOAD_FAILED || e.0 == DLOPEN_FUNCTION_NOT_AVAILABLE {
        return GpuError::NoDriver {
            backend: B,
            what: "the OpenCL ICD loader (libOpenCL.so.1) could not be loaded; install one \
                   and a platform (on Debian: ocl-icd-libopencl1 and pocl-opencl-icd)"
                .into(),
        };
    }
    if e.0 == CL_PLATFORM_NOT_FOUND_KHR {
        return GpuError::NoDriver {
            backend: B,
            what: "the ICD loader found no OpenCL platform (install a GPU vendor's ICD, or \
                   pocl-opencl-icd to run on the CPU)"
                .into(),
        };
    }
    GpuError::Driver {
        backend: B,
        what: what.into(),
        why: e.to_string(),
    }
}

/// Every device id with its platform's name, in listing order.
fn all_ids() -> Result<Vec<(cl_device_id, String)>, GpuError> {
    let platforms = get_platforms().map_err(|e| driver("listing platforms", e))?;
    let mut ids = Vec::new();
    for p in platforms {
        let name = p.name().unwrap_or_default();
        // A platform without devices answers with an error code; it simply has none.
        for id in p.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default() {
            ids.push((id, name.clone()));
        }
    }
    Ok(ids)
}

fn describe(index: usize, id: cl_device_id, platform: String) -> DeviceInfo {
    let d = ClDev::new(id);
    DeviceInfo {
        backend: B,
        index,
        name: d.name().unwrap_or_default().trim().to_string(),
        platform,
        driver: d.driver_version().unwrap_or_default(),
        memory: d.global_mem_size().unwrap_or(0),
        compute_units: d.max_compute_units().unwrap_or(0),
        gpu: d.dev_type().is_ok_and(|t| t & CL_DEVICE_TYPE_GPU != 0),
    }
}

pub(crate) fn devices() -> Result<Vec<DeviceInfo>, GpuError> {
    Ok(all_ids()?
        .into_iter()
        .enumerate()
        .map(|(i, (id, p))| describe(i, id, p))
        .collect())
}

pub(crate) struct ClDevice {
    context: Context,
    queue: CommandQueue,
    /// Device, driver and platform, for the kernel cache's key.
    target: String,
    name: String,
}

pub(crate) struct ClBuffer(ClMemBuffer<u8>);
pub(crate) struct ClProgram(ClProg);

// SAFETY: OpenCL objects are thread-safe handles (OpenCL 1.2 §A.2: every API call except
// clSetKernelArg is thread-safe; kernels are created per launch and never shared).
unsafe impl Send for ClDevice {}
// SAFETY: as above.
unsafe impl Sync for ClDevice {}
// SAFETY: a cl_mem handle; the API calls on it are thread-safe.
unsafe impl Send for ClBuffer {}
// SAFETY: as above.
unsafe impl Sync for ClBuffer {}
// SAFETY: a cl_program handle; kernels are created from it per launch.
unsafe impl Send for ClProgram {}
// SAFETY: as above.
unsafe impl Sync for ClProgram {}

impl ClDevice {
    pub(crate) fn open(index: usize) -> Result<(DeviceInfo, Self), GpuError> {
        let ids = all_ids()?;
        let found = ids.len();
        let (id, platform) = ids.into_iter().nth(index).ok_or(GpuError::NoDevice {
            backend: B,
            index,
            found,
        })?;
        let info = describe(index, id, platform);
        let dev = ClDev::new(id);
        let context = Context::from_device(&dev).map_err(|e| driver("creating a context", e))?;
        #[allow(deprecated)]
        let queue = CommandQueue::create_default(&context, 0)
            .map_err(|e| driver("creating a command queue", e))?;
        let target = format!(
            "opencl|{}|{}|{}|{}",
            info.name,
            info.driver,
            info.platform,
            dev.version().unwrap_or_default()
        );
        let name = info.name.clone();
        Ok((
            info,
            Self {
                context,
                queue,
                target,
                name,
            },
        ))
    }

    pub(crate) fn build(&self, source: &str) -> Result<ClProgram, GpuError> {
        let key = cache::key(source, &self.target);
        if let Some(bin) = cache::load(&key, "clbin") {
            if let Ok(p) = ClProg::create_and_build_from_binary(&self.context, &[&bin], "") {
                return Ok(ClProgram(p));
            }
        }
        let p = ClProg::create_and_build_from_source(&self.context, source, "").map_err(|log| {
            GpuError::Build {
                backend: B,
                device: self.name.clone(),
                log,
            }
        })?;
        if let Ok(bins) = p.get_binaries() {
            if let Some(b) = bins.first().filter(|b| !b.is_empty()) {
                cache::store(&key, "clbin", b);
            }
        }
        Ok(ClProgram(p))
    }

    pub(crate) fn alloc(&self, bytes: usize, zeroed: bool) -> Result<ClBuffer, GpuError> {
        // OpenCL refuses empty buffers; a zero-length one holds a word nobody reads.
        let size = bytes.max(8);
        // SAFETY: no host pointer is passed, so the driver owns the memory.
        let mut b = unsafe {
            ClMemBuffer::<u8>::create(&self.context, CL_MEM_READ_WRITE, size, ptr::null_mut())
        }
        .map_err(|e| GpuError::Alloc {
            backend: B,
            device: self.name.clone(),
            bytes,
            why: e.to_string(),
        })?;
        if zeroed {
            let zeros = vec![0u8; size];
            // SAFETY: blocking write of `size` bytes into a buffer of `size` bytes.
            unsafe {
                self.queue
                    .enqueue_write_buffer(&mut b, CL_BLOCKING, 0, &zeros, &[])
            }
            .map_err(|e| driver("clearing a buffer", e))?;
        }
        Ok(ClBuffer(b))
    }

    pub(crate) fn write(&self, b: &mut ClBuffer, bytes: &[u8]) -> Result<(), GpuError> {
        // SAFETY: blocking; the caller checked that `bytes` fits the buffer.
        unsafe {
            self.queue
                .enqueue_write_buffer(&mut b.0, CL_BLOCKING, 0, bytes, &[])
        }
        .map(drop)
        .map_err(|e| driver("writing a buffer", e))
    }

    pub(crate) fn read(&self, b: &ClBuffer, out: &mut [u8]) -> Result<(), GpuError> {
        // SAFETY: blocking; the caller checked that `out` fits the buffer.
        unsafe {
            self.queue
                .enqueue_read_buffer(&b.0, CL_BLOCKING, 0, out, &[])
        }
        .map(drop)
        .map_err(|e| driver("reading a buffer", e))
    }

    pub(crate) fn launch(
        &self,
        p: &ClProgram,
        name: &str,
        threads: usize,
        args: &[Arg<'_>],
    ) -> Result<(), GpuError> {
        let kernel =
            Kernel::create(&p.0, name).map_err(|e| driver(&format!("finding kernel {name}"), e))?;
        let mut run = ExecuteKernel::new(&kernel);
        for a in args {
            // SAFETY: the arguments match the kernel's parameters in order and C type:
            // buffers are cl_mem handles, scalars u32 (uint) or u64 (ulong).
            unsafe {
                match a {
                    Arg::Buf(b) => match &b.imp {
                        BufferImp::Cl(c) => run.set_arg(&c.0.get()),
                        BufferImp::Cu(_) => {
                            return Err(GpuError::Unsupported(
                                "a CUDA buffer passed to an OpenCL kernel".into(),
                            ))
                        }
                    },
                    Arg::U32(v) => run.set_arg(v),
                    Arg::U64(v) => run.set_arg(v),
                };
            }
        }
        // A fixed work-group size: left to the driver, PoCL picks groups as large as a
        // prime factor of the size, and the private state of that many XYZZ accumulators
        // (384 bytes each in BLS12-381 G2) overflows its worker's stack.
        run.set_local_work_size(GROUP);
        run.set_global_work_size(threads.next_multiple_of(GROUP));
        // SAFETY: every argument is set; the kernel checks its index against its bounds.
        unsafe { run.enqueue_nd_range(&self.queue) }
            .map(drop)
            .map_err(|e| driver(&format!("launching {name}"), e))
    }

    pub(crate) fn finish(&self) -> Result<(), GpuError> {
        self.queue
            .finish()
            .map_err(|e| driver("waiting for the queue", e))
    }
}
