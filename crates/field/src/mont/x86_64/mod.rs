//! x86-64 backends of the Montgomery arithmetic: the MULX/ADX multiplication (generated)
//! and short carry chains for the lazy 4-limb operations.

pub(crate) mod asm;
pub(crate) mod lazy4;

/// `[u64; N]` seen as `[u64; M]`; only called where `N == M` (the check folds away).
#[inline(always)]
pub(crate) fn width<const N: usize, const M: usize>(x: &[u64; N]) -> &[u64; M] {
    assert!(N == M);
    // SAFETY: N == M (checked above), so the two array types are the same type.
    unsafe { &*(x.as_ptr() as *const [u64; M]) }
}

/// The inverse of [`width`], by value.
#[inline(always)]
pub(crate) fn widen<const M: usize, const N: usize>(x: [u64; M]) -> [u64; N] {
    *width::<M, N>(&x)
}
