//! NTT butterflies for Montgomery fields. With two spare bits (`4p < R`: BN254 `Fr` and
//! `Fq`, BLS12-381 `Fq`) they run lazily: forward values live in `[0, 4p)` and inverse
//! values in `[0, 2p)` between levels (one `2p` conditional subtraction per butterfly,
//! [`Fp::mul_lazy`], no other reduction), two levels at a time, and only a transform's
//! last level canonicalises. Fields with one spare bit keep the reduced defaults.

use super::{Fp, MontConfig};
use crate::ntt::{reduced, same_len, NttField, NttResult};

impl<P: MontConfig<N>, const N: usize> Fp<P, N> {
    /// Whether the lazy butterflies are sound for this field.
    const LAZY_NTT: bool = Self::SPARE_BITS >= 2;

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
