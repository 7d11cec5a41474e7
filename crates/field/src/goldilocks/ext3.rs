//! The degree-3 extension `F[x]/(x^3 − 7)` of Goldilocks (≈192-bit challenges): 7
//! generates `F*` and `3 | p − 1`, so 7 is not a cube and `x^3 − 7` is irreducible.
//! Sumchecks over it keep 128-bit soundness at the sizes a prover meets (a round's error
//! `d/|F|` with `|F| ≈ 2^192`), which the quadratic extension (`≈ 2^128`) does not.

use core::fmt;
use std::sync::OnceLock;

use num_bigint::BigUint;
use rand_core::RngCore;

use super::Goldilocks;
use crate::traits::{ExtensionField, Field, Legendre, PrimeField};

const W: Goldilocks = Goldilocks(7);

/// `7·a` by additions (cheaper than a product).
#[inline(always)]
fn times_w(a: Goldilocks) -> Goldilocks {
    let a2 = a + a;
    let a4 = a2 + a2;
    a4 + a2 + a
}

/// `Σ x_k·y_k mod p` for three canonical pairs: the 128-bit products summed with a count
/// of the carries past `2^128` (at most two), which are worth `2^128 ≡ −2^32`.
#[inline(always)]
fn sum_of_products(pairs: [(u64, u64); 3]) -> Goldilocks {
    let mut lo = 0u128;
    let mut carries = 0u64;
    for (x, y) in pairs {
        let (s, c) = lo.overflowing_add(x as u128 * y as u128);
        lo = s;
        carries += c as u64;
    }
    Goldilocks::reduce128(lo) - Goldilocks(carries << 32)
}

/// `Σ x_k·y_k` over extension elements, reduced once per coefficient at the end: each
/// pair adds its nine 128-bit products (`7·x_1`, `7·x_2` folded in) to three wide
/// accumulators that count their carries past `2^128`.
pub fn sum_of_ext3_products(
    pairs: impl Iterator<Item = (GoldilocksExt3, GoldilocksExt3)>,
) -> GoldilocksExt3 {
    let mut lo = [0u128; 3];
    let mut carries = [0u64; 3];
    let mut add = |k: usize, x: u64, y: u64| {
        let (s, c) = lo[k].overflowing_add(x as u128 * y as u128);
        lo[k] = s;
        carries[k] += c as u64;
    };
    for (x, y) in pairs {
        let [a0, a1, a2] = x.c.map(|v| v.value());
        let [b0, b1, b2] = y.c.map(|v| v.value());
        let (w1, w2) = (times_w(x.c[1]).value(), times_w(x.c[2]).value());
        add(0, a0, b0);
        add(0, w1, b2);
        add(0, w2, b1);
        add(1, a0, b1);
        add(1, a1, b0);
        add(1, w2, b2);
        add(2, a0, b2);
        add(2, a1, b1);
        add(2, a2, b0);
    }
    let coeff =
        |k: usize| Goldilocks::reduce128(lo[k]) - Goldilocks::reduce128((carries[k] as u128) << 32);
    GoldilocksExt3::new(coeff(0), coeff(1), coeff(2))
}

/// `Σ x_k·b_k` for extension `x_k` and base-field `b_k`, reduced once per coefficient at
/// the end (three 128-bit products per pair instead of three reduced ones).
pub fn sum_of_ext3_base_products(
    pairs: impl Iterator<Item = (GoldilocksExt3, Goldilocks)>,
) -> GoldilocksExt3 {
    let mut lo = [0u128; 3];
    let mut carries = [0u64; 3];
    for (x, b) in pairs {
        let b = b.value() as u128;
        for k in 0..3 {
            let (s, c) = lo[k].overflowing_add(x.c[k].value() as u128 * b);
            lo[k] = s;
            carries[k] += c as u64;
        }
    }
    let coeff =
        |k: usize| Goldilocks::reduce128(lo[k]) - Goldilocks::reduce128((carries[k] as u128) << 32);
    GoldilocksExt3::new(coeff(0), coeff(1), coeff(2))
}

/// `c[0] + c[1]·x + c[2]·x²` with `x^3 = 7`. Transparent, so that eight of them are 24
/// words the packed lanes load and store directly.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct GoldilocksExt3 {
    pub c: [Goldilocks; 3],
}

impl GoldilocksExt3 {
    pub const fn new(c0: Goldilocks, c1: Goldilocks, c2: Goldilocks) -> Self {
        Self { c: [c0, c1, c2] }
    }

