//! The OpenCL side of the runtime (`opencl3`, ICD loader opened at run time). Devices are
//! numbered across platforms in the order the loader lists them.

use std::ptr;

use opencl3::command_queue::{
    enqueue_fill_buffer, enqueue_read_buffer, enqueue_write_buffer, retain_command_queue,
    CommandQueue,
};
use opencl3::context::Context;
use opencl3::device::{Device as ClDev, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_GPU};
use opencl3::error_codes::{ClError, DLOPEN_FUNCTION_NOT_AVAILABLE, DLOPEN_RUNTIME_LOAD_FAILED};
use opencl3::event::Event as ClEventObj;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{
    Buffer as ClMemBuffer, ClMem, CL_MAP_READ, CL_MAP_WRITE, CL_MEM_ALLOC_HOST_PTR,
    CL_MEM_READ_WRITE,
};
use opencl3::platform::get_platforms;
use opencl3::program::Program as ClProg;
use opencl3::types::{cl_device_id, cl_mem, CL_BLOCKING, CL_NON_BLOCKING};

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
    /// Streams get queues of their own only on GPUs (see [`Self::queue`]).
    gpu: bool,
}

pub(crate) struct ClBuffer(ClMemBuffer<u8>);
/// A command queue of its own: a stream.
pub(crate) struct ClQueue(CommandQueue);
/// A point in a queue's work ([`crate::runtime::Event`]).
pub(crate) struct ClEvent(ClEventObj);
/// Host memory the driver allocated for a buffer (`CL_MEM_ALLOC_HOST_PTR`, pinned by GPU
/// drivers), mapped for the host for as long as it lives.
pub(crate) struct ClPinned {
    buffer: ClMemBuffer<u8>,
    ptr: *mut u8,
}

