//! The eight-lane IFMA arithmetic, lane by lane against the scalar field.
#![cfg(target_arch = "x86_64")]

use fastzk_field::ifma::{self, IfmaField, Lanes, VecModulus};
use fastzk_field::{bls12_381, bn254, Field};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const CASES: usize = 2000;

fn edge<F: Field>() -> Vec<F> {
    vec![
        F::ZERO,
        F::ONE,
        -F::ONE,
        -F::ONE - F::ONE,
        F::ONE + F::ONE,
        F::from_u64(1u64 << 52),
    ]
}

/// Random elements with the edge values mixed in, eight at a time.
fn octets<F: Field>(rng: &mut ChaCha20Rng) -> Vec<[F; 8]> {
    let edges = edge::<F>();
    let mut out = Vec::new();
    for c in 0..CASES {
        out.push(core::array::from_fn(|lane| {
            if (c + lane) % 5 == 0 {
                edges[(c / 5 + lane) % edges.len()]
            } else {
                F::random(&mut *rng)
            }
        }));
    }
    // Every pair of edge values in the same case.
    for a in &edges {
        for b in &edges {
            out.push([*a, *b, *a, *b, *b, *a, *a, *b]);
        }
    }
    out
}

fn check_field<F: IfmaField<W, L>, const W: usize, const L: usize>(seed: u64) {
    if !ifma::is_supported() {
        eprintln!("skipped: this CPU has no AVX-512 IFMA");
        return;
    }
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let xs = octets::<F>(&mut rng);
    let ys = octets::<F>(&mut rng);
    unsafe {
        let m = VecModulus::<L>::new(&F::IFMA);
        let to = |v: &[F; 8]| -> Lanes<L> { ifma::load::<F, W, L>(&v.map(|e| e.to_ifma())) };
        let back =
            |v: &Lanes<L>| -> [F; 8] { ifma::store::<F, W, L>(v, &m).map(|e| e.from_ifma()) };
        for (x, y) in xs.iter().zip(ys.iter()) {
            let (vx, vy) = (to(x), to(y));
            // Raw load/store round trip keeps the limbs.
            assert_eq!(ifma::store::<F, W, L>(&ifma::load::<F, W, L>(x), &m), *x);
            let prod = back(&ifma::mul(&vx, &vy, &m));
            let sq = back(&ifma::square(&vx, &m));
            let sum = back(&ifma::add(&vx, &vy));
            let diff = back(&ifma::sub(&vx, &vy, &m.p));
            // Lazy inputs: values in [p, 4p) must multiply the same.
            let lazy_x = ifma::add(&ifma::add(&vx, &m.p), &m.two_p);
            let lazy_y = ifma::add(&vy, &m.p);
            let lazy = back(&ifma::mul(&lazy_x, &lazy_y, &m));
            let lazy_sq = back(&ifma::square(&lazy_x, &m));
            let lazy_diff = back(&ifma::sub(&lazy_x, &vy, &m.p));
            let eq = ifma::eq_words::<W>(
                &ifma::join::<W, L>(&ifma::canonicalize(&vx, &m)),
                &ifma::join::<W, L>(&ifma::canonicalize(&vy, &m)),
            );
            for lane in 0..8 {
                let (a, b) = (x[lane], y[lane]);
                assert_eq!(prod[lane], a * b, "mul lane {lane}: {a:?} * {b:?}");
                assert_eq!(sq[lane], a.square(), "square lane {lane}");
                assert_eq!(sum[lane], a + b, "add lane {lane}");
                assert_eq!(diff[lane], a - b, "sub lane {lane}");
                assert_eq!(lazy[lane], a * b, "lazy mul lane {lane}");
                assert_eq!(lazy_sq[lane], a.square(), "lazy square lane {lane}");
                assert_eq!(lazy_diff[lane], a - b, "lazy sub lane {lane}");
                assert_eq!(eq & (1 << lane) != 0, a == b, "eq lane {lane}");
            }
            // Inversion through the scalar field with the IFMA fix-up.
            for xl in x.iter() {
                let e = xl.to_ifma();
                if let Some(inv) = e.inverse() {
                    let i = F::ifma_inverse_fixup(inv);
                    let one = back(&ifma::mul(
                        &to(&[*xl; 8]),
                        &ifma::load::<F, W, L>(&[i; 8]),
                        &m,
                    ));
                    assert_eq!(one[0], F::ONE, "inverse fix-up");
                }
            }
        }
        // The IFMA form of one is what `one` holds.
        assert_eq!(back(&m.one), [F::ONE; 8]);
        // Conversion by one product with the factors.
        for x in xs.iter().take(200) {
            let raw = ifma::load::<F, W, L>(x);
            let to = ifma::store::<F, W, L>(&ifma::mul(&raw, &m.to_factor, &m), &m);
            assert_eq!(to, x.map(|e| e.to_ifma()), "to_factor");
            let from = ifma::store::<F, W, L>(&ifma::mul(&raw, &m.from_factor, &m), &m);
            assert_eq!(from, x.map(|e| e.from_ifma()), "from_factor");
        }
    }
}

#[test]
fn bn254_fq_lanes_match_scalar() {
    check_field::<bn254::Fq, 4, 5>(1);
}

#[test]
fn bn254_fr_lanes_match_scalar() {
    check_field::<bn254::Fr, 4, 5>(2);
}

#[test]
fn bls12_381_fq_lanes_match_scalar() {
    check_field::<bls12_381::Fq, 6, 8>(3);
}

#[test]
fn conversions_round_trip() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    for _ in 0..CASES {
        let x = bn254::Fq::random(&mut rng);
        assert_eq!(
            IfmaField::<4, 5>::from_ifma(IfmaField::<4, 5>::to_ifma(x)),
            x
        );
        let y = bls12_381::Fq::random(&mut rng);
        assert_eq!(
            IfmaField::<6, 8>::from_ifma(IfmaField::<6, 8>::to_ifma(y)),
            y
        );
    }
}
