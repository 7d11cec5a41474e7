//! NTT butterflies for Montgomery fields. With two spare bits (`4p < R`: BN254 `Fr` and
//! `Fq`, BLS12-381 `Fq`) they run lazily: forward values live in `[0, 4p)` and inverse
//! values in `[0, 2p)` between levels (one `2p` conditional subtraction per butterfly,
//! [`Fp::mul_lazy`], no other reduction), two levels at a time, and only a transform's
//! last level canonicalises. Fields with one spare bit keep the reduced defaults.
//!
//! On a CPU with AVX-512 IFMA, 4-limb fields with two spare bits (BN254) run the rows of
//! `ct_quad`, `ct_rows` and `gs_rows` eight columns at a time on the IFMA lanes
//! (`ifma::ntt`, same ranges in memory); the remaining columns and the blocks shorter than
//! eight stay on the scalar kernels below.

use super::{Fp, MontConfig};
#[cfg(target_arch = "x86_64")]
use crate::ifma::{ntt as lanes, IfmaModulus};
use crate::ntt::{reduced, same_len, NttField, NttResult};
#[cfg(target_arch = "x86_64")]
use crate::traits::Field;

/// The first four limbs of a modulus (the whole modulus when `N = 4`).
#[cfg(target_arch = "x86_64")]
const fn first4<const N: usize>(m: &[u64; N]) -> [u64; 4] {
    let mut out = [0u64; 4];
    let mut i = 0;
    while i < 4 && i < N {
        out[i] = m[i];
        i += 1;
    }
    out
}

/// The IFMA lanes' constants for the field `P`: only for four limbs and two spare bits
/// (the lazy ranges need `4p < 2^256`).
#[cfg(target_arch = "x86_64")]
struct Lanes<P, const N: usize>(core::marker::PhantomData<P>);

#[cfg(target_arch = "x86_64")]
impl<P: MontConfig<N>, const N: usize> Lanes<P, N> {
    const MODULUS: Option<IfmaModulus<4, 5>> = if N == 4 && Fp::<P, N>::LAZY_NTT {
        Some(IfmaModulus::new(first4(&P::MODULUS)))
    } else {
        None
    };
}

impl<P: MontConfig<N>, const N: usize> Fp<P, N> {
    /// Whether the lazy butterflies are sound for this field.
    const LAZY_NTT: bool = Self::SPARE_BITS >= 2;

