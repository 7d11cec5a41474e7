//! Polynomial operations and Reed–Solomon encoding, and BN254 NTTs against ark-poly.

use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use fastzk_field::{bn254, Field, Goldilocks, PrimeField};
use fastzk_poly::{
    barycentric_evaluate, divide_by_vanishing_on_coset, interpolate, DensePolynomial, NaiveDft,
    Order, PolyError, Radix2Domain, ReedSolomon, Subgroup, Transform, TwoAdicTransform,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

type Fr = bn254::Fr;

fn rand_poly<F: fastzk_field::NttField>(rng: &mut ChaCha20Rng, len: usize) -> DensePolynomial<F> {
    DensePolynomial::new((0..len).map(|_| F::random(rng)).collect())
}

fn schoolbook<F: PrimeField>(a: &[F], b: &[F]) -> Vec<F> {
    if a.is_empty() || b.is_empty() {
        return vec![];
    }
    let mut c = vec![F::ZERO; a.len() + b.len() - 1];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            c[i + j] += x * y;
        }
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
    #[test]
    fn multiplication_matches_schoolbook(la in 0usize..300, lb in 0usize..300, seed: u64) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let a: DensePolynomial<Fr> = rand_poly(&mut rng, la);
        let b: DensePolynomial<Fr> = rand_poly(&mut rng, lb);
        let want = DensePolynomial::new(schoolbook(a.coeffs(), b.coeffs()));
        prop_assert_eq!(a.mul(&b).unwrap(), want);
        let ag: DensePolynomial<Goldilocks> = rand_poly(&mut rng, la);
        let bg: DensePolynomial<Goldilocks> = rand_poly(&mut rng, lb);
        prop_assert_eq!(ag.mul(&bg).unwrap(), DensePolynomial::new(schoolbook(ag.coeffs(), bg.coeffs())));
    }

    #[test]
    fn interpolation_and_evaluation_agree(n in 1usize..40, seed: u64) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let xs: Vec<Fr> = (0..n).map(|_| Fr::random(&mut rng)).collect();
        let ys: Vec<Fr> = (0..n).map(|_| Fr::random(&mut rng)).collect();
        let p = interpolate(&xs, &ys).unwrap();
        prop_assert!(p.degree().is_none_or(|d| d < n));
        for (x, y) in xs.iter().zip(&ys) {
            prop_assert_eq!(p.evaluate(*x), *y);
        }
    }

    #[test]
    fn barycentric_and_lagrange_match_evaluation(log_n in 0u32..9, seed: u64) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let d = Radix2Domain::<Fr>::new(log_n).unwrap();
        let p: DensePolynomial<Fr> = rand_poly(&mut rng, d.size());
        let evals = p.evaluate_over_domain(&d).unwrap();
        let x = Fr::random(&mut rng);
        prop_assert_eq!(barycentric_evaluate(&d, &evals, x).unwrap(), p.evaluate(x));
        let l = d.lagrange_coefficients(x);
        let via_basis: Fr = l.iter().zip(&evals).map(|(a, b)| *a * *b).sum();
        prop_assert_eq!(via_basis, p.evaluate(x));
        prop_assert_eq!(l.iter().copied().sum::<Fr>(), Fr::ONE);
        // Inside the domain: the unit vector and the stored value.
        let j = d.size() / 2;
        let w = d.element(j);
        prop_assert_eq!(barycentric_evaluate(&d, &evals, w).unwrap(), evals[j]);
        let u = d.lagrange_coefficients(w);
        let unit = u.iter().enumerate().all(|(i, v)| *v == if i == j { Fr::ONE } else { Fr::ZERO });
        prop_assert!(unit);
        prop_assert_eq!(DensePolynomial::from_evaluations(&evals, &d).unwrap(), p);
    }
}

/// Groth16-style quotient: `(Z_H·Q + R)` with `deg R < n` evaluated on a coset of size 2n,
/// minus the remainder's evaluations, divided by `Z_H` on the coset, gives `Q`.
#[test]
fn division_by_vanishing_on_coset() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for (log_n, log_big) in [(3u32, 3u32), (4, 5), (6, 8), (10, 11)] {
        let n = 1usize << log_n;
        let big = Radix2Domain::<Fr>::new(log_big).unwrap();
        let q: DensePolynomial<Fr> = rand_poly(&mut rng, big.size() - n);
        // Z_H · q.
        let mut zq = vec![Fr::ZERO; big.size()];
        for (i, &c) in q.coeffs().iter().enumerate() {
            zq[i + n] += c;
            zq[i] -= c;
        }
        let zq_poly = DensePolynomial::new(zq.clone());
        let (q2, r2) = zq_poly.divide_by_vanishing(n).unwrap();
        assert_eq!(q2, q);
        assert!(r2.is_zero());
        big.coset_fft_in_place(&mut zq).unwrap();
        divide_by_vanishing_on_coset(&mut zq, &big, log_n).unwrap();
        big.coset_ifft_in_place(&mut zq).unwrap();
        assert_eq!(DensePolynomial::new(zq), q);
    }
    let big = Radix2Domain::<Fr>::new(4).unwrap();
    let mut short = vec![Fr::ONE; 8];
    assert!(divide_by_vanishing_on_coset(&mut short, &big, 3).is_err());
    let mut v = vec![Fr::ONE; 16];
    assert!(divide_by_vanishing_on_coset(&mut v, &big, 5).is_err());
    // A shift inside the subgroup is refused up front (the division would hit zero).
    let d = Radix2Domain::<Fr>::new(3).unwrap();
    assert_eq!(
        Radix2Domain::<Fr>::new(4)
            .unwrap()
            .with_coset(d.generator())
            .unwrap_err(),
        PolyError::BadCoset
    );
}

