//! Lazy (Harvey-style) reduction API of `Fp`: the documented bounds hold and canonicalised
//! results equal the fully reduced operations, on random values, values lifted by
//! multiples of `p`, and the edges (0, p − 1, 2p − 1, 4p − 1, full 256/384-bit limbs).

use fastzk_field::{bls12_381, bn254, uses_adx, PrimeField};
use num_bigint::BigUint;
use proptest::prelude::*;

const CASES: u32 = 4000;

fn to_big<const N: usize>(l: &[u64; N]) -> BigUint {
    let digits: Vec<u32> = l
        .iter()
        .flat_map(|&w| [w as u32, (w >> 32) as u32])
        .collect();
    BigUint::new(digits)
}

fn from_big<const N: usize>(v: &BigUint) -> [u64; N] {
    let mut out = [0u64; N];
    for (o, d) in out.iter_mut().zip(v.to_u64_digits()) {
        *o = d;
    }
    assert!(v.bits() <= 64 * N as u64);
    out
}

/// A value below `bound`, biased to the edges `0`, `bound − 1` and `p`-multiples ± 1.
fn below(p: BigUint, bound: BigUint, bytes: usize) -> impl Strategy<Value = BigUint> {
    let mut edges = vec![BigUint::from(0u32), &bound - 1u32];
    let mut k = p.clone();
    while k < bound {
        edges.push(&k - 1u32);
        edges.push(k.clone());
        k += &p;
    }
    edges.retain(|e| e < &bound);
    prop_oneof![
        1 => proptest::sample::select(edges),
        4 => proptest::collection::vec(any::<u8>(), bytes + 16)
            .prop_map(move |b| BigUint::from_bytes_le(&b) % &bound),
    ]
}

