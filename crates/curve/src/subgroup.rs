//! Building blocks for fast prime-order subgroup membership tests.
//!
//! Multiplying by the group order `r` (a ~255-bit ladder) is the generic test; pairing
//! curves have endomorphisms whose action on the order-`r` subgroup is multiplication by
//! a *small* integer (a polynomial in the curve's 64-bit seed). Checking "the
//! endomorphism acts as that integer" costs one or two 64-bit multiplications instead.
//!
//! Why such a test is exact (used by the configs that override
//! [`CurveConfig::is_in_correct_subgroup`]): for an endomorphism `α ≠ 0` the kernel of
//! `α` has order dividing `deg α` (the norm of `α` in the endomorphism ring `Z[ψ]`, with
//! `ψ² − tψ + q = 0`, or `Z[σ]` with `σ² + σ + 1 = 0`). The points of `E(F)` that pass the
//! test form `ker α ∩ E(F)`, a subgroup whose order divides both `deg α` and `#E(F)`.
//! When `gcd(deg α, #E(F)) = r` and `α` kills the order-`r` subgroup, the points that
//! pass are exactly that subgroup. The per-curve docs name the endomorphism and the
//! integer facts; `tests/subgroup.rs` recomputes them.
//!
//! * [`Naf`]: compile-time signed-digit recoding of a 64-bit parameter, and the short
//!   double-and-add chains [`mul_by_digits`] / [`mul_by_digits_jacobian`] over it.
//! * [`Psi`]: the untwist–Frobenius–twist endomorphism of a sextic twist over `Fq2`,
//!   `ψ(x, y) = (cx·x̄, cy·ȳ)`, with `cx`, `cy` derived from the curve coefficients.

use fastzk_field::{Field, PrimeField, QuadExt, QuadExtConfig};
use num_bigint::BigUint;
use num_traits::Zero;

use crate::affine::Affine;
use crate::config::CurveConfig;
use crate::jacobian::Jacobian;

/// A signed-binary representation `k = Σ dᵢ·2ⁱ`, `dᵢ ∈ {−1, 0, 1}`, of a 64-bit integer,
/// least significant digit first: the non-adjacent form or the plain binary expansion,
/// whichever needs fewer group operations. Built by a `const fn`, so a fixed curve
/// parameter costs nothing to recode at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Naf {
    digits: [i8; 65],
    len: usize,
}

impl Naf {
    /// Recodes `k`. `k = 0` gives the empty representation (multiplying by it yields the
    /// identity).
    pub const fn new(k: u64) -> Self {
        let naf = Self::non_adjacent(k);
        let bin = Self::binary(k);
        if naf.cost() < bin.cost() {
            naf
        } else {
            bin
        }
    }

    /// The non-adjacent form (no two consecutive nonzero digits).
    pub const fn non_adjacent(k: u64) -> Self {
        let mut digits = [0i8; 65];
        let mut len = 0;
        let mut v = k as u128;
        while v != 0 {
            if v & 1 == 1 {
                // d = 2 − (v mod 4) ∈ {1, −1} makes (v − d) divisible by 4.
                if v & 3 == 1 {
                    digits[len] = 1;
                    v -= 1;
                } else {
                    digits[len] = -1;
                    v += 1;
                }
            }
            len += 1;
            v >>= 1;
        }
        Self { digits, len }
    }

    /// The plain binary expansion.
    pub const fn binary(k: u64) -> Self {
        let mut digits = [0i8; 65];
        let mut len = 0;
        let mut v = k;
        while v != 0 {
            digits[len] = (v & 1) as i8;
            len += 1;
            v >>= 1;
        }
        Self { digits, len }
    }

    /// Doublings plus additions of the left-to-right chain.
    pub const fn cost(&self) -> usize {
        if self.len == 0 {
            return 0;
        }
        let mut adds = 0;
        let mut i = 0;
        while i < self.len {
            if self.digits[i] != 0 {
                adds += 1;
            }
            i += 1;
        }
        (self.len - 1) + (adds - 1)
    }

    /// Digits, least significant first; the last one is nonzero (and is `1`).
    pub fn digits(&self) -> &[i8] {
        &self.digits[..self.len]
    }

    /// The integer represented (as `i128`, so a test can check the recoding).
    pub const fn value(&self) -> i128 {
        let mut acc: i128 = 0;
        let mut i = self.len;
        while i > 0 {
            i -= 1;
            acc = acc * 2 + self.digits[i] as i128;
        }
        acc
    }
}

/// `[k]P` for the recoded `k`: left-to-right Jacobian doublings and mixed additions of
/// `±P`. Valid for any curve point (every special case of the group law is handled).
pub fn mul_by_digits<C: CurveConfig>(p: &Affine<C>, k: &Naf) -> Jacobian<C> {
    let d = k.digits();
    if p.infinity || d.is_empty() {
        return Jacobian::identity();
    }
    let neg = -*p;
    // The top digit of a NAF/binary expansion of a positive integer is 1.
    let mut acc = Jacobian::from(*p);
    for &di in d[..d.len() - 1].iter().rev() {
        acc = acc.double();
        match di {
            1 => acc = acc.add_affine(p),
            -1 => acc = acc.add_affine(&neg),
            _ => {}
        }
    }
    acc
}

