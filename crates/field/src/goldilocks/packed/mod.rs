//! Packed (SIMD) Goldilocks arithmetic over slices, with run-time dispatch.
//!
//! The API works on slices of [`Goldilocks`] so that one dispatch decision covers many
//! elements: AVX-512F (8 lanes) when the CPU has it, AVX2 (4 lanes) otherwise, and a
//! portable scalar loop everywhere else. No `-C target-cpu` flag is needed; the vector
//! code is compiled with `#[target_feature]` and chosen at run time from [`crate::cpu`]
//! ([`Backend::detect`]; `FASTZK_GOLDILOCKS_BACKEND=scalar|avx2|avx512` caps the choice).
//!
//! Every function keeps elements canonical (`< p`), exactly like scalar [`Goldilocks`],
//! so results are bit-identical to the scalar field.

use crate::cpu::Capability;
use crate::goldilocks::Goldilocks;
use crate::ntt::{check_last3, same_len};
pub use crate::LengthMismatch;

#[cfg(target_arch = "x86_64")]
#[macro_use]
mod slices;
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod scalar;

/// Eight Goldilocks lanes on each vector backend, for code that keeps values in lanes
/// (the runtime's kernel lanes): every method is `unsafe`, its backend's CPU feature the
/// caller's to check.
#[cfg(target_arch = "x86_64")]
pub use {avx2::Lanes8 as Avx2Lanes8, avx512::Lanes8 as Avx512Lanes8};

/// Calls the kernel `$f` of the backend `$be.effective()` picks.
macro_rules! dispatch {
    ($be:expr, $f:ident($($arg:expr),*)) => {
        match $be.effective() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `effective` returns a vector backend only when the CPU has it.
            Backend::Avx512 => unsafe { avx512::$f($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Backend::Avx2 => unsafe { avx2::$f($($arg),*) },
            _ => scalar::$f($($arg),*),
        }
    };
}

/// A way to execute packed Goldilocks arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Backend {
    /// Portable Rust, one element at a time.
    Scalar,
    /// AVX2, 4 lanes.
    Avx2,
    /// AVX-512F, 8 lanes.
    Avx512,
}

impl Backend {
    /// The widest backend [`crate::cpu`] enables (the CPU has it and
    /// `FASTZK_GOLDILOCKS_BACKEND` does not cap it).
    pub fn detect() -> Backend {
        if Capability::Avx512.enabled() {
            Backend::Avx512
        } else if Capability::Avx2.enabled() {
            Backend::Avx2
        } else {
            Backend::Scalar
        }
    }

    /// All backends, supported here or not.
    pub fn all() -> [Backend; 3] {
        [Backend::Scalar, Backend::Avx2, Backend::Avx512]
    }

    /// Whether this CPU can run the backend (switches aside).
    pub fn is_supported(self) -> bool {
        match self {
            Backend::Scalar => true,
            Backend::Avx2 => Capability::Avx2.in_hardware(),
            Backend::Avx512 => Capability::Avx512.in_hardware(),
        }
    }

    /// Lanes per vector (1 for scalar).
    pub fn lanes(self) -> usize {
        match self {
            Backend::Scalar => 1,
            Backend::Avx2 => 4,
            Backend::Avx512 => 8,
        }
    }

    /// `self` if the CPU supports it, otherwise the scalar backend.
    fn effective(self) -> Backend {
        if self.is_supported() {
            self
        } else {
            Backend::Scalar
        }
    }

    /// `a[i] += b[i]`.
    pub fn add_assign(self, a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
        same_len(a.len(), b.len())?;
        let (a, b) = (as_u64_mut(a), as_u64(b));
        dispatch!(self, add_assign(a, b));
        Ok(())
    }

    /// `a[i] -= b[i]`.
    pub fn sub_assign(self, a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
        same_len(a.len(), b.len())?;
        let (a, b) = (as_u64_mut(a), as_u64(b));
        dispatch!(self, sub_assign(a, b));
        Ok(())
    }

    /// `a[i] *= b[i]`.
    pub fn mul_assign(self, a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
        same_len(a.len(), b.len())?;
        let (a, b) = (as_u64_mut(a), as_u64(b));
        dispatch!(self, mul_assign(a, b));
        Ok(())
    }

    /// `a[i] *= s`.
    pub fn scale(self, a: &mut [Goldilocks], s: Goldilocks) {
        let a = as_u64_mut(a);
        dispatch!(self, scale(a, s.value()));
    }

    /// `lo[i] += s·(hi[i] − lo[i])` (a multilinear table's first variable bound to `s`):
    /// the difference, scaled and added, a block at a time through a stack buffer.
    pub fn lerp_assign(
        self,
        lo: &mut [Goldilocks],
        hi: &[Goldilocks],
        s: Goldilocks,
    ) -> Result<(), LengthMismatch> {
        same_len(lo.len(), hi.len())?;
        const BLOCK: usize = 256;
        let mut d = [Goldilocks(0); BLOCK];
        for (l, h) in lo.chunks_mut(BLOCK).zip(hi.chunks(BLOCK)) {
            let d = &mut d[..l.len()];
            d.copy_from_slice(h);
            self.sub_assign(d, l)?;
            self.scale(d, s);
            self.add_assign(l, d)?;
        }
        Ok(())
    }

