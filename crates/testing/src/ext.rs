//! Quadratic extensions `F[u]/(u² − β)`: the field axioms, the product against the
//! schoolbook formula, Frobenius, norms and square roots; and agreement with arkworks
//! where the extension has a counterpart (`Fq2` of the pairing curves).
//!
//! * [`quad_ext_tests!`](crate::quad_ext_tests): any [`QuadExtConfig`] over a prime field.
//! * [`ark_quad_ext_tests!`](crate::ark_quad_ext_tests): with an arkworks counterpart.

use fastzk_field::ark::ArkField;
use fastzk_field::{
    ExtensionField, Field, Legendre, NormInverse, PrimeField, QuadExt, QuadExtConfig,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use crate::check;
use crate::field::MontField;

const CASES: u32 = 2000;

/// A value for `seed`: every seventh case one of `0, 1, −1` or a base-field element.
fn pick<Q: QuadExtConfig>(seed: u64) -> QuadExt<Q> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    match seed % 7 {
        0 => QuadExt::ZERO,
        1 => QuadExt::ONE,
        2 => -QuadExt::<Q>::ONE,
        3 => QuadExt::from_base(Q::Base::random(&mut rng)),
        _ => QuadExt::random(&mut rng),
    }
}

pub fn inverse_of_zero<Q: QuadExtConfig>() {
    assert_eq!(QuadExt::<Q>::ZERO.inverse(), None);
    assert_eq!(QuadExt::<Q>::ONE.inverse(), Some(QuadExt::ONE));
    assert_eq!(QuadExt::<Q>::ZERO.sqrt(), Some(QuadExt::ZERO));
}

/// `β` is a non-residue of the base field, as the construction needs, and the override
/// flag for `β = −1` tells the truth.
pub fn nonresidue_is_declared_truthfully<Q: QuadExtConfig>() {
    assert_eq!(Q::NONRESIDUE.legendre(), Legendre::QuadraticNonResidue);
    assert_eq!(Q::NONRESIDUE_IS_MINUS_ONE, Q::NONRESIDUE == -Q::Base::ONE);
    let x = Q::Base::from_u64(12345);
    assert_eq!(Q::mul_by_nonresidue(x), Q::NONRESIDUE * x);
}

/// Distributivity, associativity, the schoolbook product, inverses, Frobenius as
/// `x ↦ x^p`, the norm, square roots of squares.
pub fn field_axioms<Q: QuadExtConfig>()
where
    Q::Base: PrimeField,
{
    check(
        CASES,
        None,
        (any::<u64>(), any::<u64>(), any::<u64>()),
        |(s1, s2, s3)| {
            let (x, y, z) = (pick::<Q>(s1), pick::<Q>(s2), pick::<Q>(s3));
            prop_assert_eq!(x * (y + z), x * y + x * z);
            prop_assert_eq!((x * y) * z, x * (y * z));
            prop_assert_eq!(x - y + y, x);
            prop_assert_eq!(x.square(), x * x);
            prop_assert_eq!(x.double(), x + x);
            let beta = Q::NONRESIDUE;
            let schoolbook =
                QuadExt::<Q>::new(x.c0 * y.c0 + beta * x.c1 * y.c1, x.c0 * y.c1 + x.c1 * y.c0);
            prop_assert_eq!(x * y, schoolbook);
            match x.inverse() {
                Some(inv) => prop_assert_eq!(inv * x, QuadExt::ONE),
                None => prop_assert!(x.is_zero()),
            }
            // The batch inversions' route: through the norm's inverse in the base field.
            prop_assert_eq!(x.norm_of(), x.norm());
            prop_assert_eq!(x.norm_of().is_zero(), x.is_zero());
            if let Some(norm_inv) = x.norm_of().inverse() {
                prop_assert_eq!(Some(x.inverse_from_norm(norm_inv)), x.inverse());
            }
            let p = <Q::Base as PrimeField>::modulus().to_u64_digits();
            prop_assert_eq!(x.frobenius(), x.pow(&p));
            prop_assert_eq!(x.norm(), (x * x.conjugate()).c0);
            prop_assert_eq!(x.to_base_coeffs(), vec![x.c0, x.c1]);
            prop_assert_eq!(x.scale(y.c0), x * QuadExt::from_base(y.c0));
            let sq = x.square();
            prop_assert_eq!(sq.sqrt().map(|r| r.square()), Some(sq));
            match x.sqrt() {
                Some(r) => prop_assert_eq!(r.square(), x),
                None => prop_assert_eq!(x.legendre(), Legendre::QuadraticNonResidue),
            }
            // Base-field elements, non-residues of the base included, have roots.
            let b = QuadExt::<Q>::from_base(x.c0);
            prop_assert_eq!(b.sqrt().map(|r| r.square()), Some(b));
            Ok(())
        },
    );
}

