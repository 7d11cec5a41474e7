//! The butterflies of a radix-2 NTT as a capability of the field: [`NttField`] has
//! plain reduced defaults, and a field overrides what it does faster — Montgomery fields
//! with two spare bits run lazy (Harvey) butterflies two levels at a time
//! (`mont/ntt.rs`), Goldilocks runs packed AVX-512/AVX2 lanes with a fused kernel for the
//! last three levels (`goldilocks/ntt.rs`). The transform itself (level order, four-step
//! blocking, threads) lives in `fastzk-poly` and is written once against this trait.
//!
//! Conventions: `w` is the bit-reversed twiddle table `w[i] = ω^brv(i)`; a CT level
//! computes `(lo, hi) ← (lo + s·hi, lo − s·hi)`, a GS level
//! `(lo, hi) ← (c·(lo + hi), c·s·(lo − hi))`. `last` marks the final level of a whole
//! transform, whose outputs must be canonical; in between, an implementation may keep
//! values in whatever lazy range its own kernels accept (the transform only ever feeds
//! one level's outputs to the next level of the same field).

use crate::traits::{LengthMismatch, PrimeField};

/// What every butterfly kernel returns: an error when slice lengths disagree.
pub type NttResult = Result<(), LengthMismatch>;

/// A prime field the NTT runs on; see the module docs. Every method has a correct
/// default, so `impl NttField for MyField {}` is a complete implementation.
pub trait NttField: PrimeField {
    /// [`Self::ct_quad`] is faster than two levels of [`Self::ct_rows`]: the transform
    /// then runs its levels two at a time.
    const RADIX4: bool = false;
    /// [`Self::ct_last3`] / [`Self::gs_first3`] are fused kernels worth calling.
    const FUSED_LAST3: bool = false;

    /// One CT level on one block's rows, element-wise over `lo` and `hi`.
    #[inline]
    fn ct_rows(lo: &mut [Self], hi: &mut [Self], s: Self, _last: bool) -> NttResult {
        reduced::ct_rows(lo, hi, s)
    }

    /// Two CT levels on the quarters `[a, b, c, d]` of a block, with twiddles
    /// `[s, s0, s1]`: level `t` pairs `(a, c)` and `(b, d)` with `s`, level `t + 1` pairs
    /// `(a, b)` with `s0` and `(c, d)` with `s1`; `last` marks level `t + 1` as the
    /// transform's last.
    fn ct_quad([a, b, c, d]: [&mut [Self]; 4], [s, s0, s1]: [Self; 3], last: bool) -> NttResult {
        Self::ct_rows(a, c, s, false)?;
        Self::ct_rows(b, d, s, false)?;
        Self::ct_rows(a, b, s0, last)?;
        Self::ct_rows(c, d, s1, last)
    }

    /// The CT level with blocks of two (`h = 1`): pair `i` of `x` uses `tw[i]`.
    #[inline]
    fn ct_pairs(x: &mut [Self], tw: &[Self], _last: bool) -> NttResult {
        reduced::ct_pairs(x, tw)
    }

    /// The last three CT levels on every 8-element group of `x`; group `q` is block
    /// `g0 + q` of its level, so the levels use `w[g0+q]`, `w[2(g0+q)+{0,1}]` and
    /// `w[4(g0+q)+{0..3}]`. `x.len()` must be a multiple of 16.
    fn ct_last3(x: &mut [Self], w: &[Self], g0: usize) -> NttResult {
        check_last3(x.len(), w.len(), g0)?;
        for (q, grp) in x.chunks_exact_mut(8).enumerate() {
            let g = g0 + q;
            let (lo, hi) = grp.split_at_mut(4);
            Self::ct_rows(lo, hi, w[g], false)?;
            for (k, blk) in grp.chunks_exact_mut(4).enumerate() {
                let (lo, hi) = blk.split_at_mut(2);
                Self::ct_rows(lo, hi, w[2 * g + k], false)?;
            }
            Self::ct_pairs(grp, &w[4 * g..4 * g + 4], true)?;
        }
        Ok(())
    }

    /// One GS level on one block's rows; `c` (a common factor, `None` = 1) is only
    /// passed on the transform's last level.
    #[inline]
    fn gs_rows(
        lo: &mut [Self],
        hi: &mut [Self],
        s: Self,
        c: Option<Self>,
        _last: bool,
    ) -> NttResult {
        reduced::gs_rows(lo, hi, s, c)
    }