    /// Cooley–Tukey butterflies with one twiddle:
    /// `(lo[i], hi[i]) ← (lo[i] + s·hi[i], lo[i] − s·hi[i])`.
    pub fn butterfly_ct(
        self,
        lo: &mut [Goldilocks],
        hi: &mut [Goldilocks],
        s: Goldilocks,
    ) -> Result<(), LengthMismatch> {
        same_len(lo.len(), hi.len())?;
        let (lo, hi) = (as_u64_mut(lo), as_u64_mut(hi));
        dispatch!(self, butterfly_ct(lo, hi, s.value()));
        Ok(())
    }

    /// Gentleman–Sande butterflies with one twiddle and an optional common factor `c`:
    /// `(lo[i], hi[i]) ← (c·(lo[i] + hi[i]), c·s·(lo[i] − hi[i]))`.
    pub fn butterfly_gs(
        self,
        lo: &mut [Goldilocks],
        hi: &mut [Goldilocks],
        s: Goldilocks,
        c: Option<Goldilocks>,
    ) -> Result<(), LengthMismatch> {
        same_len(lo.len(), hi.len())?;
        let (lo, hi) = (as_u64_mut(lo), as_u64_mut(hi));
        match c {
            None => dispatch!(self, butterfly_gs(lo, hi, s.value())),
            Some(c) => dispatch!(
                self,
                butterfly_gs_scaled(lo, hi, (s * c).value(), c.value())
            ),
        }
        Ok(())
    }

    /// The last three levels of a Cooley–Tukey NTT with bit-reversed output, on every
    /// 8-element group of `x`. Group `q` is block `g0 + q` of its level, so the levels use
    /// twiddles `w[g0+q]` (pairs at distance 4), `w[2(g0+q)+{0,1}]` (distance 2) and
    /// `w[4(g0+q)+{0..3}]` (distance 1): `w` is the bit-reversed twiddle table
    /// `w[i] = ω^brv(i)` of the transform. Requires `x.len()` to be a multiple of 16 and
    /// `w` to reach index `4(g0 + x.len()/8) − 1`.
    pub fn ntt_ct_last3(
        self,
        x: &mut [Goldilocks],
        w: &[Goldilocks],
        g0: usize,
    ) -> Result<(), LengthMismatch> {
        check_last3(x.len(), w.len(), g0)?;
        let (x, w) = (as_u64_mut(x), as_u64(w));
        match self.effective() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `effective` checked the CPU feature; `check_last3` the bounds.
            Backend::Avx512 => unsafe { avx512::ntt_ct_last3(x, w, g0) },
            _ => scalar::ntt_ct_last3(x, w, g0),
        }
        Ok(())
    }

    /// The inverse of [`Backend::ntt_ct_last3`] up to the factor 8: the first three levels
    /// of a Gentleman–Sande NTT with bit-reversed input, with inverse twiddles `w_inv`.
    pub fn ntt_gs_first3(
        self,
        x: &mut [Goldilocks],
        w_inv: &[Goldilocks],
        g0: usize,
    ) -> Result<(), LengthMismatch> {
        check_last3(x.len(), w_inv.len(), g0)?;
        let (x, w) = (as_u64_mut(x), as_u64(w_inv));
        match self.effective() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `effective` checked the CPU feature; `check_last3` the bounds.
            Backend::Avx512 => unsafe { avx512::ntt_gs_first3(x, w, g0) },
            _ => scalar::ntt_gs_first3(x, w, g0),
        }
        Ok(())
    }
}

// `Goldilocks` is `#[repr(transparent)]` over a canonical `u64`; every routine here writes
// canonical values back, so the invariant holds.
fn as_u64(a: &[Goldilocks]) -> &[u64] {
    // SAFETY: same size, alignment and validity (repr(transparent)).
    unsafe { core::slice::from_raw_parts(a.as_ptr().cast::<u64>(), a.len()) }
}
fn as_u64_mut(a: &mut [Goldilocks]) -> &mut [u64] {
    // SAFETY: as above; the callers only store canonical values.
    unsafe { core::slice::from_raw_parts_mut(a.as_mut_ptr().cast::<u64>(), a.len()) }
}

/// `a[i] += b[i]` with the detected backend.
pub fn add_assign(a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
    Backend::detect().add_assign(a, b)
}
/// `a[i] -= b[i]` with the detected backend.
pub fn sub_assign(a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
    Backend::detect().sub_assign(a, b)
}
/// `a[i] *= b[i]` with the detected backend.
pub fn mul_assign(a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
    Backend::detect().mul_assign(a, b)
}
/// `a[i] *= s` with the detected backend.
pub fn scale(a: &mut [Goldilocks], s: Goldilocks) {
    Backend::detect().scale(a, s)
}
