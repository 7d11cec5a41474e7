//! fastzk's single-source layer, after ZERA (`zera-compiler-thesis`, §3.2–3.3, §4.3):
//! protocol code written once runs on the CPU or on a device.
//!
//! * A **kernel** is a loop body written once with [`kernel`], in a subset of Rust over a
//!   field type: the function is the CPU loop's body, and the macro translates it into
//!   device source in the GPU backend's C dialect (CUDA through NVRTC, OpenCL, PoCL).
//! * A **reducer** ([`reducer`], or the built-in [`Sum`] and [`Product`]) is an
//!   associative, commutative combine with its identity, the same on both sides.
//! * A [`Context`] runs kernels: [`Context::map`] (a new vector from any number of inputs:
//!   map and zip) and [`Context::map_reduce`] (a kernel's outputs reduced), on the CPU
//!   (rayon) or on a device, with identical results.
//! * A [`FieldVec`] knows where its valid copies live ([`Residency`]) and moves lazily,
//!   through pinned staging, when the other side reads it; the context counts the moves
//!   ([`Traffic`]).
//!
//! ```ignore
//! use fastzk_runtime::{kernel, Arg, Context, KernelField, Sum};
//!
//! #[kernel]
//! fn inner<F: KernelField>(i: usize, a: &[F], b: &[F]) -> F {
//!     a[i] * b[i]
//! }
//!
//! let ctx = Context::open(DeviceChoice::Auto)?;
//! let (a, b) = (ctx.vec(a), ctx.vec(b));
//! let dot = ctx.map_reduce(Inner, Sum, a.len(), &[Arg::Vec(&a), Arg::Vec(&b)])?[0];
//! ```

// The macros name this crate by its path, here too.
extern crate self as fastzk_runtime;

mod columns;
mod context;
mod dense;
mod gather;
#[doc(hidden)]
pub mod lanes;
mod library;
mod merkle;
mod product;
pub mod sumcheck;
mod task;
mod vec;

use std::sync::atomic::{AtomicBool, Ordering};

pub use columns::{transposed_source, Transposed};
pub use context::{program_source, Arg, Context, RuntimeError};
pub use dense::dense_sources;
pub use fastzk_kernel_macro::{kernel, reducer};
pub use gather::gather_source;
pub use library::{Matrix, Points};
pub use merkle::merkle_source;
pub use product::{prove_grand_products, GrandProducts};
pub use task::Task;
pub use vec::{FieldVec, HostSlice, Residency, Traffic};

use fastzk_field::Field;
use fastzk_gpu::{DeviceCurve, DeviceField};
use fastzk_pairing::PairingCurve;

/// A field kernels run over: arithmetic on the CPU and on devices. Its [`Base`] is the
/// field it extends (itself for a prime field): a kernel over an extension reads tables
/// over the base (`&[F::Base]`) and multiplies them in at the base's price
/// ([`mul_by_base`]), where lifting the tables would cost a full extension product each.
///
/// [`Base`]: KernelField::Base
/// [`mul_by_base`]: KernelField::mul_by_base
pub trait KernelField: Field + DeviceField {
    type Base: KernelField<Base = Self::Base>;
    /// Eight elements as the CPU loop's lanes run them on backend `B` ([`lanes`]).
    type Lanes<B: lanes::LaneBackend>: lanes::LaneField<Self, B>;
    /// Whether the CPU loop runs kernels over this field on lanes: where its lanes are
    /// vectors and measured faster than the plain body (`BENCHMARKS.md`).
    const LANES_PAY: bool;
    /// The base element as an element of this field.
    fn lift(b: Self::Base) -> Self;
    /// `self·b`, coordinate by coordinate.
    fn mul_by_base(self, b: Self::Base) -> Self;
}

macro_rules! prime_kernel_field {
    ($($f:ty),*) => {$(
        impl KernelField for $f {
            type Base = $f;
            type Lanes<B: lanes::LaneBackend> = lanes::Splayed<$f>;
            const LANES_PAY: bool = false;
            #[inline(always)]
            fn lift(b: $f) -> Self {
                b
            }
            #[inline(always)]
            fn mul_by_base(self, b: $f) -> Self {
                self * b
            }
        }
    )*};
}
impl KernelField for fastzk_field::Goldilocks {
    type Base = Self;
    type Lanes<B: lanes::LaneBackend> = B::Goldilocks;
    const LANES_PAY: bool = true;
    #[inline(always)]
    fn lift(b: Self) -> Self {
        b
    }
    #[inline(always)]
    fn mul_by_base(self, b: Self) -> Self {
        self * b
    }
}