#[test]
fn reed_solomon_rate_quarter() {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let rs = ReedSolomon::rate_quarter();
    for log_n in [0u32, 1, 4, 9] {
        let msg: Vec<Goldilocks> = (0..1 << log_n)
            .map(|_| Goldilocks::random(&mut rng))
            .collect();
        let cw = rs.encode(&msg).unwrap();
        assert_eq!(cw.len(), 4 << log_n);
        let mut padded = msg.clone();
        padded.resize(cw.len(), Goldilocks::ZERO);
        assert_eq!(cw, naive_dft(&padded, Goldilocks::ONE));
        // Batches agree with single rows; bit-reversed output is a permutation.
        let rows: Vec<Goldilocks> = (0..3 << log_n)
            .map(|_| Goldilocks::random(&mut rng))
            .collect();
        let enc = rs.encode_batch(&rows, 1 << log_n).unwrap();
        for (r, row) in rows.chunks(1 << log_n).enumerate() {
            assert_eq!(
                enc[r * cw.len()..(r + 1) * cw.len()],
                rs.encode(row).unwrap()
            );
        }
        let br = ReedSolomon {
            log_blowup: 2,
            output: Order::BitReversed,
        }
        .encode(&msg)
        .unwrap();
        let k = cw.len().trailing_zeros();
        for (i, v) in br.iter().enumerate() {
            assert_eq!(*v, cw[i.reverse_bits() >> (usize::BITS - k)]);
        }
    }
    assert!(matches!(
        rs.encode(&[Goldilocks::ONE; 3]),
        Err(PolyError::NotPowerOfTwo(3))
    ));
    assert!(rs.encode_batch(&[Goldilocks::ONE; 6], 4).is_err());
    assert!(ReedSolomon {
        log_blowup: 40,
        output: Order::Natural
    }
    .encode(&[Goldilocks::ONE])
    .is_err());
}

#[test]
fn bn254_matches_ark_poly() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    for log_n in (0u32..=12).chain([15]) {
        let n = 1usize << log_n;
        let d = Radix2Domain::<Fr>::new(log_n).unwrap();
        let ad = Radix2EvaluationDomain::<ark_bn254::Fr>::new(n).unwrap();
        assert_eq!(ark_bn254::Fr::from(d.generator()), ad.group_gen());
        let a: Vec<Fr> = (0..n).map(|_| Fr::random(&mut rng)).collect();
        let to_ark = |v: &[Fr]| {
            v.iter()
                .map(|&x| ark_bn254::Fr::from(x))
                .collect::<Vec<_>>()
        };
        let mut ours = a.clone();
        let mut theirs = to_ark(&a);
        d.fft_in_place(&mut ours).unwrap();
        ad.fft_in_place(&mut theirs);
        assert_eq!(to_ark(&ours), theirs, "fft 2^{log_n}");
        d.ifft_in_place(&mut ours).unwrap();
        ad.ifft_in_place(&mut theirs);
        assert_eq!(to_ark(&ours), theirs, "ifft 2^{log_n}");
        let cd = ad.get_coset(ark_bn254::Fr::from(d.coset_shift())).unwrap();
        d.coset_fft_in_place(&mut ours).unwrap();
        cd.fft_in_place(&mut theirs);
        assert_eq!(to_ark(&ours), theirs, "coset fft 2^{log_n}");
        d.coset_ifft_in_place(&mut ours).unwrap();
        cd.ifft_in_place(&mut theirs);
        assert_eq!(to_ark(&ours), theirs, "coset ifft 2^{log_n}");
        assert_eq!(to_ark(&ours), to_ark(&a));
    }
}

#[test]
fn small_polynomial_facts() {
    let p = DensePolynomial::new(vec![Fr::ONE, Fr::from_u64(2), Fr::ZERO, Fr::ZERO]);
    assert_eq!(p.degree(), Some(1));
    assert_eq!(p.evaluate(Fr::from_u64(10)), Fr::from_u64(21));
    assert!(DensePolynomial::<Fr>::new(vec![Fr::ZERO]).is_zero());
    assert_eq!(p.sub(&p), DensePolynomial::zero());
    assert_eq!(p.add(&p).evaluate(Fr::ONE), Fr::from_u64(6));
    assert!(matches!(
        interpolate(&[Fr::ONE, Fr::ONE], &[Fr::ONE, Fr::ZERO]),
        Err(PolyError::DuplicatePoint)
    ));
    assert!(interpolate(&[Fr::ONE], &[]).is_err());
    assert!(p.divide_by_vanishing(0).is_err());
    // Long polynomial: parallel Horner equals plain Horner.
    let mut rng = ChaCha20Rng::seed_from_u64(6);
    let long: DensePolynomial<Goldilocks> = rand_poly(&mut rng, 100_000);
    let x = Goldilocks::random(&mut rng);
    let plain = long
        .coeffs()
        .iter()
        .rev()
        .fold(Goldilocks::ZERO, |acc, &c| acc * x + c);
    assert_eq!(long.evaluate(x), plain);
}

/// The naive DFT of `a` on the coset `shift·H` (`H` of size `a.len()`).
fn naive_dft<F: fastzk_field::NttField>(a: &[F], shift: F) -> Vec<F> {
    let sub = Subgroup::<F>::new(a.len().trailing_zeros()).unwrap();
    let (sub, kind) = if shift == F::ONE {
        (sub, Transform::Forward)
    } else {
        (sub.with_coset(shift).unwrap(), Transform::CosetForward)
    };
    let mut x = a.to_vec();
    NaiveDft::on(sub)
        .apply(kind, &mut x, Order::Natural, Order::Natural)
        .unwrap();
    x
}
