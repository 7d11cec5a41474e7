//! The packed Goldilocks backends (scalar, AVX2, AVX-512) against the scalar field, lane by
//! lane: element-wise operations on edge and random inputs, extreme products, and the fused
//! NTT kernels. One trial per backend, so a backend this CPU cannot run is reported
//! ignored with the reason rather than skipped (a `libtest-mimic` harness).

use fastzk_field::goldilocks::packed::Backend;
use fastzk_field::{Field, Goldilocks};
use fastzk_testing::Trials;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn vecs(rng: &mut ChaCha20Rng, n: usize) -> Vec<Goldilocks> {
    (0..n)
        .map(|i| match i % 5 {
            // Edge values: 0, 1, p−1, 2^32 boundaries.
            0 => Goldilocks::new(
                [0, 1, Goldilocks::MODULUS - 1, 0xffff_ffff, 1 << 32][rng.gen_range(0..5)],
            )
            .unwrap(),
            _ => Goldilocks::random(rng),
        })
        .collect()
}

fn elementwise_ops_match_scalar_lane_by_lane(be: Backend) {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for n in [0usize, 1, 3, 4, 7, 8, 9, 15, 16, 33, 100] {
        for _ in 0..20 {
            let a = vecs(&mut rng, n);
            let b = vecs(&mut rng, n);
            let s = vecs(&mut rng, 1)[0];
            {
                let mut x = a.clone();
                be.add_assign(&mut x, &b).unwrap();
                assert!(
                    x.iter()
                        .zip(a.iter().zip(&b))
                        .all(|(x, (a, b))| *x == *a + *b),
                    "{be:?} add"
                );
                let mut x = a.clone();
                be.sub_assign(&mut x, &b).unwrap();
                assert!(
                    x.iter()
                        .zip(a.iter().zip(&b))
                        .all(|(x, (a, b))| *x == *a - *b),
                    "{be:?} sub"
                );
                let mut x = a.clone();
                be.mul_assign(&mut x, &b).unwrap();
                assert!(
                    x.iter()
                        .zip(a.iter().zip(&b))
                        .all(|(x, (a, b))| *x == *a * *b),
                    "{be:?} mul"
                );
                let mut x = a.clone();
                be.scale(&mut x, s);
                assert!(x.iter().zip(&a).all(|(x, a)| *x == *a * s), "{be:?} scale");
                let mut x = a.clone();
                be.lerp_assign(&mut x, &b, s).unwrap();
                assert!(
                    x.iter()
                        .zip(a.iter().zip(&b))
                        .all(|(x, (a, b))| *x == *a + s * (*b - *a)),
                    "{be:?} lerp"
                );
                let (mut lo, mut hi) = (a.clone(), b.clone());
                be.butterfly_ct(&mut lo, &mut hi, s).unwrap();
                for i in 0..n {
                    assert_eq!(lo[i], a[i] + s * b[i], "{be:?} ct lo");
                    assert_eq!(hi[i], a[i] - s * b[i], "{be:?} ct hi");
                }
                let (mut lo, mut hi) = (a.clone(), b.clone());
                be.butterfly_gs(&mut lo, &mut hi, s, None).unwrap();
                for i in 0..n {
                    assert_eq!(lo[i], a[i] + b[i], "{be:?} gs lo");
                    assert_eq!(hi[i], (a[i] - b[i]) * s, "{be:?} gs hi");
                }
                let c = vecs(&mut rng, 1)[0];
                let (mut lo, mut hi) = (a.clone(), b.clone());
                be.butterfly_gs(&mut lo, &mut hi, s, Some(c)).unwrap();
                for i in 0..n {
                    assert_eq!(lo[i], (a[i] + b[i]) * c, "{be:?} gs scaled lo");
                    assert_eq!(hi[i], (a[i] - b[i]) * s * c, "{be:?} gs scaled hi");
                }
            }
        }
    }
}

/// `lo += s·(hi − lo)` across its stack blocks (256), with edge challenges: against the
/// scalar formula and [`Field::lerp_assign`]'s scalar default.
fn lerp_crosses_blocks(be: Backend) {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let p = Goldilocks::MODULUS;
    for n in [255usize, 256, 257, 600, 1024] {
        let a = vecs(&mut rng, n);
        let b = vecs(&mut rng, n);
        for s in [0, 1, 2, p - 1, 1 << 32]
            .map(|v| Goldilocks::new(v).unwrap())
            .into_iter()
            .chain([Goldilocks::random(&mut rng)])
        {
            let mut x = a.clone();
            be.lerp_assign(&mut x, &b, s).unwrap();
            for i in 0..n {
                assert_eq!(x[i], a[i] + s * (b[i] - a[i]), "{be:?} lerp n={n} i={i}");
            }
        }
    }
}

/// Goldilocks' `Field::lerp_assign` (on the lanes this CPU picks) against the formula,
/// over the common length when the halves differ (as the trait's default does).
fn field_lerp_matches_the_default() {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    for (n, m) in [(0usize, 0usize), (1, 1), (300, 300), (300, 200), (200, 300)] {
        let a = vecs(&mut rng, n);
        let b = vecs(&mut rng, m);
        let s = Goldilocks::random(&mut rng);
        let mut x = a.clone();
        Goldilocks::lerp_assign(&mut x, &b, s);
        for i in 0..n {
            let want = if i < m {
                a[i] + s * (b[i] - a[i])
            } else {
                a[i]
            };
            assert_eq!(x[i], want, "n={n} m={m} i={i}");
        }
    }
}

