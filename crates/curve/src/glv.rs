//! The GLV endomorphism `φ(x, y) = (β·x, y) = [λ]P` on `a = 0` curves over fields with a
//! cube root of unity β (`p ≡ 1 (mod 3)`; G2's β lies in `Fq`), and the lattice
//! decomposition `k ≡ k1 + k2·λ (mod r)` with `|k1|, |k2| ≈ √r`, which halves the
//! doublings of a scalar multiplication.
//!
//! The constants are derived (once per curve, cached by the config) rather than
//! hard-coded: β and λ are cube roots of unity paired by checking `φ(G) = [λ]G`, and
//! the short basis comes from the extended Euclidean algorithm on `(r, λ)`.

use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::{One, Signed, Zero};

use fastzk_field::{Field, PrimeField};

use crate::affine::Affine;
use crate::config::CurveConfig;
use crate::jacobian::Jacobian;
use crate::scalar_mul::mul_wnaf;

/// GLV data for one curve.
#[derive(Clone, Debug)]
pub struct Glv<C: CurveConfig> {
    /// Primitive cube root of unity in the base field.
    pub beta: C::Base,
    /// The eigenvalue of `φ` on the order-`r` subgroup (a cube root of unity mod `r`).
    pub lambda: BigUint,
    /// Short lattice vectors `(a, b)` with `a + b·λ ≡ 0 (mod r)`.
    pub v1: (BigInt, BigInt),
    pub v2: (BigInt, BigInt),
    det: BigInt,
    r: BigInt,
}

/// `n / d` rounded to the nearest integer (ties toward +∞).
fn div_round(n: &BigInt, d: &BigInt) -> BigInt {
    let (n, d) = if d.is_negative() {
        (-n, -d)
    } else {
        (n.clone(), d.clone())
    };
    (n * 2u32 + &d).div_floor(&(d * 2u32))
}

fn sign_magnitude(v: &BigInt) -> (bool, Vec<u64>) {
    (v.sign() == Sign::Minus, v.magnitude().to_u64_digits())
}

impl<C: CurveConfig> Glv<C> {
    /// `φ(P) = (β·x, y)`.
    pub fn endomorphism(&self, p: &Affine<C>) -> Affine<C> {
        if p.infinity {
            *p
        } else {
            Affine::new_unchecked(p.x * self.beta, p.y)
        }
    }

    /// Splits `k` (any little-endian integer; reduced mod `r` first) into
    /// `(k1, k2)` as (is_negative, magnitude limbs) with `k ≡ k1 + k2·λ (mod r)`.
    #[allow(clippy::type_complexity)]
    pub fn decompose(&self, k: &[u64]) -> ((bool, Vec<u64>), (bool, Vec<u64>)) {
        let k = BigInt::from_biguint(Sign::Plus, BigUint::from_slice(&to_u32_digits(k))) % &self.r;
        let (a1, b1) = &self.v1;
        let (a2, b2) = &self.v2;
        let c1 = div_round(&(&k * b2), &self.det);
        let c2 = div_round(&(-(&k * b1)), &self.det);
        let k1 = &k - &c1 * a1 - &c2 * a2;
        let k2 = -(&c1 * b1) - &c2 * b2;
        (sign_magnitude(&k1), sign_magnitude(&k2))
    }

    /// Derives β, λ and the short basis; `None` if the curve has no such endomorphism
    /// (base field without cube roots of unity, or no pairing of β with λ found).
    pub fn derive() -> Option<Self>
    where
        C::Base: PrimeField,
    {
        Self::derive_over::<C::Base>(|b| b)
    }