macro_rules! lazy_suite {
    ($modname:ident, $f:ty, $n:literal) => {
        mod $modname {
            use super::*;
            type F = $f;
            const N: usize = $n;

            fn p() -> BigUint {
                F::modulus()
            }
            fn r() -> BigUint {
                BigUint::from(1u32) << (64 * N)
            }
            fn mk(v: &BigUint) -> F {
                F::from_montgomery_limbs_unchecked(from_big::<N>(v))
            }
            fn big(x: &F) -> BigUint {
                to_big(&x.montgomery_limbs())
            }
            /// The canonical element with Montgomery limbs `v mod p`.
            fn canon(v: &BigUint) -> F {
                mk(&(v % p()))
            }
            /// The largest lazy range the field supports: `[0, 4p)` with two spare bits,
            /// else `[0, 2p)`.
            fn lazy_bound() -> BigUint {
                if F::SPARE_BITS >= 2 {
                    p() * 4u32
                } else {
                    p() * 2u32
                }
            }

            #[test]
            fn constants() {
                assert_eq!(F::SPARE_BITS, 64 * N as u32 - F::MODULUS_BITS);
                assert!(p() << F::SPARE_BITS < r());
                assert_eq!(to_big(&F::TWO_P), p() * 2u32);
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(CASES))]

                /// `mul_lazy(x, y)` for canonical `y` and any `x < R`: below `2p` and equal
                /// to `x·y` after reduction, on both backends.
                #[test]
                fn mul_lazy_bound(x in below(p(), r(), 8 * N), y in below(p(), p(), 8 * N)) {
                    let (lx, cy) = (mk(&x), mk(&y));
                    let m = lx.mul_lazy(&cy);
                    prop_assert!(big(&m) < p() * 2u32);
                    prop_assert_eq!(m.reduce_below_p(), canon(&x) * cy);
                    prop_assert_eq!(lx.mul_lazy_portable(&cy), m);
                    if uses_adx() {
                        // SAFETY: uses_adx() returned true.
                        prop_assert_eq!(unsafe { lx.mul_lazy_adx(&cy) }, m);
                    }
                }

                /// Both operands below `2p` (two spare bits): still below `2p`.
                #[test]
                fn mul_lazy_both_unreduced(x in below(p(), p() * 2u32, 8 * N),
                                           y in below(p(), p() * 2u32, 8 * N)) {
                    if F::SPARE_BITS < 2 {
                        return Ok(());
                    }
                    let m = mk(&x).mul_lazy_portable(&mk(&y));
                    prop_assert!(big(&m) < p() * 2u32);
                    prop_assert_eq!(m.reduce_below_p(), canon(&x) * canon(&y));
                }

                /// Additions and subtractions within the lazy range, and the reductions.
                #[test]
                fn add_sub_reduce(x in below(p(), p() * 2u32, 8 * N),
                                  y in below(p(), p() * 2u32, 8 * N),
                                  z in below(p(), lazy_bound(), 8 * N)) {
                    let (lx, ly, lz) = (mk(&x), mk(&y), mk(&z));
                    let (cx, cy) = (canon(&x), canon(&y));
                    // sub_lazy: x + 2p − y < 4p for x < 2p (needs two spare bits).
                    if F::SPARE_BITS >= 2 {
                        let d = lx.sub_lazy(&ly);
                        prop_assert!(big(&d) <= big(&lx) + p() * 2u32);
                        prop_assert!(big(&d) < p() * 4u32);
                        prop_assert_eq!(d.canonicalize_lazy(), cx - cy);
                    }
                    // add_lazy: x + y < 4p for x, y < 2p (two spare bits), < 2p for x, y < p.
                    let (ax, ay) = if F::SPARE_BITS >= 2 { (lx, ly) } else { (cx, cy) };
                    let s = ax.add_lazy(&ay);
                    prop_assert_eq!(big(&s), big(&ax) + big(&ay));
                    prop_assert_eq!(s.canonicalize_lazy(), cx + cy);
                    // Reductions: [0, 4p) → [0, 2p) → [0, p), staying congruent.
                    let h = lz.reduce_below_2p();
                    if F::SPARE_BITS >= 2 || z < p() * 2u32 {
                        prop_assert!(big(&h) < p() * 2u32);
                        prop_assert_eq!(&big(&h) % p(), &z % p());
                        prop_assert_eq!(h.reduce_below_p(), canon(&z));
                        prop_assert_eq!(lz.canonicalize_lazy(), canon(&z));
                    }
                    prop_assert_eq!(lx.reduce_below_p(), cx);
                }

                /// One radix-2 CT butterfly chained over several levels stays in `[0, 4p)`
                /// and matches the reduced butterfly (what the NTT relies on).
                #[test]
                fn harvey_butterfly_levels(x in below(p(), p(), 8 * N),
                                           y in below(p(), p(), 8 * N),
                                           s in below(p(), p(), 8 * N)) {
                    if F::SPARE_BITS < 2 {
                        return Ok(());
                    }
                    let s = mk(&s);
                    let (mut lx, mut ly) = (mk(&x), mk(&y));
                    let (mut rx, mut ry) = (mk(&x), mk(&y));
                    for _ in 0..8 {
                        let u = lx.reduce_below_2p();
                        let t = ly.mul_lazy(&s);
                        (lx, ly) = (u.add_lazy(&t), u.sub_lazy(&t));
                        prop_assert!(big(&lx) < p() * 4u32 && big(&ly) < p() * 4u32);
                        let v = ry * s;
                        (rx, ry) = (rx + v, rx - v);
                        prop_assert_eq!(lx.canonicalize_lazy(), rx);
                        prop_assert_eq!(ly.canonicalize_lazy(), ry);
                    }
                }
            }
        }
    };
}

lazy_suite!(bn254_fr, bn254::Fr, 4);
lazy_suite!(bn254_fq, bn254::Fq, 4);
lazy_suite!(bls12_381_fr, bls12_381::Fr, 4);
lazy_suite!(bls12_381_fq, bls12_381::Fq, 6);