    /// Two GS levels on the quarters `[a, b, c, d]` of a block with inverse twiddles
    /// `[s, s0, s1]` (the inverse of [`Self::ct_quad`]): level `t + 1` pairs `(a, b)` with
    /// `s0` and `(c, d)` with `s1`, then level `t` pairs `(a, c)` and `(b, d)` with `s`;
    /// `c` and `last` are level `t`'s, as for [`Self::gs_rows`]. The transform calls it
    /// when [`Self::RADIX4`] is set and the quarters have at least eight elements.
    fn gs_quad(
        [a, b, c, d]: [&mut [Self]; 4],
        [s, s0, s1]: [Self; 3],
        scale: Option<Self>,
        last: bool,
    ) -> NttResult {
        Self::gs_rows(a, b, s0, None, false)?;
        Self::gs_rows(c, d, s1, None, false)?;
        Self::gs_rows(a, c, s, scale, last)?;
        Self::gs_rows(b, d, s, scale, last)
    }

    /// The GS level with blocks of two (`h = 1`, no common factor).
    #[inline]
    fn gs_pairs(x: &mut [Self], tw: &[Self], _last: bool) -> NttResult {
        reduced::gs_pairs(x, tw)
    }

    /// The inverse of [`Self::ct_last3`] up to the factor 8: the first three GS levels,
    /// with inverse twiddles `w_inv`.
    fn gs_first3(x: &mut [Self], w_inv: &[Self], g0: usize) -> NttResult {
        check_last3(x.len(), w_inv.len(), g0)?;
        for (q, grp) in x.chunks_exact_mut(8).enumerate() {
            let g = g0 + q;
            Self::gs_pairs(grp, &w_inv[4 * g..4 * g + 4], false)?;
            for (k, blk) in grp.chunks_exact_mut(4).enumerate() {
                let (lo, hi) = blk.split_at_mut(2);
                Self::gs_rows(lo, hi, w_inv[2 * g + k], None, false)?;
            }
            let (lo, hi) = grp.split_at_mut(4);
            Self::gs_rows(lo, hi, w_inv[g], None, false)?;
        }
        Ok(())
    }

    /// `a[i] *= b[i]` (coset shifts, pointwise products).
    #[inline]
    fn mul_assign_slice(a: &mut [Self], b: &[Self]) -> NttResult {
        same_len(a.len(), b.len())?;
        for (x, y) in a.iter_mut().zip(b) {
            *x *= *y;
        }
        Ok(())
    }
}

/// The plain butterflies on reduced values: the trait's defaults, kept callable for
/// implementations that use them for some fields only.
pub mod reduced {
    use super::{same_len, NttResult};
    use crate::traits::Field;

    #[inline]
    pub fn ct_rows<F: Field>(lo: &mut [F], hi: &mut [F], s: F) -> NttResult {
        same_len(lo.len(), hi.len())?;
        for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
            let v = *h * s;
            *h = *l - v;
            *l += v;
        }
        Ok(())
    }

    #[inline]
    pub fn ct_pairs<F: Field>(x: &mut [F], tw: &[F]) -> NttResult {
        same_len(x.len(), 2 * tw.len())?;
        for (pair, &s) in x.chunks_exact_mut(2).zip(tw) {
            let v = pair[1] * s;
            pair[1] = pair[0] - v;
            pair[0] += v;
        }
        Ok(())
    }

    #[inline]
    pub fn gs_rows<F: Field>(lo: &mut [F], hi: &mut [F], s: F, c: Option<F>) -> NttResult {
        same_len(lo.len(), hi.len())?;
        match c {
            None => {
                for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
                    let (u, v) = (*l, *h);
                    *l = u + v;
                    *h = (u - v) * s;
                }
            }
            Some(c) => {
                let sc = s * c;
                for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
                    let (u, v) = (*l, *h);
                    *l = (u + v) * c;
                    *h = (u - v) * sc;
                }
            }
        }
        Ok(())
    }

    #[inline]
    pub fn gs_pairs<F: Field>(x: &mut [F], tw: &[F]) -> NttResult {
        same_len(x.len(), 2 * tw.len())?;
        for (pair, &s) in x.chunks_exact_mut(2).zip(tw) {
            let (u, v) = (pair[0], pair[1]);
            pair[0] = u + v;
            pair[1] = (u - v) * s;
        }
        Ok(())
    }
}

pub(crate) fn same_len(expected: usize, got: usize) -> NttResult {
    if expected == got {
        Ok(())
    } else {
        Err(LengthMismatch { expected, got })
    }
}

/// `len` a multiple of 16 and `w` long enough for the groups of [`NttField::ct_last3`].
pub(crate) fn check_last3(len: usize, wlen: usize, g0: usize) -> NttResult {
    if !len.is_multiple_of(16) {
        return Err(LengthMismatch {
            expected: len.next_multiple_of(16),
            got: len,
        });
    }
    let need = 4 * (g0 + len / 8);
    if wlen < need {
        return Err(LengthMismatch {
            expected: need,
            got: wlen,
        });
    }
    Ok(())
}