prime_kernel_field!(
    fastzk_field::bn254::Fr,
    fastzk_field::bn254::Fq,
    fastzk_field::bls12_381::Fr,
    fastzk_field::bls12_381::Fq
);

macro_rules! quad_kernel_field {
    ($($f:ty: $b:ty),*) => {$(
        impl KernelField for $f {
            type Base = $b;
            type Lanes<B: lanes::LaneBackend> = lanes::Splayed<$f>;
            const LANES_PAY: bool = false;
            #[inline(always)]
            fn lift(b: $b) -> Self {
                Self::new(b, <$b as Field>::ZERO)
            }
            #[inline(always)]
            fn mul_by_base(self, b: $b) -> Self {
                Self::new(self.c0 * b, self.c1 * b)
            }
        }
    )*};
}
quad_kernel_field!(
    fastzk_field::GoldilocksExt2: fastzk_field::Goldilocks,
    fastzk_field::bn254::Fq2: fastzk_field::bn254::Fq,
    fastzk_field::bls12_381::Fq2: fastzk_field::bls12_381::Fq
);

impl KernelField for fastzk_field::GoldilocksExt3 {
    type Base = fastzk_field::Goldilocks;
    type Lanes<B: lanes::LaneBackend> = lanes::Ext3Lanes<B>;
    const LANES_PAY: bool = true;
    #[inline(always)]
    fn lift(b: Self::Base) -> Self {
        Self::new(b, Self::Base::ZERO, Self::Base::ZERO)
    }
    #[inline(always)]
    fn mul_by_base(self, b: Self::Base) -> Self {
        Self::new(self.c[0] * b, self.c[1] * b, self.c[2] * b)
    }
}

/// A pairing curve whose scalar field kernels run over and whose G1 the library MSM
/// runs on, on the CPU and on devices (BN254 and BLS12-381): what a pairing-based prover
/// on the layer asks of its curve.
pub trait LayerPairing: PairingCurve<G1: DeviceCurve, Fr: KernelField> {}
impl<E: PairingCurve<G1: DeviceCurve, Fr: KernelField>> LayerPairing for E {}

/// What a kernel parameter after the index is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An input array, `&[F]`: a [`FieldVec`].
    Input,
    /// An input array over the base field, `&[F::Base]`: a `FieldVec<F::Base>`.
    BaseInput,
    /// One field element for every index.
    Field,
    /// One `usize` for every index.
    Int,
}

/// A loop body written once ([`kernel`] implements it; not by hand).
pub trait Kernel<F: KernelField>: Copy + Send + Sync + 'static {
    const NAME: &'static str;
    const PARAMS: &'static [ParamKind];
    const PARAM_NAMES: &'static [&'static str];
    /// Field elements it gives for each index.
    const OUTPUTS: usize;
    /// `DEVICE void KF(k_NAME)(u64 i, params…, u32 *fz_fault, FZ_F *fz_out)`.
    const DEVICE_C: &'static str;
    /// The body on the CPU, its arguments resolved once: called at index `i`, it writes
    /// its outputs into `out`.
    fn body<'a>(
        args: &'a [CpuArg<'a, F>],
        fault: &'a Fault,
    ) -> impl Fn(usize, &mut [F]) + Sync + 'a;
    /// The body on the eight indices from `i0` at once, on backend `B`'s lanes ([`lanes`]):
    /// output component `k` of index `i0 + l` into `out[k][l]`. `false` when the lanes
    /// part ways or would fault (nothing written; the plain body runs them instead).
    fn lanes<B: lanes::LaneBackend>(
        args: &[CpuArg<'_, F>],
        fault: &Fault,
        i0: usize,
        out: &mut [[F; lanes::LANES]],
    ) -> bool;
}

/// An associative and commutative combine with its identity ([`reducer`] implements it).
pub trait Reducer<F: KernelField>: Copy + Send + Sync + 'static {
    const NAME: &'static str;
    /// `KF(r_NAME_identity)()` and `KF(r_NAME)(a, b)` in the dialect.
    const DEVICE_C: &'static str;
    fn identity() -> F;
    fn combine(a: F, b: F) -> F;
}

