//! Square roots shared by the prime fields.

use crate::traits::Field;

/// Tonelli–Shanks for `p − 1 = 2^s · t` (t odd): `root` is a primitive `2^s`-th root of
/// unity (a non-residue raised to `t`) and `half_trace_minus_one = (t − 1)/2`.
pub(crate) fn tonelli_shanks<F: Field>(
    a: &F,
    s: u32,
    root: F,
    half_trace_minus_one: &[u64],
) -> Option<F> {
    if a.is_zero() {
        return Some(*a);
    }
    let w = a.pow(half_trace_minus_one); // a^((t-1)/2)
    let mut x = w * *a; // a^((t+1)/2): a root of a·b
    let mut b = x * w; // a^t: the remaining 2^s-power error
    let mut c = root;
    let mut m = s;
    while !b.is_one() {
        // Least k with b^(2^k) = 1; k = m means a is a non-residue.
        let mut k = 0;
        let mut b2k = b;
        while !b2k.is_one() {
            b2k = b2k.square();
            k += 1;
            if k == m {
                return None;
            }
        }
        let mut w = c;
        for _ in 0..(m - k - 1) {
            w = w.square();
        }
        m = k;
        c = w.square();
        x *= w;
        b *= c;
    }
    Some(x)
}
