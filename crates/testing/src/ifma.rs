//! The eight-lane AVX-512 IFMA arithmetic ([`fastzk_field::ifma`]) lane by lane against
//! the scalar field: products, squares, sums and differences on canonical and lazy
//! inputs, equality, conversions to and from IFMA form, inversion through the scalar
//! field; and the lane field types the MSM flush uses ([`LaneField`]), including the
//! lazy input ranges the flush feeds them. On a CPU without IFMA the checks are skipped
//! with a message.
//!
//! * [`ifma_field_tests!`](crate::ifma_field_tests): a prime field with an IFMA form.
//! * [`lane_field_tests!`](crate::lane_field_tests): a lane type (`Fq8`, `Fq2x8`).

use core::arch::x86_64::*;
use core::mem::size_of;

use fastzk_field::ifma::lanes::{Consts, LaneField};
use fastzk_field::ifma::{self, IfmaField, Lanes, VecModulus};
use fastzk_field::Field;
use rand_chacha::ChaCha20Rng;

use crate::gen::{edge_elements, rng};

const CASES: usize = 2000;

fn available() -> bool {
    let ok = ifma::is_supported();
    if !ok {
        eprintln!("skipped: this CPU has no AVX-512 IFMA (or FASTZK_NO_IFMA is set)");
    }
    ok
}

/// Random elements with the edge values mixed in, eight at a time, then every pair of
/// edge values in one case.
fn octets<F: Field>(rng: &mut ChaCha20Rng) -> Vec<[F; 8]> {
    let edges = edge_elements::<F>();
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
    for a in &edges {
        for b in &edges {
            out.push([*a, *b, *a, *b, *b, *a, *a, *b]);
        }
    }
    out
}

/// Every lane operation against the scalar field.
pub fn lanes_match_scalar<F: IfmaField<W, L>, const W: usize, const L: usize>() {
    if !available() {
        return;
    }
    let mut rng = rng(W as u64 * 10 + L as u64);
    let xs = octets::<F>(&mut rng);
    let ys = octets::<F>(&mut rng);
    // SAFETY: `available` checked the CPU features.
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
                if let Some(inv) = xl.to_ifma().inverse() {
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

/// `from_ifma ∘ to_ifma` is the identity (no CPU features needed).
pub fn conversions_round_trip<F: IfmaField<W, L>, const W: usize, const L: usize>() {
    let mut rng = rng(5);
    for x in edge_elements::<F>()
        .into_iter()
        .chain((0..CASES).map(|_| F::random(&mut rng)))
    {
        assert_eq!(x.to_ifma().from_ifma(), x);
        assert_eq!(F::from_raw_limbs(x.raw_limbs()), x);
    }
}

/// The IFMA suite for `F` with `W` memory limbs and `L` lane limbs, in module `name`.
#[macro_export]
macro_rules! ifma_field_tests {
    ($name:ident, $f:ty, $w:literal, $l:literal) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[test]
            fn lanes_match_scalar() {
                $crate::ifma::lanes_match_scalar::<$f, $w, $l>();
            }
            #[test]
            fn conversions_round_trip() {
                $crate::ifma::conversions_round_trip::<$f, $w, $l>();
            }
        }
    };
}

/// Loads eight elements (IFMA form) into lanes through the gather path.
unsafe fn gathered<V: LaneField>(xs: &[V::Elem; 8]) -> V {
    let base = xs.as_ptr() as *const u8;
    let offs: [u64; 8] = core::array::from_fn(|l| (l * size_of::<V::Elem>()) as u64);
    V::gather(base, _mm512_loadu_si512(offs.as_ptr() as *const _), 0, 0xff)
}

/// Stores lanes canonically through the scatter path.
unsafe fn scattered<V: LaneField>(v: &V, k: &Consts<V>) -> [V::Elem; 8] {
    let mut out = [V::Elem::ZERO; 8];
    let base = out.as_mut_ptr() as *mut u8;
    let offs: [u64; 8] = core::array::from_fn(|l| (l * size_of::<V::Elem>()) as u64);
    v.scatter(
        k,
        base,
        _mm512_loadu_si512(offs.as_ptr() as *const _),
        0,
        0xff,
    );
    out
}

/// The lane type against its scalar field, with the lazy operands the flush makes.
pub fn lane_field_matches_scalar<V: LaneField>() {
    if !available() {
        return;
    }
    let (to, from) = (V::elem_to_ifma, V::elem_from_ifma);
    let mut rng = rng(V::VECS as u64);
    let edges = [V::Elem::ZERO, V::Elem::ONE, -V::Elem::ONE];
    for case in 0..CASES / 2 {
        let pick = |rng: &mut ChaCha20Rng, l: usize| {
            if (case + l).is_multiple_of(4) {
                edges[(case / 4 + l) % edges.len()]
            } else {
                V::Elem::random(rng)
            }
        };
        let xs: [V::Elem; 8] = core::array::from_fn(|l| pick(&mut rng, l));
        let ys: [V::Elem; 8] = core::array::from_fn(|l| pick(&mut rng, l + 1));
        // SAFETY: `available` checked the CPU features.
        unsafe {
            let k = V::consts();
            let (a, b) = (gathered::<V>(&xs.map(to)), gathered::<V>(&ys.map(to)));
            // Lazy operands as the flush makes them: a + 4p − b in (0, 5p).
            let lazy = V::sub(&a, &b, &k.four_p);
            let prod = scattered(&V::mul(&a, &b, &k), &k).map(from);
            let lazy_prod = scattered(&V::mul(&lazy, &a, &k), &k).map(from);
            let sq = scattered(&V::square(&a, &k), &k).map(from);
            let diff = scattered(&V::sub2(&a, &b, &b, &k.two_p), &k).map(from);
            let same = a.eq(&b);
            for l in 0..8 {
                assert_eq!(prod[l], xs[l] * ys[l], "mul lane {l}");
                assert_eq!(lazy_prod[l], (xs[l] - ys[l]) * xs[l], "lazy mul lane {l}");
                assert_eq!(sq[l], xs[l].square(), "square lane {l}");
                assert_eq!(diff[l], xs[l] - ys[l] - ys[l], "sub2 lane {l}");
                assert_eq!(same & (1 << l) != 0, xs[l] == ys[l], "eq lane {l}");
            }
            if xs.iter().all(|x| !x.is_zero()) {
                let inv = scattered(&a.invert(&k), &k).map(from);
                for l in 0..8 {
                    assert_eq!(inv[l] * xs[l], V::Elem::ONE, "invert lane {l}");
                }
            }
            // Scratch round trip.
            let mut buf = vec![_mm512_setzero_si512(); V::VECS];
            a.store(buf.as_mut_ptr());
            assert_eq!(scattered(&V::load(buf.as_ptr()), &k).map(from), xs);
        }
    }
}

/// The suite for the lane type `V`, in module `name`.
#[macro_export]
macro_rules! lane_field_tests {
    ($name:ident, $v:ty) => {
        #[test]
        fn $name() {
            $crate::ifma::lane_field_matches_scalar::<$v>();
        }
    };
}