    /// The same for coordinates in an extension of the prime field `F` (G2 over `Fq2`):
    /// β is a cube root of unity of `F`, `embed`ded. On the sextic twists of BN254 and
    /// BLS12-381 (`j = 0`) `(x, y) ↦ (β·x, y)` is an automorphism, and on the cyclic
    /// order-`r` group it is multiplication by a cube root of unity `λ` mod `r`; which of
    /// the two is checked on the generator, as for G1.
    pub fn derive_over<F: PrimeField>(embed: fn(F) -> C::Base) -> Option<Self> {
        let beta = embed(primitive_cube_root::<F>()?);
        let lam1 = primitive_cube_root::<C::Scalar>()?;
        let lam2 = lam1.square();
        let g = Jacobian::<C>::generator();
        let phi_g = Jacobian::from(Affine::<C>::new_unchecked(
            C::GENERATOR_X * beta,
            C::GENERATOR_Y,
        ));
        let lambda = [lam1, lam2].into_iter().find(|lam| {
            let limbs = to_u64_limbs(&lam.to_biguint());
            mul_wnaf(&g, &limbs) == phi_g
        })?;
        let lambda = lambda.to_biguint();
        let r = C::Scalar::modulus();
        let (v1, v2) = short_basis(&BigInt::from(r.clone()), &BigInt::from(lambda.clone()))?;
        let det = &v1.0 * &v2.1 - &v2.0 * &v1.1;
        if det.is_zero() {
            return None;
        }
        Some(Self {
            beta,
            lambda,
            v1,
            v2,
            det,
            r: BigInt::from(r),
        })
    }
}

fn to_u64_limbs(v: &BigUint) -> Vec<u64> {
    v.to_u64_digits()
}

fn to_u32_digits(k: &[u64]) -> Vec<u32> {
    k.iter()
        .flat_map(|&l| [l as u32, (l >> 32) as u32])
        .collect()
}

/// A primitive cube root of unity `g^((p−1)/3)` for the first small `g` giving one.
fn primitive_cube_root<F: PrimeField>() -> Option<F> {
    let p = F::modulus();
    let pm1: BigUint = &p - 1u32;
    if !(&pm1 % 3u32).is_zero() {
        return None;
    }
    let exp = to_u64_limbs(&(pm1 / 3u32));
    (2u64..64)
        .map(|g| F::from_u64(g).pow(&exp))
        .find(|w| !w.is_one())
}

/// Short basis of `{(a, b) : a + b·λ ≡ 0 (mod r)}` from the extended Euclidean
/// algorithm (Gallant–Lambert–Vanstone, section 4): with remainders `r_i = s_i·r + t_i·λ`
/// and `m` the last index with `r_m ≥ √r`, take `(r_{m+1}, −t_{m+1})` and the shorter of
/// `(r_m, −t_m)`, `(r_{m+2}, −t_{m+2})`.
#[allow(clippy::type_complexity)]
fn short_basis(r: &BigInt, lambda: &BigInt) -> Option<((BigInt, BigInt), (BigInt, BigInt))> {
    let sqrt_r = r.sqrt();
    let mut rs = vec![r.clone(), lambda.clone()];
    let mut ts = vec![BigInt::zero(), BigInt::one()];
    while !rs[rs.len() - 1].is_zero() {
        let n = rs.len();
        let q = &rs[n - 2] / &rs[n - 1];
        let next_r = &rs[n - 2] - &q * &rs[n - 1];
        let next_t = &ts[n - 2] - &q * &ts[n - 1];
        rs.push(next_r);
        ts.push(next_t);
    }
    let m = rs.iter().rposition(|x| *x >= sqrt_r)?;
    if m + 2 >= rs.len() {
        return None;
    }
    let vec_at = |i: usize| (rs[i].clone(), -ts[i].clone());
    let norm = |v: &(BigInt, BigInt)| &v.0 * &v.0 + &v.1 * &v.1;
    let v1 = vec_at(m + 1);
    let (cand_a, cand_b) = (vec_at(m), vec_at(m + 2));
    let v2 = if norm(&cand_a) <= norm(&cand_b) {
        cand_a
    } else {
        cand_b
    };
    for v in [&v1, &v2] {
        if !((&v.0 + &v.1 * lambda) % r).is_zero() {
            return None;
        }
    }
    Some((v1, v2))
}