/// The suite for the extension `Q`, in module `name`.
#[macro_export]
macro_rules! quad_ext_tests {
    ($name:ident, $q:ty) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $crate::__tests!(
                $crate::ext,
                [$q],
                inverse_of_zero,
                nonresidue_is_declared_truthfully,
                field_axioms,
            );
        }
    };
}

/// Every operation agrees with arkworks.
pub fn ops_match_arkworks<Q: QuadExtConfig>()
where
    QuadExt<Q>: ArkField,
{
    use ark_ff::{AdditiveGroup, Field as _, LegendreSymbol};
    check(
        CASES,
        None,
        (any::<u64>(), any::<u64>(), any::<u64>()),
        |(s1, s2, e)| {
            let (x, y) = (pick::<Q>(s1), pick::<Q>(s2));
            let (ax, ay) = (x.to_ark(), y.to_ark());
            prop_assert_eq!((x + y).to_ark(), ax + ay);
            prop_assert_eq!((x - y).to_ark(), ax - ay);
            prop_assert_eq!((x * y).to_ark(), ax * ay);
            prop_assert_eq!(x.square().to_ark(), ax.square());
            prop_assert_eq!(x.double().to_ark(), ax.double());
            prop_assert_eq!((-x).to_ark(), -ax);
            prop_assert_eq!(x.inverse().map(ArkField::to_ark), ax.inverse());
            prop_assert_eq!(x.pow_u64(e).to_ark(), ax.pow([e]));
            let mut f = ax;
            f.frobenius_map_in_place(1);
            prop_assert_eq!(x.frobenius().to_ark(), f);
            let legendre = match ax.legendre() {
                LegendreSymbol::Zero => Legendre::Zero,
                LegendreSymbol::QuadraticResidue => Legendre::QuadraticResidue,
                LegendreSymbol::QuadraticNonResidue => Legendre::QuadraticNonResidue,
            };
            prop_assert_eq!(x.legendre(), legendre);
            prop_assert_eq!(x.sqrt().is_some(), ax.sqrt().is_some());
            prop_assert_eq!(QuadExt::<Q>::from_ark(ax), x);
            Ok(())
        },
    );
}

/// Coefficients whose Montgomery limbs sit at the edges of `[0, p)` (0, 1, 2, p − 1,
/// p − 2) and random ones: the lazily reduced Karatsuba sums then reach their bounds.
pub fn mul_and_square_at_limb_extremes_match_arkworks<Q: QuadExtConfig>()
where
    QuadExt<Q>: ArkField,
    Q::Base: MontField,
{
    let small = |v: u64| {
        let mut l = vec![0u64; Q::Base::BYTES / 8];
        l[0] = v;
        Q::Base::from_limbs_checked(&l).expect("small limbs are below p")
    };
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let mut coeffs = vec![Q::Base::ZERO, small(1), small(2), -small(1), -small(2)];
    for _ in 0..4 {
        coeffs.push(Q::Base::random(&mut rng));
    }
    let elems: Vec<QuadExt<Q>> = coeffs
        .iter()
        .flat_map(|&c0| coeffs.iter().map(move |&c1| QuadExt::new(c0, c1)))
        .collect();
    for &x in &elems {
        let ax = x.to_ark();
        assert_eq!(x.square().to_ark(), ark_ff::Field::square(&ax));
        for &y in &elems {
            assert_eq!((x * y).to_ark(), ax * y.to_ark());
        }
    }
}

/// The arkworks cross-checks for the extension `Q` (over a Montgomery field), in
/// module `name`.
#[macro_export]
macro_rules! ark_quad_ext_tests {
    ($name:ident, $q:ty) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $crate::__tests!(
                $crate::ext,
                [$q],
                ops_match_arkworks,
                mul_and_square_at_limb_extremes_match_arkworks,
            );
        }
    };
}