fn new_queue(context: &Context) -> Result<CommandQueue, GpuError> {
    #[allow(deprecated)]
    CommandQueue::create_default(context, 0).map_err(|e| driver("creating a command queue", e))
}
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
// SAFETY: a cl_command_queue handle; the API calls on it are thread-safe.
unsafe impl Send for ClQueue {}
// SAFETY: as above.
unsafe impl Sync for ClQueue {}
// SAFETY: a cl_event handle; the API calls on it are thread-safe.
unsafe impl Send for ClEvent {}
// SAFETY: as above.
unsafe impl Sync for ClEvent {}
// SAFETY: a cl_mem handle and the host mapping it owns; the runtime's `Pinned` hands the
// memory out only behind `&`/`&mut` borrows after waiting for its copies.
unsafe impl Send for ClPinned {}
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
        let queue = new_queue(&context)?;
        let target = format!(
            "opencl|{}|{}|{}|{}",
            info.name,
            info.driver,
            info.platform,
            dev.version().unwrap_or_default()
        );
        let name = info.name.clone();
        let gpu = info.gpu;
        Ok((
            info,
            Self {
                context,
                queue,
                target,
                name,
                gpu,
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

    /// A stream's queue: a new one on a GPU; on other devices (PoCL) the device's own
    /// queue, which keeps every ordering a stream promises. PoCL 3.1 aborts
    /// (`pocl_release_dlhandle_cache`) when kernels of several programs complete on
    /// several queues at once, and it runs on the host's cores anyway, so a second
    /// queue there buys no overlap.
    pub(crate) fn queue(&self) -> Result<ClQueue, GpuError> {
        if self.gpu {
            return new_queue(&self.context).map(ClQueue);
        }
        let raw = self.queue.get();
        // SAFETY: a live queue; the retain is balanced by the wrapper's release on drop.
        unsafe { retain_command_queue(raw) }
            .map_err(|e| driver("sharing the device's queue", ClError(e)))?;
        Ok(ClQueue(CommandQueue::new(
            raw,
            self.queue.max_work_item_dimensions(),
        )))
    }

    pub(crate) fn pinned(&self, bytes: usize) -> Result<ClPinned, GpuError> {
        let size = bytes.max(8);
        // SAFETY: no host pointer is passed; the driver allocates host-visible memory.
        let buffer = unsafe {
            ClMemBuffer::<u8>::create(
                &self.context,
                CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                size,
                ptr::null_mut(),
            )
        }
        .map_err(|e| GpuError::Alloc {
            backend: B,
            device: self.name.clone(),
            bytes,
            why: format!("pinned host memory: {e}"),
        })?;
        let mut mapped: cl_mem = ptr::null_mut();
        // SAFETY: a blocking map of the whole buffer; the pointer stays valid until unmapped.
        unsafe {
            self.queue.enqueue_map_buffer(
                &buffer,
                CL_BLOCKING,
                CL_MAP_READ | CL_MAP_WRITE,
                0,
                size,
                &mut mapped,
                &[],
            )
        }
        .map_err(|e| driver("mapping pinned host memory", e))?;
        Ok(ClPinned {
            buffer,
            ptr: mapped as *mut u8,
        })
    }

    pub(crate) fn unmap(&self, p: &ClPinned) {
        // SAFETY: the mapping made by `pinned`; nothing uses the pointer afterwards.
        let unmapped = unsafe {
            self.queue
                .enqueue_unmap_mem_object(p.buffer.get(), p.ptr as _, &[])
        };
        if unmapped.is_ok() {
            // Dropping: a failure leaves nothing to do.
            self.queue.finish().ok();
        }
    }

    /// Runs `name` on `queue`, or on the device's own queue.
    pub(crate) fn launch(
        &self,
        queue: Option<&CommandQueue>,
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
        unsafe { run.enqueue_nd_range(queue.unwrap_or(&self.queue)) }
            .map(drop)
            .map_err(|e| driver(&format!("launching {name}"), e))
    }

    pub(crate) fn finish(&self) -> Result<(), GpuError> {
        self.queue
            .finish()
            .map_err(|e| driver("waiting for the queue", e))
    }
}

impl ClPinned {
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr
    }
}

impl ClQueue {
    pub(crate) fn inner(&self) -> &CommandQueue {
        &self.0
    }

    /// Copies `len` bytes from `src` into `b` at `offset`, without waiting.
    ///
    /// # Safety
    /// `src` must stay valid and unchanged until the copy has run, and `offset + len` must
    /// fit the buffer.
    pub(crate) unsafe fn write(
        &self,
        b: &ClBuffer,
        offset: usize,
        src: *const u8,
        len: usize,
    ) -> Result<(), GpuError> {
        // SAFETY: the caller's contract; a non-blocking write from host memory it keeps.
        unsafe {
            enqueue_write_buffer(
                self.0.get(),
                b.0.get(),
                CL_NON_BLOCKING,
                offset,
                len,
                src as *const _,
                0,
                ptr::null(),
            )
        }
        .map(|e| drop(ClEventObj::new(e)))
        .map_err(|e| driver("an asynchronous write", ClError(e)))
    }

    /// Copies `len` bytes of `b` at `offset` into `dst`, without waiting.
    ///
    /// # Safety
    /// `dst` must stay valid and untouched until the copy has run, and `offset + len`
    /// must fit the buffer.
    pub(crate) unsafe fn read(
        &self,
        b: &ClBuffer,
        offset: usize,
        dst: *mut u8,
        len: usize,
    ) -> Result<(), GpuError> {
        // SAFETY: the caller's contract; a non-blocking read into host memory it keeps.
        unsafe {
            enqueue_read_buffer(
                self.0.get(),
                b.0.get(),
                CL_NON_BLOCKING,
                offset,
                len,
                dst as *mut _,
                0,
                ptr::null(),
            )
        }
        .map(|e| drop(ClEventObj::new(e)))
        .map_err(|e| driver("an asynchronous read", ClError(e)))
    }

    /// Zeroes the first `len` bytes of `b` (a multiple of 4).
    pub(crate) fn zero(&self, b: &ClBuffer, len: usize) -> Result<(), GpuError> {
        let pattern = 0u32;
        // SAFETY: the pattern is read during the call; `len` fits the buffer.
        unsafe {
            enqueue_fill_buffer(
                self.0.get(),
                b.0.get(),
                &pattern as *const u32 as *const _,
                4,
                0,
                len,
                0,
                ptr::null(),
            )
        }
        .map(|e| drop(ClEventObj::new(e)))
        .map_err(|e| driver("clearing a buffer", ClError(e)))
    }

    pub(crate) fn record(&self) -> Result<ClEvent, GpuError> {
        // SAFETY: a marker with no wait list: an event for everything issued before it.
        unsafe { self.0.enqueue_marker_with_wait_list(&[]) }
            .map(ClEvent)
            .map_err(|e| driver("recording an event", e))
    }

    pub(crate) fn wait(&self, e: &ClEvent) -> Result<(), GpuError> {
        // SAFETY: a barrier waiting on a live event.
        unsafe { self.0.enqueue_barrier_with_wait_list(&[e.0.get()]) }
            .map(drop)
            .map_err(|e| driver("waiting for an event", e))
    }

    pub(crate) fn finish(&self) -> Result<(), GpuError> {
        self.0
            .finish()
            .map_err(|e| driver("waiting for a queue", e))
    }
}

impl ClEvent {
    pub(crate) fn wait(&self) -> Result<(), GpuError> {
        self.0.wait().map_err(|e| driver("waiting for an event", e))
    }
}
