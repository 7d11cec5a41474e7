//! Montgomery's trick: many inversions for the price of one.

use crate::traits::Field;

/// Inverts every element in place with one field inversion and `3(n − 1)` multiplications.
/// Zeros have no inverse and are left as zero, so callers can mix them in.
pub fn batch_inverse<F: Field>(values: &mut [F]) {
    let mut scratch = Vec::with_capacity(values.len());
    batch_inverse_with_scratch(values, &mut scratch);
}

/// [`batch_inverse`] reusing a caller's buffer (hot loops avoid the allocation).
pub fn batch_inverse_with_scratch<F: Field>(values: &mut [F], scratch: &mut Vec<F>) {
    scratch.clear();
    let mut acc = F::ONE;
    for v in values.iter() {
        scratch.push(acc);
        if !v.is_zero() {
            acc *= *v;
        }
    }
    // acc is a product of non-zero elements, hence invertible.
    let mut inv = acc.inverse().unwrap_or(F::ZERO);
    for (v, prefix) in values.iter_mut().zip(scratch.iter()).rev() {
        if v.is_zero() {
            continue;
        }
        let next = inv * *v;
        *v = inv * *prefix;
        inv = next;
    }
}
