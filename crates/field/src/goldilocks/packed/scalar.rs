//! Portable reference implementations on raw canonical values.

use crate::goldilocks::Goldilocks;

#[inline(always)]
fn g(x: u64) -> Goldilocks {
    // Callers only pass canonical values.
    Goldilocks::from_u64_reduced(x)
}

pub(super) fn add_assign(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (g(*x) + g(*y)).value();
    }
}
pub(super) fn sub_assign(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (g(*x) - g(*y)).value();
    }
}
pub(super) fn mul_assign(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (g(*x) * g(*y)).value();
    }
}
pub(super) fn scale(a: &mut [u64], s: u64) {
    let s = g(s);
    for x in a.iter_mut() {
        *x = (g(*x) * s).value();
    }
}
pub(super) fn butterfly_ct(lo: &mut [u64], hi: &mut [u64], s: u64) {
    let s = g(s);
    for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
        let (u, v) = (g(*l), g(*h) * s);
        *l = (u + v).value();
        *h = (u - v).value();
    }
}
pub(super) fn butterfly_gs(lo: &mut [u64], hi: &mut [u64], s: u64) {
    let s = g(s);
    for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
        let (u, v) = (g(*l), g(*h));
        *l = (u + v).value();
        *h = ((u - v) * s).value();
    }
}
pub(super) fn butterfly_gs_scaled(lo: &mut [u64], hi: &mut [u64], sc: u64, c: u64) {
    let (sc, c) = (g(sc), g(c));
    for (l, h) in lo.iter_mut().zip(hi.iter_mut()) {
        let (u, v) = (g(*l), g(*h));
        *l = ((u + v) * c).value();
        *h = ((u - v) * sc).value();
    }
}

pub(super) fn ntt_ct_last3(x: &mut [u64], w: &[u64], g0: usize) {
    for (q, grp) in x.chunks_exact_mut(8).enumerate() {
        let gi = g0 + q;
        let s = w[gi];
        let (a, b) = grp.split_at_mut(4);
        butterfly_ct(a, b, s);
        for (k, blk) in grp.chunks_exact_mut(4).enumerate() {
            let (a, b) = blk.split_at_mut(2);
            butterfly_ct(a, b, w[2 * gi + k]);
        }
        for (k, blk) in grp.chunks_exact_mut(2).enumerate() {
            let (a, b) = blk.split_at_mut(1);
            butterfly_ct(a, b, w[4 * gi + k]);
        }
    }
}

pub(super) fn ntt_gs_first3(x: &mut [u64], w: &[u64], g0: usize) {
    for (q, grp) in x.chunks_exact_mut(8).enumerate() {
        let gi = g0 + q;
        for (k, blk) in grp.chunks_exact_mut(2).enumerate() {
            let (a, b) = blk.split_at_mut(1);
            butterfly_gs(a, b, w[4 * gi + k]);
        }
        for (k, blk) in grp.chunks_exact_mut(4).enumerate() {
            let (a, b) = blk.split_at_mut(2);
            butterfly_gs(a, b, w[2 * gi + k]);
        }
        let (a, b) = grp.split_at_mut(4);
        butterfly_gs(a, b, w[gi]);
    }
}
