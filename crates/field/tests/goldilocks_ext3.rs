//! The cubic extension of Goldilocks against plain polynomial arithmetic modulo
//! `x^3 − 7` on u128 (an independent reference), plus the field laws, inverses, square
//! roots, the Frobenius map and the irreducibility of `x^3 − 7`.

use fastzk_field::{ExtensionField, Field, Goldilocks, GoldilocksExt3, Legendre};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

const P: u128 = 0xffff_ffff_0000_0001;

fn value(x: Goldilocks) -> u128 {
    x.value() as u128
}

/// `a·b mod (x^3 − 7, p)` on u128 coefficients.
fn reference_mul(a: [u128; 3], b: [u128; 3]) -> [u128; 3] {
    let mut prod = [0u128; 5];
    for i in 0..3 {
        for j in 0..3 {
            prod[i + j] = (prod[i + j] + a[i] * b[j] % P) % P;
        }
    }
    // x^3 = 7, x^4 = 7x.
    [
        (prod[0] + 7 * prod[3]) % P,
        (prod[1] + 7 * prod[4]) % P,
        prod[2],
    ]
}

fn coeffs(x: GoldilocksExt3) -> [u128; 3] {
    x.c.map(value)
}

fn samples(n: usize) -> Vec<GoldilocksExt3> {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let edge = [0u64, 1, 2, 7, (P - 1) as u64, (P - 2) as u64];
    let mut v: Vec<GoldilocksExt3> = (0..n).map(|_| GoldilocksExt3::random(&mut rng)).collect();
    for &a in &edge {
        for &b in &edge {
            let g = |x| Goldilocks::new(x).unwrap();
            v.push(GoldilocksExt3::new(
                g(a),
                g(b),
                g(rng.gen_range(0..P as u64)),
            ));
        }
    }
    v
}

#[test]
fn products_match_the_reference() {
    let s = samples(200);
    for w in s.windows(2) {
        let (a, b) = (w[0], w[1]);
        assert_eq!(
            coeffs(a * b),
            reference_mul(coeffs(a), coeffs(b)),
            "{a:?} {b:?}"
        );
        assert_eq!(coeffs(a.square()), reference_mul(coeffs(a), coeffs(a)));
        let sum = coeffs(a + b);
        let diff = coeffs(a - b);
        for k in 0..3 {
            assert_eq!(sum[k], (coeffs(a)[k] + coeffs(b)[k]) % P);
            assert_eq!(diff[k], (coeffs(a)[k] + P - coeffs(b)[k]) % P);
        }
        assert_eq!(a + (-a), GoldilocksExt3::ZERO);
    }
}

#[test]
fn field_laws_inverses_and_roots() {
    let s = samples(100);
    assert_eq!(GoldilocksExt3::ZERO.inverse(), None);
    for w in s.windows(3) {
        let (a, b, c) = (w[0], w[1], w[2]);
        assert_eq!((a * b) * c, a * (b * c));
        assert_eq!(a * (b + c), a * b + a * c);
        assert_eq!(a * GoldilocksExt3::ONE, a);
        if !a.is_zero() {
            let inv = a.inverse().unwrap();
            assert_eq!(a * inv, GoldilocksExt3::ONE);
        }
        let sq = a.square();
        let r = sq.sqrt().expect("a square has a root");
        assert_eq!(r.square(), sq);
        if !a.is_zero() {
            assert_eq!(sq.legendre(), Legendre::QuadraticResidue);
        }
    }
    // A non-residue times a non-zero square is a non-residue, and has no root.
    let n = GoldilocksExt3::from_u64(7);
    assert_eq!(n.legendre(), Legendre::QuadraticNonResidue);
    for a in s.iter().filter(|a| !a.is_zero()).take(20) {
        let x = n * a.square();
        assert_eq!(x.legendre(), Legendre::QuadraticNonResidue);
        assert_eq!(x.sqrt(), None);
    }
}

