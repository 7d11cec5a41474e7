//! Montgomery multiplication and squaring: the portable no-carry CIOS and the MULX/ADX
//! assembly, chosen in one place each ([`Fp::mul_unreduced`], [`Fp::sqr_unreduced`]).

use super::{Fp, MontConfig};
use crate::bigint;

impl<P: MontConfig<N>, const N: usize> Fp<P, N> {
    /// `x mod p` for `x < 2p`, after a multiplication (LLVM turns this comparison into
    /// branch-free code there; measured faster than a subtract-and-select).
    #[inline(always)]
    pub(super) fn reduce_once(mut limbs: [u64; N]) -> Self {
        if bigint::geq(&limbs, &P::MODULUS) {
            limbs = bigint::sub(&limbs, &P::MODULUS).0;
        }
        Self::from_montgomery_limbs_unchecked(limbs)
    }

    /// Portable no-carry CIOS multiplication; the fallback, and the reference the
    /// assembly is tested against.
    #[inline(always)]
    pub fn mul_portable(&self, rhs: &Self) -> Self {
        Self::reduce_once(Self::cios_portable(&self.limbs, &rhs.limbs))
    }

    /// No-carry CIOS without the final subtraction. `a` is the operand whose limbs form the
    /// inner carry chain: every intermediate stays below `a + p`, so this is exact for
    /// any `b < R` as long as `a + p < R`; the result is `< a·b/R + p`.
    #[inline(always)]
    fn cios_portable(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        let () = P::SPARE_BIT;
        let p = &P::MODULUS;
        let mut r = [0u64; N];
        for &bi in b.iter() {
            let (t0, mut c1) = bigint::mac(r[0], a[0], bi, 0);
            let m = t0.wrapping_mul(P::INV);
            let (_, mut c2) = bigint::mac(t0, m, p[0], 0);
            for j in 1..N {
                let (tj, c1n) = bigint::mac(r[j], a[j], bi, c1);
                c1 = c1n;
                let (rj, c2n) = bigint::mac(tj, m, p[j], c2);
                c2 = c2n;
                r[j - 1] = rj;
            }
            r[N - 1] = c1.wrapping_add(c2);
        }
        r
    }