/// Field sums.
#[reducer(identity = F::ZERO)]
pub fn sum<F: KernelField>(a: F, b: F) -> F {
    a + b
}

/// Field products.
#[reducer(identity = F::ONE)]
pub fn product<F: KernelField>(a: F, b: F) -> F {
    a * b
}

/// Set by a kernel that read past an array's end or divided by zero; the context turns it
/// into [`RuntimeError::Fault`].
#[derive(Debug, Default)]
pub struct Fault(AtomicBool);

impl Fault {
    pub fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

// What the kernel macro's CPU functions call in place of indexing, division and shifts,
// so that they fault where the device does (and as it does) instead of panicking.

/// An array a kernel indexes: an input (`&[F]`), or a local `[F; K]`.
pub trait Indexed<F> {
    /// Element `i`, or, past the end, a fault and zero (an input) or element 0 (a local
    /// array, as the device clamps it).
    fn at(&self, i: usize, fault: &Fault) -> F;
}

impl<F: Field> Indexed<F> for &[F] {
    #[inline(always)]
    fn at(&self, i: usize, fault: &Fault) -> F {
        self.get(i).copied().unwrap_or_else(|| {
            fault.set();
            F::ZERO
        })
    }
}

impl<F: Field, const K: usize> Indexed<F> for [F; K] {
    #[inline(always)]
    fn at(&self, i: usize, fault: &Fault) -> F {
        let i = if i < K {
            i
        } else {
            fault.set();
            0
        };
        self[i]
    }
}

#[doc(hidden)]
#[inline(always)]
pub fn at<F, A: Indexed<F>>(a: &A, i: usize, fault: &Fault) -> F {
    a.at(i, fault)
}

#[doc(hidden)]
#[inline(always)]
pub fn at_mut<'a, F, const K: usize>(a: &'a mut [F; K], i: usize, fault: &Fault) -> &'a mut F {
    let i = if i < K {
        i
    } else {
        fault.set();
        0
    };
    &mut a[i]
}

#[doc(hidden)]
pub fn div(a: usize, b: usize, fault: &Fault) -> usize {
    a.checked_div(b).unwrap_or_else(|| {
        fault.set();
        0
    })
}

#[doc(hidden)]
pub fn rem(a: usize, b: usize, fault: &Fault) -> usize {
    a.checked_rem(b).unwrap_or_else(|| {
        fault.set();
        0
    })
}

/// Shifts wrap their count at 64, as the device's do.
#[doc(hidden)]
pub fn shl(a: usize, b: usize, _: &Fault) -> usize {
    a.wrapping_shl((b & 63) as u32)
}

#[doc(hidden)]
pub fn shr(a: usize, b: usize, _: &Fault) -> usize {
    a.wrapping_shr((b & 63) as u32)
}

/// A kernel argument on the CPU, resolved by the context.
pub enum CpuArg<'a, F: KernelField> {
    Input(&'a [F]),
    BaseInput(&'a [F::Base]),
    Field(F),
    Int(usize),
}

impl<F: KernelField> Clone for CpuArg<'_, F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F: KernelField> Copy for CpuArg<'_, F> {}

// The kernel macro's calls: the context has checked each argument's kind against the
// kernel's, so a mismatch (a fault, never a panic) cannot happen through it.
impl<'a, F: KernelField> CpuArg<'a, F> {
    pub fn input_at(args: &[Self], k: usize, fault: &Fault) -> &'a [F] {
        match args.get(k) {
            Some(CpuArg::Input(d)) => d,
            _ => {
                fault.set();
                &[]
            }
        }
    }
    pub fn base_input_at(args: &[Self], k: usize, fault: &Fault) -> &'a [F::Base] {
        match args.get(k) {
            Some(CpuArg::BaseInput(d)) => d,
            _ => {
                fault.set();
                &[]
            }
        }
    }
    pub fn field_at(args: &[Self], k: usize, fault: &Fault) -> F {
        match args.get(k) {
            Some(CpuArg::Field(x)) => *x,
            _ => {
                fault.set();
                F::ZERO
            }
        }
    }
    pub fn int_at(args: &[Self], k: usize, fault: &Fault) -> usize {
        match args.get(k) {
            Some(CpuArg::Int(x)) => *x,
            _ => {
                fault.set();
                0
            }
        }
    }
}
