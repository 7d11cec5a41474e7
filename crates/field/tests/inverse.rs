//! The divsteps inversion (`Field::inverse` on Montgomery fields) against the binary
//! extended Euclid it replaced, on random elements and on the edge cases of both
//! algorithms (zero, one, p − 1, powers of two with long runs of zero bits, the
//! Montgomery limbs 1 and p − 1, values just below a limb boundary).

use fastzk_field::{bls12_381, bn254, Field, Fp, MontConfig};
use rand::SeedableRng;

fn edge_cases<P: MontConfig<N>, const N: usize>() -> Vec<Fp<P, N>> {
    let mut v = vec![
        Fp::<P, N>::ONE,
        -Fp::<P, N>::ONE,
        Fp::from_u64(2),
        Fp::from_u64(3),
    ];
    let mut p_minus = P::MODULUS;
    p_minus[0] -= 1;
    for limbs in [[0u64; N], p_minus] {
        let mut l = limbs;
        if l == [0u64; N] {
            l[0] = 1;
        }
        v.push(Fp::from_montgomery_limbs(l).unwrap());
    }
    // Powers of two as Montgomery limbs (runs of zero bits for the divsteps' shifts) and
    // all-ones words (limb boundaries of the 62-bit representation).
    let bits = 64 * N as u32 - P::MODULUS[N - 1].leading_zeros();
    for k in 0..bits - 1 {
        let mut l = [0u64; N];
        l[(k / 64) as usize] = 1 << (k % 64);
        v.push(Fp::from_montgomery_limbs(l).unwrap());
        let mut ones = [0u64; N];
        for (i, w) in ones.iter_mut().enumerate() {
            let lo = 64 * i as u32;
            if k >= lo {
                *w = if k - lo >= 64 {
                    u64::MAX
                } else {
                    (1u64 << (k - lo)) - 1
                };
            }
        }
        if ones != [0u64; N] {
            v.push(Fp::from_montgomery_limbs(ones).unwrap());
        }
    }
    v
}

fn check<P: MontConfig<N>, const N: usize>(seed: u64) {
    assert_eq!(Fp::<P, N>::ZERO.inverse(), None);
    assert_eq!(Fp::<P, N>::ZERO.inverse_binary(), None);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let random = (0..3000).map(|_| Fp::<P, N>::random(&mut rng));
    for x in edge_cases::<P, N>().into_iter().chain(random) {
        let inv = x.inverse().expect("nonzero");
        assert_eq!(Some(inv), x.inverse_binary(), "inverse of {x:?}");
        assert_eq!(inv * x, Fp::ONE, "x·x⁻¹ for {x:?}");
    }
}

#[test]
fn divsteps_matches_binary_euclid_bn254_fr() {
    check::<bn254::FrConfig, 4>(1);
}

#[test]
fn divsteps_matches_binary_euclid_bn254_fq() {
    check::<bn254::FqConfig, 4>(2);
}

#[test]
fn divsteps_matches_binary_euclid_bls12_381_fr() {
    check::<bls12_381::FrConfig, 4>(3);
}

#[test]
fn divsteps_matches_binary_euclid_bls12_381_fq() {
    check::<bls12_381::FqConfig, 6>(4);
}