/// [`mul_by_digits`] for a Jacobian input (full additions instead of mixed ones).
pub fn mul_by_digits_jacobian<C: CurveConfig>(p: &Jacobian<C>, k: &Naf) -> Jacobian<C> {
    let d = k.digits();
    if p.is_zero() || d.is_empty() {
        return Jacobian::identity();
    }
    let neg = -*p;
    let mut acc = *p;
    for &di in d[..d.len() - 1].iter().rev() {
        acc = acc.double();
        match di {
            1 => acc = acc.add_jacobian(p),
            -1 => acc = acc.add_jacobian(&neg),
            _ => {}
        }
    }
    acc
}

/// Whether the Jacobian point `a` equals the affine point `b`, without an inversion.
#[inline]
pub fn jacobian_eq_affine<C: CurveConfig>(a: &Jacobian<C>, b: &Affine<C>) -> bool {
    match (a.is_zero(), b.infinity) {
        (true, true) => true,
        (false, false) => {
            let z2 = a.z.square();
            a.x == b.x * z2 && a.y == b.y * z2 * a.z
        }
        _ => false,
    }
}

/// The untwist–Frobenius–twist endomorphism `ψ = ι⁻¹ ∘ π_q ∘ ι` of a sextic twist
/// `E': y² = x³ + b'` over `Fq2` of `E: y² = x³ + b` over `Fq`:
/// `ψ(x, y) = (cx·x̄, cy·ȳ)`, where `x̄ = x^q` is the conjugate.
///
/// Whatever the twist type, with `ι(x, y) = (w²·x, w³·y)` for a `w` with `w⁶ = b/b'`
/// (D-type: `b' = b/ξ`, `w⁶ = ξ`; M-type: `b' = b·ξ`, `w⁶ = 1/ξ`), one gets
/// `cx = w^(2(q−1)) = (b/b')^((q−1)/3)` and `cy = w^(3(q−1)) = (b/b')^((q−1)/2)`,
/// independent of which sixth root `w` is chosen (the sixth roots of unity lie in `Fq`,
/// so `ζ^(q−1) = 1`). So both constants are computed from `b`, `b'` and `q` alone.
/// `ψ` satisfies `ψ² − tψ + q = 0` (as `π_q` does on `E`) and acts on the order-`r`
/// subgroup of `E'(Fq2)` as multiplication by `q mod r`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Psi<Q: QuadExtConfig> {
    pub cx: QuadExt<Q>,
    pub cy: QuadExt<Q>,
}

impl<Q: QuadExtConfig> Psi<Q>
where
    Q::Base: PrimeField,
{
    /// Derives `cx`, `cy` from the base-curve coefficient `b ∈ Fq` and the twist's
    /// `b' ∈ Fq2`. Panics if `q ≢ 1 (mod 6)` or `b' = 0` (not a sextic twist setting).
    pub fn derive(b: Q::Base, b_twist: QuadExt<Q>) -> Self {
        let q = <Q::Base as PrimeField>::modulus();
        let qm1: BigUint = &q - 1u32;
        assert!((&qm1 % 6u32).is_zero(), "sextic twist needs q ≡ 1 (mod 6)");
        let ratio = QuadExt::<Q>::new(b, Q::Base::ZERO)
            * b_twist.inverse().expect("twist coefficient is nonzero");
        let cx = ratio.pow(&(&qm1 / 3u32).to_u64_digits());
        let cy = ratio.pow(&(&qm1 / 2u32).to_u64_digits());
        Self { cx, cy }
    }

    /// `ψ(P)` for an affine point.
    #[inline]
    pub fn apply<C: CurveConfig<Base = QuadExt<Q>>>(&self, p: &Affine<C>) -> Affine<C> {
        if p.infinity {
            return *p;
        }
        Affine::new_unchecked(self.cx * p.x.conjugate(), self.cy * p.y.conjugate())
    }

    /// `ψ(P)` for a Jacobian point: `(X, Y, Z) ↦ (cx·X̄, cy·Ȳ, Z̄)`, since conjugation is
    /// a field automorphism (`x̄ = X̄/Z̄²`, `ȳ = Ȳ/Z̄³`). Maps the identity to itself.
    #[inline]
    pub fn apply_jacobian<C: CurveConfig<Base = QuadExt<Q>>>(
        &self,
        p: &Jacobian<C>,
    ) -> Jacobian<C> {
        Jacobian::new_unchecked(
            self.cx * p.x.conjugate(),
            self.cy * p.y.conjugate(),
            p.z.conjugate(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recodings_represent_their_integer() {
        let parameters = [crate::bn254::X, crate::bls12_381::X_ABS];
        let extremes = [u64::MAX, u64::MAX - 1, 1 << 63];
        for k in [0u64, 1, 2, 3, 7]
            .into_iter()
            .chain(parameters)
            .chain(extremes)
        {
            for r in [Naf::new(k), Naf::non_adjacent(k), Naf::binary(k)] {
                assert_eq!(r.value(), k as i128, "k={k}");
                if k != 0 {
                    assert_eq!(*r.digits().last().unwrap(), 1);
                }
            }
            let n = Naf::non_adjacent(k);
            for w in n.digits().windows(2) {
                assert!(w[0] == 0 || w[1] == 0, "NAF has adjacent nonzero digits");
            }
        }
    }
}