#[test]
fn frobenius_and_irreducibility() {
    // 7 is not a cube mod p, so x^3 − 7 has no root and is irreducible.
    let seven = Goldilocks::from_u64(7);
    assert_ne!(seven.pow_u64(((P - 1) / 3) as u64), Goldilocks::ONE);
    let p = [P as u64];
    for a in samples(20) {
        assert_eq!(a.frobenius(), a.pow(&p));
        assert_eq!(a.frobenius().frobenius().frobenius(), a);
    }
    let g = Goldilocks::from_u64(5);
    assert_eq!(
        GoldilocksExt3::from_base(g).frobenius(),
        GoldilocksExt3::from_base(g)
    );
    assert_eq!(
        GoldilocksExt3::from_base(g).to_base_coeffs(),
        vec![g, Goldilocks::ZERO, Goldilocks::ZERO]
    );
}

/// Every coefficient at or near `p − 1`: the products' sums carry past `2^128` (twice at
/// most), which the one-reduction product must fold back.
#[test]
fn products_with_maximal_coefficients_match_the_reference() {
    let g = |x: u128| Goldilocks::new(x as u64).unwrap();
    let big = [P - 1, P - 2, P - 1 - (1 << 32), 1 << 63, 0, 1];
    for &a0 in &big {
        for &a1 in &big {
            for &b in &big {
                let a = GoldilocksExt3::new(g(a0), g(a1), g(P - 1));
                let b = GoldilocksExt3::new(g(b), g(P - 1), g(P - 1));
                assert_eq!(coeffs(a * b), reference_mul(coeffs(a), coeffs(b)));
                assert_eq!(coeffs(b * b), reference_mul(coeffs(b), coeffs(b)));
            }
        }
    }
}

/// The once-reduced sum of products against products summed one by one, over random
/// and maximal coefficients (many carries), and the empty sum.
#[test]
fn sums_of_products_match_the_products_summed() {
    use fastzk_field::sum_of_ext3_products;
    let s = samples(300);
    let pairs: Vec<_> = s.windows(2).map(|w| (w[0], w[1])).collect();
    let naive: GoldilocksExt3 = pairs.iter().map(|(a, b)| *a * *b).sum();
    assert_eq!(sum_of_ext3_products(pairs.iter().copied()), naive);
    let m = |x: u128| Goldilocks::new(x as u64).unwrap();
    let max = GoldilocksExt3::new(m(P - 1), m(P - 1), m(P - 1));
    let many = vec![(max, max); 10_000];
    assert_eq!(
        sum_of_ext3_products(many.iter().copied()),
        many.iter().map(|(a, b)| *a * *b).sum()
    );
    assert_eq!(
        sum_of_ext3_products(std::iter::empty()),
        GoldilocksExt3::ZERO
    );
}

/// The once-reduced sum of extension-by-base products against the products summed one
/// by one: random, maximal coefficients and p − 1 factors (many carries), zero, empty.
#[test]
fn sums_of_base_products_match_the_products_summed() {
    use fastzk_field::sum_of_ext3_base_products;
    let s = samples(300);
    let pairs: Vec<_> = s.windows(2).map(|w| (w[0], w[1].c[1])).collect();
    let naive: GoldilocksExt3 = pairs
        .iter()
        .map(|(a, b)| *a * GoldilocksExt3::from_base(*b))
        .sum();
    assert_eq!(sum_of_ext3_base_products(pairs.iter().copied()), naive);
    let m = |x: u128| Goldilocks::new(x as u64).unwrap();
    let max = GoldilocksExt3::new(m(P - 1), m(P - 1), m(P - 1));
    for b in [m(P - 1), Goldilocks::ZERO, Goldilocks::ONE] {
        let many = vec![(max, b); 100_000];
        assert_eq!(
            sum_of_ext3_base_products(many.iter().copied()),
            many.iter()
                .map(|(a, b)| *a * GoldilocksExt3::from_base(*b))
                .sum()
        );
    }
    assert_eq!(
        sum_of_ext3_base_products(std::iter::empty()),
        GoldilocksExt3::ZERO
    );
}
