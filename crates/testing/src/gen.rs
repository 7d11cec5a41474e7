//! Input generators every suite shares: seeded RNGs, field values biased to the edges,
//! subgroup points, the MSM input shapes that break engines, bit-reversed orders.

use fastzk_curve::{random_points, Affine};
use fastzk_field::{Field, PrimeField};
use fastzk_msm::MsmCurve;
use fastzk_poly::{reverse_bits, Order};
use num_bigint::BigUint;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// The suites' RNG: deterministic in the seed.
pub fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// `0, 1, 2, p − 2, p − 1, ⌊p/2⌋`: where carries, borrows and reductions go wrong.
pub fn edge_integers(p: &BigUint) -> Vec<BigUint> {
    vec![
        BigUint::from(0u32),
        BigUint::from(1u32),
        BigUint::from(2u32),
        p - 2u32,
        p - 1u32,
        p >> 1,
    ]
}

/// Integers below `bound`, the edges (and the multiples of `p` around them) drawn often.
pub fn below(p: BigUint, bound: BigUint) -> impl Strategy<Value = BigUint> {
    let mut edges = edge_integers(&p);
    edges.push(&bound - 1u32);
    let mut k = p.clone();
    while k < bound {
        edges.push(&k - 1u32);
        edges.push(k.clone());
        k += &p;
    }
    edges.retain(|e| e < &bound);
    let bytes = (bound.bits() as usize).div_ceil(8) + 16;
    prop_oneof![
        1 => proptest::sample::select(edges),
        4 => proptest::collection::vec(any::<u8>(), bytes)
            .prop_map(move |b| BigUint::from_bytes_le(&b) % &bound),
    ]
}

/// Canonical values of `F` as integers, the edges drawn often.
pub fn element<F: PrimeField>() -> impl Strategy<Value = BigUint> {
    below(F::modulus(), F::modulus())
}

/// `F` from an integer below its modulus.
pub fn from_big<F: PrimeField>(v: &BigUint) -> F {
    F::from_biguint(v).expect("test value below p")
}

/// Elements with small-limb edges: `0, 1, −1, −2, 2, 2^52` (IFMA limb boundary).
pub fn edge_elements<F: Field>() -> Vec<F> {
    vec![
        F::ZERO,
        F::ONE,
        -F::ONE,
        -F::ONE - F::ONE,
        F::ONE + F::ONE,
        F::from_u64(1u64 << 52),
    ]
}

/// `n` elements, every fifth one an edge value.
pub fn elements<F: Field>(rng: &mut ChaCha20Rng, n: usize) -> Vec<F> {
    let edges = edge_elements::<F>();
    (0..n)
        .map(|i| {
            if i % 5 == 0 {
                edges[rng.gen_range(0..edges.len())]
            } else {
                F::random(rng)
            }
        })
        .collect()
}

/// `n` distinct subgroup points, deterministic in `seed`.
pub fn points<C: MsmCurve>(n: usize, seed: u64) -> Vec<Affine<C>> {
    random_points(n, seed)
}

/// A uniformly random point of the whole curve `E(Base)`, *not* cofactor-cleared: random
/// `x` until `x³ + b` is a square, random sign of `y`.
pub fn on_curve<C: fastzk_curve::CurveConfig>(rng: &mut ChaCha20Rng) -> Affine<C> {
    loop {
        let x = C::Base::random(rng);
        let rhs = x.square() * x + C::COEFF_B;
        if let Some(y) = rhs.sqrt().filter(|y| y.square() == rhs) {
            let y = if rng.gen::<bool>() { -y } else { y };
            return Affine::new_unchecked(x, y);
        }
    }
}

/// The MSM input shapes that break engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsmInput {
    /// Uniform scalars.
    Random,
    /// 32 distinct scalar values (the grouping path).
    Clustered,
    /// Every scalar zero.
    Zero,
    /// Every scalar one.
    One,
    /// One point and its negation repeated, random and small scalars.
    DuplicatePoints,
    /// Every scalar the same random value.
    EqualScalars,
    /// A circom witness: zeros, ones, small values, full-size ones.
    Witness,
    /// Random scalars, every fifth point the identity.
    WithIdentities,
    /// Every scalar `r − 1`.
    MinusOne,
}

