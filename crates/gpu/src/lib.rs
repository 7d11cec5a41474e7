//! fastzk's GPU backend. Kernels are written once in a small C dialect
//! (`kernels/dialect.h`) that compiles as CUDA C++ through NVRTC and as OpenCL C — on any
//! OpenCL device, and on PoCL, which runs OpenCL on the CPU, so every kernel is checked
//! against the CPU engines in CI on a machine without a GPU.
//!
//! * [`runtime`]: devices found at run time ([`Device`], [`devices`]), buffers, programs
//!   compiled at first use and cached on disk, launches; every failure a [`GpuError`].
//! * [`source`]: programs assembled from the templates with the host's field constants;
//!   [`DeviceField`] and [`DeviceCurve`] say which types have kernels.
//! * [`DeviceMsm`]: cuZK's sparse-matrix MSM, an [`fastzk_msm::MsmEngine`];
//!   [`MultiDeviceMsm`] splits one MSM over several devices.
//! * [`DeviceNtt`]: radix-2 NTTs, a [`fastzk_poly::TwoAdicTransform`].
//! * [`spmv::DeviceSpmv`]: sparse matrix × vector, cuZK's balanced CSR scheme.

mod cache;
pub mod count;
pub mod cuda;
mod error;
pub mod groth16;
pub mod msm;
pub mod ntt;
mod opencl;
pub mod runtime;
pub mod source;
pub mod spmv;

pub use error::GpuError;
pub use msm::{DeviceMsm, MultiDeviceMsm};
pub use ntt::DeviceNtt;
pub use runtime::{devices, Arg, Backend, Buffer, Device, DeviceChoice, DeviceInfo, Program};
pub use source::{DeviceCurve, DeviceField, Source};
