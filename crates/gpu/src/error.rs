//! What can go wrong on a device, each case naming what is missing.

use crate::Backend;

#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// The driver library (libcuda, an OpenCL ICD loader) could not be loaded.
    #[error("{backend}: no driver ({what})")]
    NoDriver { backend: Backend, what: String },
    /// The driver loaded but offers no device at that index.
    #[error("{backend}: no device {index} ({found} found)")]
    NoDevice {
        backend: Backend,
        index: usize,
        found: usize,
    },
    /// The kernel compiler failed; `log` is its message.
    #[error("{backend}: kernel build failed on {device}:\n{log}")]
    Build {
        backend: Backend,
        device: String,
        log: String,
    },
    /// Allocation failed (out of device memory, or a size the device refuses).
    #[error("{backend}: cannot allocate {bytes} bytes on {device}: {why}")]
    Alloc {
        backend: Backend,
        device: String,
        bytes: usize,
        why: String,
    },
    /// Any other driver call that failed: what was attempted and the driver's answer.
    #[error("{backend}: {what} failed: {why}")]
    Driver {
        backend: Backend,
        what: String,
        why: String,
    },
    /// A host-side argument the device code cannot take (sizes past 32-bit indices, say).
    #[error("{0}")]
    Unsupported(String),
}