impl MsmInput {
    pub const ALL: [MsmInput; 9] = [
        MsmInput::Random,
        MsmInput::Clustered,
        MsmInput::Zero,
        MsmInput::One,
        MsmInput::DuplicatePoints,
        MsmInput::EqualScalars,
        MsmInput::Witness,
        MsmInput::WithIdentities,
        MsmInput::MinusOne,
    ];
}

/// Points and scalars of the shape `kind`, `n` of each.
pub fn msm_input<C: MsmCurve>(
    kind: MsmInput,
    n: usize,
    rng: &mut ChaCha20Rng,
) -> (Vec<Affine<C>>, Vec<C::Scalar>) {
    let mut pts = points::<C>(n, rng.gen());
    let random = |rng: &mut ChaCha20Rng| <C::Scalar as Field>::random(rng);
    let ks: Vec<C::Scalar> = match kind {
        MsmInput::Random | MsmInput::WithIdentities => (0..n).map(|_| random(rng)).collect(),
        MsmInput::Clustered => {
            let vals: Vec<C::Scalar> = (0..32).map(|_| random(rng)).collect();
            (0..n).map(|_| vals[rng.gen_range(0..32)]).collect()
        }
        MsmInput::Zero => vec![C::Scalar::ZERO; n],
        MsmInput::One => vec![C::Scalar::ONE; n],
        MsmInput::DuplicatePoints => {
            if let Some(&p) = pts.first() {
                for (i, q) in pts.iter_mut().enumerate() {
                    *q = if i % 3 == 0 { -p } else { p };
                }
            }
            (0..n)
                .map(|i| {
                    if i % 2 == 0 {
                        random(rng)
                    } else {
                        C::Scalar::from_u64(7)
                    }
                })
                .collect()
        }
        MsmInput::EqualScalars => vec![random(rng); n],
        MsmInput::Witness => (0..n)
            .map(|_| match rng.gen_range(0..6) {
                0 | 1 => C::Scalar::ZERO,
                2 => C::Scalar::ONE,
                3 => C::Scalar::from_u64(rng.gen_range(0..1000)),
                4 => C::Scalar::from_u64(rng.gen()),
                _ => random(rng),
            })
            .collect(),
        MsmInput::MinusOne => vec![-C::Scalar::ONE; n],
    };
    if kind == MsmInput::WithIdentities {
        for q in pts.iter_mut().step_by(5) {
            *q = Affine::identity();
        }
    }
    (pts, ks)
}

/// Small random MSM inputs mixing every shape per entry: repeated, negated and identity
/// points; zero, one, small, shared, `r − 1` and random scalars.
pub fn mixed_msm_input<C: MsmCurve>(n: usize, seed: u64) -> (Vec<Affine<C>>, Vec<C::Scalar>) {
    let mut rng = rng(seed);
    let mut pts = points::<C>(n, rng.gen());
    for i in 1..n {
        match rng.gen_range(0..10) {
            0 => pts[i] = pts[i - 1],
            1 => pts[i] = -pts[i - 1],
            2 => pts[i] = Affine::identity(),
            _ => {}
        }
    }
    let shared = C::Scalar::random(&mut rng);
    let ks = (0..n)
        .map(|_| match rng.gen_range(0..6) {
            0 => C::Scalar::ZERO,
            1 => C::Scalar::ONE,
            2 => C::Scalar::from_u64(rng.gen_range(0..1 << 20)),
            3 => shared,
            4 => -C::Scalar::ONE,
            _ => C::Scalar::random(&mut rng),
        })
        .collect();
    (pts, ks)
}

/// `v` (length a power of two) in the given order.
pub fn arrange<T: Copy>(v: &[T], order: Order) -> Vec<T> {
    match order {
        Order::Natural => v.to_vec(),
        Order::BitReversed => {
            let k = v.len().trailing_zeros();
            (0..v.len()).map(|i| v[reverse_bits(i, k)]).collect()
        }
    }
}
