//! `O(n²)` reference transforms, for tests and cross-checks only.

use fastzk_field::PrimeField;

use crate::PolyError;

/// `out_j = Σ_i a_i (shift·ω^j)^i` with `ω` a primitive `a.len()`-th root of unity.
pub fn dft<F: PrimeField>(a: &[F], shift: F) -> Result<Vec<F>, PolyError> {
    let n = a.len();
    if !n.is_power_of_two() {
        return Err(PolyError::NotPowerOfTwo(n));
    }
    let log_n = n.trailing_zeros();
    let omega = F::root_of_unity(log_n).ok_or(PolyError::TooLarge {
        log_size: log_n,
        two_adicity: F::TWO_ADICITY,
    })?;
    let mut out = Vec::with_capacity(n);
    let mut x = shift;
    for _ in 0..n {
        // Horner at x.
        out.push(a.iter().rev().fold(F::ZERO, |acc, &c| acc * x + c));
        x *= omega;
    }
    Ok(out)
}

/// The inverse of [`dft`].
pub fn idft<F: PrimeField>(evals: &[F], shift: F) -> Result<Vec<F>, PolyError> {
    let n = evals.len();
    if !n.is_power_of_two() {
        return Err(PolyError::NotPowerOfTwo(n));
    }
    let log_n = n.trailing_zeros();
    if log_n > F::TWO_ADICITY {
        return Err(PolyError::TooLarge {
            log_size: log_n,
            two_adicity: F::TWO_ADICITY,
        });
    }
    let n_inv = F::from_u64(n as u64)
        .inverse()
        .ok_or(PolyError::DivisionByZero("n"))?;
    let shift_inv = shift.inverse().ok_or(PolyError::BadCoset)?;
    // a_i = n⁻¹ shift^{−i} Σ_j e_j ω^{−ij}
    let mut out = dft(evals, F::ONE)?;
    // dft with ω gives Σ e_j ω^{ij}; reindex i → −i mod n.
    let fwd = out.clone();
    for (i, o) in out.iter_mut().enumerate() {
        *o = fwd[(n - i) % n];
    }
    let mut s = n_inv;
    for o in out.iter_mut() {
        *o *= s;
        s *= shift_inv;
    }
    Ok(out)
}
