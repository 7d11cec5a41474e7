//! Double-width products and one Montgomery reduction per result: the `Fq2` product
//! adds and subtracts its three Karatsuba products before reducing, so each component
//! pays one reduction instead of one per product (three full products become three
//! half-price ones and two reductions).

use super::{Fp, MontConfig};
use crate::bigint::{adc, mac, sbb};

/// Limbs of the widest double-width value (BLS12-381 `Fq`: 2 × 6).
const MAX_WIDE: usize = 12;

/// An unreduced value of `2N` limbs (the rest of the array is zero).
#[derive(Clone, Copy)]
pub(crate) struct Wide<const N: usize>([u64; MAX_WIDE]);

impl<const N: usize> Wide<N> {
    /// `self + rhs`; the caller keeps the sum below `2^(128·N)`.
    #[inline(always)]
    pub(crate) fn add(&self, rhs: &Self) -> Self {
        let mut r = [0u64; MAX_WIDE];
        let mut carry = 0;
        for (r, (a, b)) in r.iter_mut().zip(self.0.iter().zip(&rhs.0)).take(2 * N) {
            (*r, carry) = adc(*a, *b, carry);
        }
        Self(r)
    }

    /// `self − rhs` and the borrow (1 when `rhs > self`, the difference then wrapped).
    #[inline(always)]
    pub(crate) fn sub(&self, rhs: &Self) -> (Self, u64) {
        let mut r = [0u64; MAX_WIDE];
        let mut borrow = 0;
        for (r, (a, b)) in r.iter_mut().zip(self.0.iter().zip(&rhs.0)).take(2 * N) {
            (*r, borrow) = sbb(*a, *b, borrow);
        }
        (Self(r), borrow)
    }
}

impl<P: MontConfig<N>, const N: usize> Fp<P, N> {
    /// The product `a·b` as `2N` limbs, not reduced (operands may be any limbs `< R`).
    #[inline(always)]
    pub(crate) fn mul_wide(&self, rhs: &Self) -> Wide<N> {
        const { assert!(2 * N <= MAX_WIDE, "Wide holds up to 12 limbs") };
        #[cfg(target_arch = "x86_64")]
        if (N == 4 || N == 6) && crate::cpu::adx() {
            use super::x86_64::{asm, width};
            let (a, b) = (&self.limbs, &rhs.limbs);
            let mut r = [0u64; MAX_WIDE];
            // SAFETY: `cpu::adx` found BMI2 and ADX; the widths match the routines.
            unsafe {
                match N {
                    4 => asm::mul_wide_4(width(a), width(b), (&mut r[..8]).try_into().unwrap()),
                    _ => asm::mul_wide_6(width(a), width(b), (&mut r[..12]).try_into().unwrap()),
                }
            }
            return Wide(r);
        }
        Self::mul_wide_portable(self, rhs)
    }

    /// [`Self::mul_wide`] without the assembly (the reference it is tested against).
    #[inline(always)]
    pub(crate) fn mul_wide_portable(&self, rhs: &Self) -> Wide<N> {
        let (a, b) = (&self.limbs, &rhs.limbs);
        let mut r = [0u64; MAX_WIDE];
        for i in 0..N {
            let mut carry = 0;
            for j in 0..N {
                (r[i + j], carry) = mac(r[i + j], a[i], b[j], carry);
            }
            r[i + N] = carry;
        }
        Wide(r)
    }

    /// `t − rhs` made non-negative: `t − rhs + p·R` when `rhs > t` (branch-free). For
    /// `t, rhs < p²` the result is below `p·R`, as [`Self::redc`] needs.
    #[inline(always)]
    pub(crate) fn sub_wide_mod(t: &Wide<N>, rhs: &Wide<N>) -> Wide<N> {
        let (mut d, borrow) = t.sub(rhs);
        let mask = super::opaque(0u64.wrapping_sub(borrow));
        let mut carry = 0;
        for i in 0..N {
            (d.0[N + i], carry) = adc(d.0[N + i], P::MODULUS[i] & mask, carry);
        }
        d
    }