    #[inline]
    fn add_impl(&self, r: &Self) -> Self {
        Self::new(self.c[0] + r.c[0], self.c[1] + r.c[1], self.c[2] + r.c[2])
    }
    #[inline]
    fn sub_impl(&self, r: &Self) -> Self {
        Self::new(self.c[0] - r.c[0], self.c[1] - r.c[1], self.c[2] - r.c[2])
    }
    /// Schoolbook with one reduction per coefficient: each is a sum of three 128-bit
    /// products (`7·a_i` folded in first), accumulated with its carries past `2^128`
    /// and reduced once — nine products and three reductions, where Karatsuba's six
    /// products cost six reductions and a dozen modular additions.
    #[inline]
    fn mul_impl(&self, r: &Self) -> Self {
        let [a0, a1, a2] = self.c.map(|x| x.value());
        let [b0, b1, b2] = r.c.map(|x| x.value());
        let (w1, w2) = (times_w(self.c[1]).value(), times_w(self.c[2]).value());
        Self::new(
            sum_of_products([(a0, b0), (w1, b2), (w2, b1)]),
            sum_of_products([(a0, b1), (a1, b0), (w2, b2)]),
            sum_of_products([(a0, b2), (a1, b1), (a2, b0)]),
        )
    }
    #[inline]
    fn neg_impl(&self) -> Self {
        Self::new(-self.c[0], -self.c[1], -self.c[2])
    }

    /// The norm to Goldilocks, `a·σ(a)·σ²(a)`, with the adjugate whose product with `a`
    /// it is.
    fn norm_and_adjugate(&self) -> (Goldilocks, Self) {
        let [a0, a1, a2] = self.c;
        let t0 = a0.square() - W * a1 * a2;
        let t1 = W * a2.square() - a0 * a1;
        let t2 = a1.square() - a0 * a2;
        let norm = a0 * t0 + W * (a2 * t1 + a1 * t2);
        (norm, Self::new(t0, t1, t2))
    }

    /// `p^3 − 1 = 2^32·t`: `(t − 1)/2` and a primitive `2^32`-th root of unity.
    fn sqrt_constants() -> &'static (Vec<u64>, Goldilocks) {
        static C: OnceLock<(Vec<u64>, Goldilocks)> = OnceLock::new();
        C.get_or_init(|| {
            let p = BigUint::from(Goldilocks::MODULUS);
            let t: BigUint = (p.pow(3) - 1u8) >> Goldilocks::TWO_ADICITY;
            let half: BigUint = (t - 1u8) >> 1;
            (half.to_u64_digits(), Goldilocks::two_adic_root_of_unity())
        })
    }
}

impl fmt::Debug for GoldilocksExt3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GoldilocksExt3({}, {}, {})",
            self.c[0], self.c[1], self.c[2]
        )
    }
}

impl fmt::Display for GoldilocksExt3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} + {}·x + {}·x²", self.c[0], self.c[1], self.c[2])
    }
}

crate::ops::field_ops!([] GoldilocksExt3, add_impl, sub_impl, mul_impl, neg_impl);

impl Field for GoldilocksExt3 {
    const ZERO: Self = Self::new(Goldilocks::ZERO, Goldilocks::ZERO, Goldilocks::ZERO);
    const ONE: Self = Self::new(Goldilocks::ONE, Goldilocks::ZERO, Goldilocks::ZERO);

    fn inverse(&self) -> Option<Self> {
        let (norm, adj) = self.norm_and_adjugate();
        let n = norm.inverse()?;
        Some(Self::new(adj.c[0] * n, adj.c[1] * n, adj.c[2] * n))
    }
    fn random<R: RngCore + ?Sized>(rng: &mut R) -> Self {
        Self::new(
            Goldilocks::random(rng),
            Goldilocks::random(rng),
            Goldilocks::random(rng),
        )
    }
    /// Tonelli–Shanks on `p^3 − 1 = 2^32·t`; the `2^32`-th roots of unity lie in the
    /// base field already.
    fn sqrt(&self) -> Option<Self> {
        let (half, root) = Self::sqrt_constants();
        crate::sqrt::tonelli_shanks(self, Goldilocks::TWO_ADICITY, Self::from_base(*root), half)
    }
    /// In an odd-degree extension, `a` is a square iff its norm is.
    fn legendre(&self) -> Legendre {
        self.norm_and_adjugate().0.legendre()
    }
    fn from_u64(v: u64) -> Self {
        Self::from_base(Goldilocks::from_u64(v))
    }
}

impl ExtensionField for GoldilocksExt3 {
    type Base = Goldilocks;
    const DEGREE: usize = 3;
    fn from_base(b: Goldilocks) -> Self {
        Self::new(b, Goldilocks::ZERO, Goldilocks::ZERO)
    }
    fn to_base_coeffs(&self) -> Vec<Goldilocks> {
        self.c.to_vec()
    }
    /// `x^p = 7^((p−1)/3)·x`.
    fn frobenius(&self) -> Self {
        static Z: OnceLock<Goldilocks> = OnceLock::new();
        let z = *Z.get_or_init(|| W.pow_u64((Goldilocks::MODULUS - 1) / 3));
        Self::new(self.c[0], self.c[1] * z, self.c[2] * z.square())
    }
}