    /// The lanes' modulus when rows run on the IFMA lanes: 4 limbs, two spare bits, a
    /// CPU with IFMA.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn ifma_lanes() -> Option<&'static IfmaModulus<4, 5>> {
        match &Lanes::<P, N>::MODULUS {
            Some(m) if crate::ifma::is_supported() => Some(m),
            _ => None,
        }
    }

    /// `s` as the lanes' twiddle: its IFMA form `s·2^shift` (`shift = 4` for four limbs).
    #[cfg(target_arch = "x86_64")]
    fn lane_twiddle(s: &Self, m: &IfmaModulus<4, 5>) -> lanes::Twiddle {
        let t = (0..m.shift).fold(*s, |t, _| t.double());
        lanes::twiddle(first4(&t.limbs))
    }

    /// The rows' words, for the lanes (`Fp` is `repr(transparent)` over `[u64; N]`).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn words(x: &mut [Self]) -> *mut u64 {
        x.as_mut_ptr() as *mut u64
    }

    /// `y·s` in `[0, 2p)` for any `y < R` and canonical `s`, on the backend fixed by
    /// `ADX`.
    #[inline(always)]
    fn mul_lz<const ADX: bool>(y: &Self, s: &Self) -> Self {
        if ADX {
            // SAFETY: kernels with `ADX = true` are only chosen after `cpu::adx()`
            // returned true (see `ct_quad`).
            unsafe { y.mul_lazy_adx(s) }
        } else {
            y.mul_lazy_portable(s)
        }
    }

    /// One lazy CT butterfly on values in `[0, 4p)`: `(x + s·y, x − s·y)`, both in
    /// `[0, 4p)`. `ONE` says `s = 1` (the multiplication is skipped).
    #[inline(always)]
    fn bf_lazy<const ADX: bool, const ONE: bool>(x: Self, y: Self, s: &Self) -> (Self, Self) {
        let x = x.reduce_below_2p();
        let t = if ONE {
            y.reduce_below_2p()
        } else {
            Self::mul_lz::<ADX>(&y, s)
        };
        (x.add_lazy(&t), x.sub_lazy(&t))
    }

    /// [`NttField::ct_quad`] monomorphised on the backend, `s = s0 = 1` (`ONE`: the top
    /// two levels of a transform) and `LAST`.
    #[inline(never)]
    fn ct_quad_lazy<const ADX: bool, const ONE: bool, const LAST: bool>(
        [a, b, c, d]: [&mut [Self]; 4],
        [s, s0, s1]: [Self; 3],
    ) {
        let q = a.len();
        let (b, c, d) = (&mut b[..q], &mut c[..q], &mut d[..q]);
        for (((a, b), c), d) in a
            .iter_mut()
            .zip(b.iter_mut())
            .zip(c.iter_mut())
            .zip(d.iter_mut())
        {
            let (y0, y2) = Self::bf_lazy::<ADX, ONE>(*a, *c, &s);
            let (y1, y3) = Self::bf_lazy::<ADX, ONE>(*b, *d, &s);
            let (z0, z1) = Self::bf_lazy::<ADX, ONE>(y0, y1, &s0);
            let (z2, z3) = Self::bf_lazy::<ADX, false>(y2, y3, &s1);
            if LAST {
                *a = z0.canonicalize_lazy();
                *b = z1.canonicalize_lazy();
                *c = z2.canonicalize_lazy();
                *d = z3.canonicalize_lazy();
            } else {
                *a = z0;
                *b = z1;
                *c = z2;
                *d = z3;
            }
        }
    }

    /// A lazy GS butterfly on values in `[0, 2p)`: `(u + v, s·(u − v))` in `[0, 2p)`,
    /// canonical when `last`.
    #[inline(always)]
    fn gs_lazy(u: Self, v: Self, s: &Self, last: bool) -> (Self, Self) {
        if last {
            (
                u.add_lazy(&v).canonicalize_lazy(),
                u.sub_lazy(&v).mul_lazy(s).reduce_below_p(),
            )
        } else {
            (u.add_lazy(&v).reduce_below_2p(), u.sub_lazy(&v).mul_lazy(s))
        }
    }
}

impl<P: MontConfig<N>, const N: usize> NttField for Fp<P, N> {
    const RADIX4: bool = Self::LAZY_NTT;

