//! Bit-reversal permutations: in place, tiled so both sides of every swap walk
//! contiguous runs, and in parallel.

use rayon::prelude::*;

use super::SendPtr;

#[inline(always)]
/// `i` with its low `bits` bits in reverse order.
pub fn reverse_bits(i: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - bits)
    }
}

/// In-place bit-reversal permutation, in `2^T × 2^T` tiles so that both sides of every
/// swap walk contiguous runs.
pub(crate) fn bit_reverse<F: Send>(x: &mut [F], parallel: bool) {
    const T: u32 = 4;
    let n = x.len();
    let k = n.trailing_zeros();
    if k < 2 * T + 2 {
        for i in 0..n {
            let j = reverse_bits(i, k);
            if i < j {
                x.swap(i, j);
            }
        }
        return;
    }
    let m = k - 2 * T;
    let ptr = SendPtr(x.as_mut_ptr());
    let work = |a: usize| {
        let ar = reverse_bits(a, m);
        if a > ar {
            return;
        }
        for hi in 0..1usize << T {
            let rhi = reverse_bits(hi, T);
            for lo in 0..1usize << T {
                let i = (hi << (k - T)) | (a << T) | lo;
                let j = (reverse_bits(lo, T) << (k - T)) | (ar << T) | rhi;
                if a < ar || i < j {
                    // SAFETY: i != j, both < n; the pair {a, ar} is handled by exactly one
                    // task (the smaller), and i, j have middle bits a and ar.
                    unsafe { core::ptr::swap(ptr.at(i), ptr.at(j)) };
                }
            }
        }
    };
    if parallel {
        (0..1usize << m).into_par_iter().for_each(work);
    } else {
        (0..1usize << m).for_each(work);
    }
}