fn extreme_products_reduce_canonically(be: Backend) {
    let p = Goldilocks::MODULUS;
    let edge = [
        0,
        1,
        2,
        p - 1,
        p - 2,
        0xffff_ffff,
        1 << 32,
        (1 << 32) + 1,
        p >> 1,
        u64::MAX % p,
    ];
    let a: Vec<Goldilocks> = edge
        .iter()
        .flat_map(|&x| edge.iter().map(move |_| Goldilocks::new(x).unwrap()))
        .collect();
    let b: Vec<Goldilocks> = edge
        .iter()
        .flat_map(|_| edge.iter().map(|&y| Goldilocks::new(y).unwrap()))
        .collect();
    {
        for op in 0..3 {
            let mut x = a.clone();
            match op {
                0 => be.add_assign(&mut x, &b).unwrap(),
                1 => be.sub_assign(&mut x, &b).unwrap(),
                _ => be.mul_assign(&mut x, &b).unwrap(),
            }
            for i in 0..a.len() {
                let want = [a[i] + b[i], a[i] - b[i], a[i] * b[i]][op];
                assert_eq!(x[i], want, "{be:?} op {op} on {} {}", a[i], b[i]);
                assert!(x[i].value() < p);
            }
        }
    }
}

fn ntt_kernels_match_scalar(be: Backend) {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let w: Vec<Goldilocks> = (0..512)
        .map(|_| loop {
            let x = Goldilocks::random(&mut rng);
            if !x.is_zero() {
                break x;
            }
        })
        .collect();
    for len in [16usize, 32, 64] {
        for g0 in [0usize, 1, 5, 64 - len / 8] {
            let x = vecs(&mut rng, len);
            let mut want = x.clone();
            Backend::Scalar.ntt_ct_last3(&mut want, &w, g0).unwrap();
            // The scalar kernel against first principles.
            let mut r = x.clone();
            for (q, grp) in r.chunks_exact_mut(8).enumerate() {
                let g = g0 + q;
                for (h, tw) in [
                    (4usize, vec![w[g]]),
                    (2, vec![w[2 * g], w[2 * g + 1]]),
                    (1, w[4 * g..4 * g + 4].to_vec()),
                ] {
                    for (bi, blk) in grp.chunks_exact_mut(2 * h).enumerate() {
                        for j in 0..h {
                            let (u, v) = (blk[j], blk[j + h] * tw[bi]);
                            blk[j] = u + v;
                            blk[j + h] = u - v;
                        }
                    }
                }
            }
            assert_eq!(r, want);
            let mut back = want.clone();
            Backend::Scalar
                .ntt_gs_first3(&mut back, &inv_all(&w), g0)
                .unwrap();
            assert!(back
                .iter()
                .zip(&x)
                .all(|(b, x)| *b == *x * Goldilocks::from_u64(8)));
            {
                let mut y = x.clone();
                be.ntt_ct_last3(&mut y, &w, g0).unwrap();
                assert_eq!(y, want, "{be:?} ct_last3");
                be.ntt_gs_first3(&mut y, &inv_all(&w), g0).unwrap();
                assert_eq!(y, back, "{be:?} gs_first3");
            }
        }
    }
}

fn inv_all(w: &[Goldilocks]) -> Vec<Goldilocks> {
    w.iter()
        .map(|x| x.inverse().unwrap_or(Goldilocks::ZERO))
        .collect()
}

fn errors_instead_of_panics() {
    let mut a = vec![Goldilocks::ONE; 3];
    let b = vec![Goldilocks::ONE; 4];
    for be in Backend::all() {
        assert!(be.add_assign(&mut a, &b).is_err());
        assert!(be.lerp_assign(&mut a, &b, Goldilocks::ONE).is_err());
        assert!(be.ntt_ct_last3(&mut a, &b, 0).is_err());
        let mut x = vec![Goldilocks::ONE; 16];
        assert!(be.ntt_ct_last3(&mut x, &b, 0).is_err());
    }
}

/// Whether `be` can run here, or why not. An unsupported backend would quietly run the
/// scalar code, so its trials must not run.
fn available(be: Backend) -> Result<(), &'static str> {
    match be {
        _ if be.is_supported() => Ok(()),
        Backend::Avx2 => Err("this CPU has no AVX2"),
        _ => Err("this CPU has no AVX-512F"),
    }
}

/// One check, run on a backend.
type Check = fn(Backend);

fn main() {
    let mut t = Trials::default();
    for be in Backend::all() {
        let name = format!("{be:?}").to_lowercase();
        let checks: [(&str, Check); 4] = [
            (
                "elementwise_ops_match_scalar_lane_by_lane",
                elementwise_ops_match_scalar_lane_by_lane,
            ),
            ("lerp_crosses_blocks", lerp_crosses_blocks),
            (
                "extreme_products_reduce_canonically",
                extreme_products_reduce_canonically,
            ),
            ("ntt_kernels_match_scalar", ntt_kernels_match_scalar),
        ];
        for (what, check) in checks {
            t.when(
                &format!("{what}::backend_{name}"),
                available(be),
                move || check(be),
            );
        }
    }
    t.plain("errors_instead_of_panics", errors_instead_of_panics);
    t.plain(
        "field_lerp_matches_the_default",
        field_lerp_matches_the_default,
    );
    t.run()
}