    /// Lazy: inputs in `[0, 4p)`, outputs in `[0, 4p)` (canonical when `last`).
    #[inline]
    fn ct_rows(lo: &mut [Self], hi: &mut [Self], s: Self, last: bool) -> NttResult {
        if !Self::LAZY_NTT {
            return reduced::ct_rows(lo, hi, s);
        }
        same_len(lo.len(), hi.len())?;
        #[cfg(target_arch = "x86_64")]
        let lanes_m = Self::ifma_lanes().filter(|_| lo.len() >= 8);
        #[cfg(target_arch = "x86_64")]
        let (lo, hi) = if let Some(m) = lanes_m {
            let len = lo.len() & !7;
            let tw = Self::lane_twiddle(&s, m);
            let (pl, ph) = (Self::words(lo), Self::words(hi));
            // SAFETY: IFMA is present (`ifma_lanes`); `lo` and `hi` are distinct slices of
            // at least `len` elements of four words (N = 4).
            unsafe {
                if last {
                    lanes::ct_rows_avx512::<true>(pl, ph, len, &tw, m)
                } else {
                    lanes::ct_rows_avx512::<false>(pl, ph, len, &tw, m)
                }
            }
            (&mut lo[len..], &mut hi[len..])
        } else {
            (lo, hi)
        };
        for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
            let x = l.reduce_below_2p();
            let t = h.mul_lazy(&s);
            let (a, b) = (x.add_lazy(&t), x.sub_lazy(&t));
            if last {
                *l = a.canonicalize_lazy();
                *h = b.canonicalize_lazy();
            } else {
                *l = a;
                *h = b;
            }
        }
        Ok(())
    }

    fn ct_quad(quarters: [&mut [Self]; 4], twiddles: [Self; 3], last: bool) -> NttResult {
        let ([a, b, c, d], [s, s0, s1]) = (quarters, twiddles);
        if !Self::LAZY_NTT {
            reduced::ct_rows(a, c, s)?;
            reduced::ct_rows(b, d, s)?;
            reduced::ct_rows(a, b, s0)?;
            return reduced::ct_rows(c, d, s1);
        }
        for len in [b.len(), c.len(), d.len()] {
            same_len(a.len(), len)?;
        }
        let one = s == Self::ONE && s0 == Self::ONE;
        #[cfg(target_arch = "x86_64")]
        let lanes_m = Self::ifma_lanes().filter(|_| a.len() >= 8);
        #[cfg(target_arch = "x86_64")]
        let [a, b, c, d] = if let Some(m) = lanes_m {
            let len = a.len() & !7;
            let tw = twiddles.map(|t| Self::lane_twiddle(&t, m));
            let rows = [
                Self::words(a),
                Self::words(b),
                Self::words(c),
                Self::words(d),
            ];
            // SAFETY: IFMA is present (`ifma_lanes`); the quarters are distinct slices of
            // at least `len` elements of four words (N = 4).
            unsafe {
                match (one, last) {
                    (true, true) => lanes::ct_quad_avx512::<true, true>(rows, len, &tw, m),
                    (true, false) => lanes::ct_quad_avx512::<true, false>(rows, len, &tw, m),
                    (false, true) => lanes::ct_quad_avx512::<false, true>(rows, len, &tw, m),
                    (false, false) => lanes::ct_quad_avx512::<false, false>(rows, len, &tw, m),
                }
            }
            if len == a.len() {
                return Ok(());
            }
            [&mut a[len..], &mut b[len..], &mut c[len..], &mut d[len..]]
        } else {
            [a, b, c, d]
        };
        macro_rules! go {
            ($($adx:literal, $one:literal, $last:literal);*) => {
                match (crate::cpu::adx(), one, last) {
                    $(($adx, $one, $last) => {
                        Self::ct_quad_lazy::<$adx, $one, $last>([a, b, c, d], twiddles)
                    })*
                }
            };
        }
        go!(true, false, false; true, false, true; true, true, false; true, true, true;
            false, false, false; false, false, true; false, true, false; false, true, true);
        Ok(())
    }

    /// Lazy: inputs in `[0, 4p)`, canonical outputs when `last`.
    #[inline]
    fn ct_pairs(x: &mut [Self], tw: &[Self], last: bool) -> NttResult {
        if !Self::LAZY_NTT {
            return reduced::ct_pairs(x, tw);
        }
        same_len(x.len(), 2 * tw.len())?;
        for (pair, s) in x.chunks_exact_mut(2).zip(tw) {
            let u = pair[0].reduce_below_2p();
            let t = pair[1].mul_lazy(s);
            let (a, b) = (u.add_lazy(&t), u.sub_lazy(&t));
            if last {
                pair[0] = a.canonicalize_lazy();
                pair[1] = b.canonicalize_lazy();
            } else {
                pair[0] = a;
                pair[1] = b;
            }
        }
        Ok(())
    }

    /// Lazy: inputs in `[0, 2p)`; outputs in `[0, 2p)`, canonical when `last` (`c` is
    /// only passed with `last`).
    #[inline]
    fn gs_rows(
        lo: &mut [Self],
        hi: &mut [Self],
        s: Self,
        c: Option<Self>,
        last: bool,
    ) -> NttResult {
        if !Self::LAZY_NTT {
            return reduced::gs_rows(lo, hi, s, c);
        }
        same_len(lo.len(), hi.len())?;
        #[cfg(target_arch = "x86_64")]
        let lanes_m = Self::ifma_lanes().filter(|_| lo.len() >= 8);
        #[cfg(target_arch = "x86_64")]
        let (lo, hi) = if let Some(m) = lanes_m {
            let len = lo.len() & !7;
            let tw = Self::lane_twiddle(&s, m);
            let scale = c.map(|c| (Self::lane_twiddle(&c, m), Self::lane_twiddle(&(s * c), m)));
            let (pl, ph) = (Self::words(lo), Self::words(hi));
            // SAFETY: IFMA is present (`ifma_lanes`); `lo` and `hi` are distinct slices of
            // at least `len` elements of four words (N = 4).
            unsafe {
                if last {
                    lanes::gs_rows_avx512::<true>(pl, ph, len, &tw, scale.as_ref(), m)
                } else {
                    lanes::gs_rows_avx512::<false>(pl, ph, len, &tw, scale.as_ref(), m)
                }
            }
            (&mut lo[len..], &mut hi[len..])
        } else {
            (lo, hi)
        };
        match c {
            None => {
                for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
                    (*l, *h) = Self::gs_lazy(*l, *h, &s, last);
                }
            }
            Some(c) => {
                let sc = s * c;
                for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
                    let (u, v) = (*l, *h);
                    *l = u.add_lazy(&v).mul_lazy(&c).reduce_below_p();
                    *h = u.sub_lazy(&v).mul_lazy(&sc).reduce_below_p();
                }
            }
        }
        Ok(())
    }

    fn gs_quad(
        quarters: [&mut [Self]; 4],
        twiddles: [Self; 3],
        scale: Option<Self>,
        last: bool,
    ) -> NttResult {
        let ([a, b, c, d], [s, s0, s1]) = (quarters, twiddles);
        for len in [b.len(), c.len(), d.len()] {
            same_len(a.len(), len)?;
        }
        #[cfg(target_arch = "x86_64")]
        let lanes_m = Self::ifma_lanes().filter(|_| a.len() >= 8);
        #[cfg(target_arch = "x86_64")]
        let [a, b, c, d] = if let Some(m) = lanes_m {
            let len = a.len() & !7;
            let tw = twiddles.map(|t| Self::lane_twiddle(&t, m));
            let sc = scale.map(|k| (Self::lane_twiddle(&k, m), Self::lane_twiddle(&(s * k), m)));
            let rows = [
                Self::words(a),
                Self::words(b),
                Self::words(c),
                Self::words(d),
            ];
            // SAFETY: IFMA is present (`ifma_lanes`); the quarters are distinct slices of
            // at least `len` elements of four words (N = 4).
            unsafe {
                if last {
                    lanes::gs_quad_avx512::<true>(rows, len, &tw, sc.as_ref(), m)
                } else {
                    lanes::gs_quad_avx512::<false>(rows, len, &tw, sc.as_ref(), m)
                }
            }
            if len == a.len() {
                return Ok(());
            }
            [&mut a[len..], &mut b[len..], &mut c[len..], &mut d[len..]]
        } else {
            [a, b, c, d]
        };
        Self::gs_rows(a, b, s0, None, false)?;
        Self::gs_rows(c, d, s1, None, false)?;
        Self::gs_rows(a, c, s, scale, last)?;
        Self::gs_rows(b, d, s, scale, last)
    }

    #[inline]
    fn gs_pairs(x: &mut [Self], tw: &[Self], last: bool) -> NttResult {
        if !Self::LAZY_NTT {
            return reduced::gs_pairs(x, tw);
        }
        same_len(x.len(), 2 * tw.len())?;
        for (pair, s) in x.chunks_exact_mut(2).zip(tw) {
            (pair[0], pair[1]) = Self::gs_lazy(pair[0], pair[1], s, last);
        }
        Ok(())
    }
}