    /// Montgomery reduction `t·R⁻¹ mod p` of a value `t < p·R`, reduced below `p`.
    #[inline(always)]
    pub(crate) fn redc(t: &Wide<N>) -> Self {
        #[cfg(target_arch = "x86_64")]
        if (N == 4 || N == 6) && crate::cpu::adx() {
            use super::x86_64::{asm, widen, width};
            let mut low = [0u64; N];
            let mut high = [0u64; N];
            low.copy_from_slice(&t.0[..N]);
            high.copy_from_slice(&t.0[N..2 * N]);
            let table = Self::asm_table();
            // SAFETY: BMI2+ADX per `cpu::adx`; the table is repr(C) (modulus, then inv).
            let r: [u64; N] = unsafe {
                match N {
                    4 => widen(asm::redc_low_4(*width(&low), table)),
                    _ => widen(asm::redc_low_6(*width(&low), table)),
                }
            };
            // t·R⁻¹ ≡ high + (low + q·p)/R: below p + p (`t < p·R` makes `high < p`).
            return Self::reduce_once(crate::bigint::add(&r, &high).0);
        }
        Self::redc_portable(t)
    }

    /// [`Self::redc`] without the assembly (the reference it is tested against).
    #[inline(always)]
    pub(crate) fn redc_portable(t: &Wide<N>) -> Self {
        let mut t = t.0;
        let p = &P::MODULUS;
        // Carry out of word `i + N` from the previous step.
        let mut top = 0u64;
        for i in 0..N {
            let m = t[i].wrapping_mul(P::INV);
            let mut carry = 0;
            for j in 0..N {
                (t[i + j], carry) = mac(t[i + j], m, p[j], carry);
            }
            let (s, c1) = adc(t[i + N], carry, top);
            t[i + N] = s;
            top = c1;
        }
        // (t + m·p)/R < p·R/R + p = 2p < R, so `top` is zero here.
        debug_assert_eq!(top, 0, "redc needs t < p·R");
        let mut r = [0u64; N];
        r.copy_from_slice(&t[N..2 * N]);
        Self::reduce_once(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bigint;
    use crate::mont::lazy::{fq2_mul_karatsuba, fq2_mul_wide};
    use crate::traits::Field;
    use rand::SeedableRng;

    /// Random elements and the edges: 0, 1, 2, p − 1, p − 2, and limbs all ones below p.
    fn samples<P: MontConfig<N>, const N: usize>() -> Vec<Fp<P, N>> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(N as u64);
        let one = Fp::<P, N>::ONE;
        let mut v = vec![Fp::ZERO, one, one.double(), -one, -one.double()];
        let mut high = P::MODULUS;
        high[0] = 0;
        v.push(Fp::from_montgomery_limbs_unchecked(
            bigint::sub(&high, &[1; N]).0,
        ));
        v.extend((0..60).map(|_| Fp::random(&mut rng)));
        v
    }

    fn check<P: MontConfig<N>, const N: usize>() {
        let xs = samples::<P, N>();
        for a in &xs {
            for b in &xs {
                let want = *a * *b;
                let wide = a.mul_wide(b);
                assert_eq!(wide.0, a.mul_wide_portable(b).0, "wide product");
                assert_eq!(Fp::redc(&wide), want, "redc of a·b");
                assert_eq!(Fp::redc_portable(&wide), want, "portable redc of a·b");
                // The other inputs the Fq2 product gives redc: a sum of two products
                // (< 2p²) and a negative difference lifted by p·R.
                let twice = wide.add(&wide);
                assert_eq!(Fp::redc(&twice), want.double());
                assert_eq!(Fp::redc_portable(&twice), want.double());
                let zero = Fp::<P, N>::ZERO.mul_wide(b);
                let diff = Fp::<P, N>::sub_wide_mod(&zero, &wide);
                assert_eq!(Fp::redc(&diff), -want, "0 − a·b");
                assert_eq!(Fp::redc_portable(&diff), -want);
            }
        }
    }

    #[test]
    fn wide_product_and_reduction_match_the_montgomery_product() {
        check::<crate::bn254::FqConfig, 4>();
        check::<crate::bls12_381::FqConfig, 6>();
        check::<crate::bn254::FrConfig, 4>();
    }

    /// The `Fq2` product on both paths against the schoolbook formula in the base field.
    #[test]
    fn fq2_product_both_paths() {
        fn go<P: MontConfig<N>, const N: usize>() {
            let xs = samples::<P, N>();
            for (i, a0) in xs.iter().enumerate() {
                let a1 = xs[(i * 7 + 3) % xs.len()];
                for (j, b0) in xs.iter().enumerate() {
                    let b1 = xs[(j * 5 + 1) % xs.len()];
                    let want = [*a0 * *b0 - a1 * b1, *a0 * b1 + a1 * *b0];
                    let a = [*a0, a1];
                    let b = [*b0, b1];
                    assert_eq!(fq2_mul_wide(a, b), want);
                    assert_eq!(fq2_mul_karatsuba(a, b), want);
                }
            }
        }
        go::<crate::bn254::FqConfig, 4>();
        go::<crate::bls12_381::FqConfig, 6>();
    }
}