    /// The same product on the MULX/ADX assembly, which exists for 4 and 6 limbs;
    /// other widths take the portable path. Both routines chain over `chain` (read from
    /// memory); for 4 limbs `other` travels in registers, so in `x *= y` loops the
    /// loop-carried value stays there.
    ///
    /// # Safety
    /// The CPU must support BMI2 and ADX.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn cios_adx(chain: &[u64; N], other: &[u64; N]) -> [u64; N] {
        use super::x86_64::{asm, widen, width};
        let () = P::SPARE_BIT;
        let table = Self::asm_table();
        // SAFETY: BMI2+ADX per the caller; the widths match the routines; the table is
        // repr(C) (modulus, then inv); SPARE_BIT holds.
        unsafe {
            match N {
                4 => widen(asm::mul_4(width(chain), *width(other), table)),
                6 => widen(asm::mul_6(width(chain), width(other), table)),
                _ => Self::cios_portable(chain, other),
            }
        }
    }

    /// The modulus and `-p⁻¹ mod 2^64` as the assembly reads them ([`super::MontTable`]
    /// is `repr(C)`: the `N` limbs, then `inv`).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) fn asm_table() -> *const u64 {
        let table: &'static super::MontTable<N> = &P::TABLE;
        table as *const super::MontTable<N> as *const u64
    }

    /// Montgomery product `a·b/R`, not reduced below `p`, with `chain` as the operand whose
    /// limbs form the inner carry chain (the bound is `< a·b/R + p` given `chain + p < R`).
    #[inline(always)]
    fn mul_unreduced(chain: &[u64; N], other: &[u64; N]) -> [u64; N] {
        #[cfg(target_arch = "x86_64")]
        if (N == 4 || N == 6) && crate::cpu::adx() {
            // SAFETY: `cpu::adx` found BMI2 and ADX.
            return unsafe { Self::cios_adx(chain, other) };
        }
        Self::cios_portable(chain, other)
    }

    /// Montgomery square `a²/R`, not reduced below `p` (`< a²/R + p`, for `a + p < R`):
    /// the dedicated MULX/ADX squaring on four limbs (30 multiplications against 36) and
    /// on six (the square's 21 multiplications, then the 36 of the reduction, against
    /// 72), the product otherwise. The same limbs as the product: `(a² + q·p)/R` with the
    /// one `q < R` that makes it exact.
    #[inline(always)]
    fn sqr_unreduced(a: &[u64; N]) -> [u64; N] {
        #[cfg(target_arch = "x86_64")]
        if (N == 4 || N == 6) && crate::cpu::adx() {
            use super::x86_64::{asm, widen, width};
            let () = P::SPARE_BIT;
            let table = Self::asm_table();
            // SAFETY: `cpu::adx` found BMI2 and ADX; the widths match the routines; the
            // table is repr(C) (modulus, then inv).
            return unsafe {
                if N == 4 {
                    widen(asm::sqr_4(width(a), table))
                } else {
                    let mut w = [0u64; 12];
                    asm::sqr_wide_6(width(a), &mut w);
                    let low: [u64; 6] = core::array::from_fn(|i| w[i]);
                    let high: [u64; 6] = core::array::from_fn(|i| w[6 + i]);
                    // (low + q·p)/R ≤ p, plus high < a²/R: as the product's bound.
                    widen(bigint::add(&asm::redc_low_6(low, table), &high).0)
                }
            };
        }
        Self::mul_unreduced(a, a)
    }

    /// `self²`, reduced.
    #[inline(always)]
    pub(super) fn square_fast(&self) -> Self {
        Self::reduce_once(Self::sqr_unreduced(&self.limbs))
    }

    /// `self²` without the final conditional subtraction, as [`Self::mul_lazy`] with both
    /// operands `self`: below `self²/R + p`, so in `[0, 2p)` for `self < 2p` when
    /// `SPARE_BITS ≥ 2`.
    #[inline(always)]
    pub fn square_lazy(&self) -> Self {
        Self::from_montgomery_limbs_unchecked(Self::sqr_unreduced(&self.limbs))
    }

    #[inline(always)]
    pub(super) fn mul_fast(&self, rhs: &Self) -> Self {
        if cfg!(target_arch = "x86_64") && N == 4 {
            Self::reduce_once(Self::mul_unreduced(&rhs.limbs, &self.limbs))
        } else {
            Self::reduce_once(Self::mul_unreduced(&self.limbs, &rhs.limbs))
        }
    }

    /// Montgomery product **without the final conditional subtraction** (lazy
    /// reduction). Exact whenever `rhs + p < R` (`rhs` forms the inner carry chain);
    /// `self` may be any limbs `< R`. The result is congruent to `self·rhs` and below
    /// `self·rhs/R + p`: in `[0, 2p)` when `rhs < p`, and also when both operands are
    /// `< 2p` and `SPARE_BITS ≥ 2` (`4p < R`), as the Fq2 product uses it. Same MULX/ADX
    /// or portable path as `*`.
    #[inline(always)]
    pub fn mul_lazy(&self, rhs: &Self) -> Self {
        Self::from_montgomery_limbs_unchecked(Self::mul_unreduced(&rhs.limbs, &self.limbs))
    }

    /// [`Self::mul_lazy`] on the MULX/ADX assembly, without the per-call detection, so a
    /// hot loop can pick the backend once ([`crate::cpu::adx`]) and monomorphise. Falls
    /// back to the portable path for limb counts without assembly (not 4 or 6) or off
    /// x86-64.
    ///
    /// # Safety
    /// The CPU must support BMI2 and ADX (e.g. [`crate::cpu::adx`] returned `true`).
    #[inline(always)]
    pub unsafe fn mul_lazy_adx(&self, rhs: &Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            debug_assert!(crate::cpu::adx());
            // SAFETY: the caller guarantees BMI2+ADX.
            let limbs = unsafe { Self::cios_adx(&rhs.limbs, &self.limbs) };
            Self::from_montgomery_limbs_unchecked(limbs)
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.mul_lazy_portable(rhs)
    }

    /// [`Self::mul_lazy`] on the portable path (same result).
    #[inline(always)]
    pub fn mul_lazy_portable(&self, rhs: &Self) -> Self {
        Self::from_montgomery_limbs_unchecked(Self::cios_portable(&rhs.limbs, &self.limbs))
    }
}
