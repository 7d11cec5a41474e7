//! The eight-lane IFMA engine ([`fastzk_field::ifma`]) on the CPU's instructions and on
//! the software model of the lanes ([`Model`]), and the model against the instructions.
//!
//! * [`lanes_match_scalar`]: the radix-2^52 limb arithmetic lane by lane against the
//!   scalar field — products, squares, sums and differences on canonical and lazy
//!   inputs, equality, conversions to and from IFMA form, inversion.
//! * [`lane_field_matches_scalar`]: a lane field type (`Fq8`, `Fq2x8`) the MSM flush
//!   uses, including the lazy input ranges the flush feeds it.
//! * [`model_matches_avx512`]: every modelled operation against the real instruction on
//!   random and edge inputs.
//!
//! The suites are generic over the vector type, so the same checks run on
//! `__m512i` and on [`Model`]. They run in test binaries built on [`Trials`] (a
//! `libtest-mimic` harness), because a check that needs the instructions must be reported
//! *ignored, with its reason* on a host that lacks them, not passed: every trial is named
//! `…::on_model::…`, `…::on_avx512::…` or `…::on_fma::…` (the same engine on AVX2 with
//! products on FMA, [`fastzk_field::ifma::avx2`]), and CI counts them
//! (`scripts/ifma-test-summary`).

use core::mem::size_of;

use fastzk_field::ifma::lanes::{Consts, LaneField};
#[cfg(target_arch = "x86_64")]
use fastzk_field::ifma::Model;
use fastzk_field::ifma::{self, Avx512, IfmaField, Lanes, VecModulus};
use fastzk_field::Field;
use rand_chacha::ChaCha20Rng;

use crate::gen::{edge_elements, rng};

pub use crate::trials::Trials;

const CASES: usize = 2000;

/// Whether the CPU's IFMA instructions may run in this process, or why not.
pub fn hardware() -> Result<(), &'static str> {
    use fastzk_field::cpu::Capability;
    if !cfg!(target_arch = "x86_64") {
        Err("not an x86-64 CPU")
    } else if !Capability::Ifma.in_hardware() {
        Err("this CPU has no AVX-512 IFMA")
    } else if !Capability::Ifma.enabled() {
        Err("FASTZK_NO_IFMA is set")
    } else {
        Ok(())
    }
}

/// Whether the FMA lanes ([`fastzk_field::ifma::avx2`]) may run in this process, or why
/// not.
pub fn fma_lanes() -> Result<(), &'static str> {
    use fastzk_field::cpu::Capability;
    if !cfg!(target_arch = "x86_64") {
        Err("not an x86-64 CPU")
    } else if !Capability::Fma.in_hardware() {
        Err("this CPU has no AVX2 and FMA")
    } else if !Capability::Fma.enabled() {
        Err("FASTZK_NO_FMA_LANES is set")
    } else {
        Ok(())
    }
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

/// Every limb-arithmetic operation on vectors `V` against the scalar field.
///
/// # Panics
/// On the first lane that differs. For `V = __m512i` the caller must have checked
/// [`hardware`].
pub fn lanes_match_scalar<F, V, const W: usize, const L: usize>()
where
    F: IfmaField<W, L>,
    V: Avx512,
{
    let mut rng = rng(W as u64 * 10 + L as u64);
    let xs = octets::<F>(&mut rng);
    let ys = octets::<F>(&mut rng);
    // SAFETY: the model runs anywhere; the instructions only where the caller checked.
    unsafe {
        let m = VecModulus::<V, L>::new(&F::IFMA);
        let load = |v: &[F; 8]| -> Lanes<V, L> { ifma::load::<V, F, W, L>(v) };
        let store = |v: &Lanes<V, L>| -> [F; 8] { ifma::store::<V, F, W, L>(v, &m) };
        let to = |v: &[F; 8]| load(&v.map(|e| e.to_ifma()));
        let back = |v: &Lanes<V, L>| store(v).map(|e| e.from_ifma());
        for (x, y) in xs.iter().zip(ys.iter()) {
            let (vx, vy) = (to(x), to(y));
            // Raw load/store round trip keeps the limbs.
            assert_eq!(store(&load(x)), *x);
            let prod = back(&ifma::mul(&vx, &vy, &m));
            let sq = back(&ifma::square(&vx, &m));
            let sum = back(&ifma::add(&vx, &vy));
            let diff = back(&ifma::sub(&vx, &vy, &m.p));
            let diff2 = back(&ifma::sub2(&vx, &vy, &vy, &m.two_p));
            // Lazy inputs: values in [p, 4p) must multiply the same.
            let lazy_x = ifma::add(&ifma::add(&vx, &m.p), &m.two_p);
            let lazy_y = ifma::add(&vy, &m.p);
            let lazy = back(&ifma::mul(&lazy_x, &lazy_y, &m));
            let lazy_sq = back(&ifma::square(&lazy_x, &m));
            let lazy_diff = back(&ifma::sub(&lazy_x, &vy, &m.p));
            let eq = ifma::eq_words::<V, W>(
                &ifma::join::<V, W, L>(&ifma::canonicalize(&vx, &m)),
                &ifma::join::<V, W, L>(&ifma::canonicalize(&vy, &m)),
            );
            let mask = (x[0].raw_limbs()[0] & 0xff) as u8;
            let mixed = back(&ifma::blend(mask, &vx, &vy));
            for lane in 0..8 {
                let (a, b) = (x[lane], y[lane]);
                assert_eq!(prod[lane], a * b, "mul lane {lane}: {a:?} * {b:?}");
                assert_eq!(sq[lane], a.square(), "square lane {lane}");
                assert_eq!(sum[lane], a + b, "add lane {lane}");
                assert_eq!(diff[lane], a - b, "sub lane {lane}");
                assert_eq!(diff2[lane], a - b - b, "sub2 lane {lane}");
                assert_eq!(lazy[lane], a * b, "lazy mul lane {lane}");
                assert_eq!(lazy_sq[lane], a.square(), "lazy square lane {lane}");
                assert_eq!(lazy_diff[lane], a - b, "lazy sub lane {lane}");
                assert_eq!(eq & (1 << lane) != 0, a == b, "eq lane {lane}");
                let want = if mask >> lane & 1 == 1 { b } else { a };
                assert_eq!(mixed[lane], want, "blend lane {lane}");
            }
            // Inversion through the scalar field with the IFMA fix-up.
            for xl in x.iter() {
                if let Some(inv) = xl.to_ifma().inverse() {
                    let i = F::ifma_inverse_fixup(inv);
                    let one = back(&ifma::mul(&to(&[*xl; 8]), &load(&[i; 8]), &m));
                    assert_eq!(one[0], F::ONE, "inverse fix-up");
                }
            }
        }
        // The IFMA form of one is what `one` holds.
        assert_eq!(back(&m.one), [F::ONE; 8]);
        // Conversion by one product with the factors.
        for x in xs.iter().take(200) {
            let raw = load(x);
            let to = store(&ifma::mul(&raw, &m.to_factor, &m));
            assert_eq!(to, x.map(|e| e.to_ifma()), "to_factor");
            let from = store(&ifma::mul(&raw, &m.from_factor, &m));
            assert_eq!(from, x.map(|e| e.from_ifma()), "from_factor");
        }
    }
}

/// `p` as four words, from its radix-2^52 limbs.
fn modulus_words<F: IfmaField<4, 5>>() -> [u64; 4] {
    let l = F::IFMA.p;
    let mut w = [0u64; 4];
    for (k, limb) in l.iter().enumerate() {
        let bit = 52 * k;
        let (i, sh) = (bit / 64, bit % 64);
        w[i] |= limb << sh;
        if sh > 12 && i + 1 < 4 {
            w[i + 1] |= limb >> (64 - sh);
        }
    }
    w
}

/// `a + b` on four words (no overflow: the callers stay below `2^256`).
fn add_words(a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    let mut out = [0u64; 4];
    let mut carry = 0u128;
    for i in 0..4 {
        let t = a[i] as u128 + b[i] as u128 + carry;
        out[i] = t as u64;
        carry = t >> 64;
    }
    assert_eq!(carry, 0, "lazy test value overflowed 256 bits");
    out
}

/// Whether `a < b` as integers.
fn lt_words(a: [u64; 4], b: [u64; 4]) -> bool {
    (0..4).rev().map(|i| a[i].cmp(&b[i])).find(|o| o.is_ne()) == Some(core::cmp::Ordering::Less)
}

/// `k·p`.
fn multiple(p: [u64; 4], k: u64) -> [u64; 4] {
    (0..k).fold([0u64; 4], |acc, _| add_words(acc, p))
}

/// The element whose lazy representative (`< 8p`) are the words `w`.
fn reduce_words<F: IfmaField<4, 5>>(mut w: [u64; 4]) -> F {
    let p = modulus_words::<F>();
    while !lt_words(w, p) {
        let mut borrow = 0i128;
        for i in 0..4 {
            let t = w[i] as i128 - p[i] as i128 + borrow;
            w[i] = t as u64;
            borrow = t >> 64;
        }
    }
    F::from_raw_limbs(w)
}

/// `len` lazy values below `k_max·p`: random and edge elements plus a random multiple of
/// `p`, and the largest value, `k_max·p − 1`, at every seventh place.
fn lazy_row<F: IfmaField<4, 5>>(rng: &mut ChaCha20Rng, len: usize, k_max: u64) -> Vec<[u64; 4]> {
    use rand::Rng;
    let p = modulus_words::<F>();
    let edges = edge_elements::<F>();
    (0..len)
        .map(|i| {
            if i % 7 == 3 {
                return add_words((-F::ONE).raw_limbs(), multiple(p, k_max - 1));
            }
            let x = if i % 5 == 0 {
                edges[i / 5 % edges.len()]
            } else {
                F::random(&mut *rng)
            };
            add_words(x.raw_limbs(), multiple(p, rng.gen_range(0..k_max)))
        })
        .collect()
}

/// Checks lanes' results against the field: equal modulo `p`, below `bound·p`, canonical
/// when `bound` is 1.
fn check_row<F: IfmaField<4, 5>>(what: &str, got: &[[u64; 4]], want: &[F], bound: u64) {
    let limit = multiple(modulus_words::<F>(), bound);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            lt_words(*g, limit),
            "{what}: element {i} not below {bound}p"
        );
        assert_eq!(reduce_words::<F>(*g), *w, "{what}: element {i}");
    }
}

/// The NTT butterflies on IFMA lanes (`fastzk_field::ifma::ntt`) against the field, on
/// lazy inputs up to the bounds the kernels accept: `ct_quad` in each of its four
/// variants, `ct_rows`, and `gs_rows` and `gs_quad` with and without the common factor,
/// last level or not, on rows of 8 and 24 elements.
///
/// # Panics
/// On the first element that differs or leaves its range. For `V = __m512i` the caller
/// must have checked [`hardware`].
pub fn ntt_lanes_match_scalar<F: IfmaField<4, 5>, V: Avx512>() {
    use fastzk_field::ifma::ntt as lanes;
    let mut rng = rng(254);
    let m = F::IFMA;
    let tw = |s: F| lanes::twiddle(s.to_ifma().raw_limbs());
    let words = |v: &mut Vec<[u64; 4]>| v.as_mut_ptr() as *mut u64;
    let value = |v: &[[u64; 4]]| -> Vec<F> { v.iter().map(|w| reduce_words::<F>(*w)).collect() };
    for case in 0..200 {
        let len = if case % 2 == 0 { 8 } else { 24 };
        let (one, last) = (case % 4 >= 2, case % 8 >= 4);
        let s: [F; 3] = if one {
            [F::ONE, F::ONE, F::random(&mut rng)]
        } else {
            core::array::from_fn(|_| F::random(&mut rng))
        };
        // Forward, two levels: inputs below 4p.
        let mut rows: [Vec<[u64; 4]>; 4] =
            core::array::from_fn(|_| lazy_row::<F>(&mut rng, len, 4));
        let [a, b, c, d] = [0, 1, 2, 3].map(|k| value(&rows[k]));
        let ptrs = [0, 1, 2, 3].map(|k| rows[k].as_mut_ptr() as *mut u64);
        let t = s.map(tw);
        // SAFETY: each row holds `len` elements; the model runs anywhere, the
        // instructions only where the caller checked.
        unsafe {
            match (one, last) {
                (true, true) => lanes::ct_quad::<V, true, true>(ptrs, len, &t, &m),
                (true, false) => lanes::ct_quad::<V, true, false>(ptrs, len, &t, &m),
                (false, true) => lanes::ct_quad::<V, false, true>(ptrs, len, &t, &m),
                (false, false) => lanes::ct_quad::<V, false, false>(ptrs, len, &t, &m),
            }
        }
        let bound = if last { 1 } else { 4 };
        let mut want: [Vec<F>; 4] = core::array::from_fn(|_| Vec::new());
        for i in 0..len {
            let (y0, y2) = (a[i] + s[0] * c[i], a[i] - s[0] * c[i]);
            let (y1, y3) = (b[i] + s[0] * d[i], b[i] - s[0] * d[i]);
            want[0].push(y0 + s[1] * y1);
            want[1].push(y0 - s[1] * y1);
            want[2].push(y2 + s[2] * y3);
            want[3].push(y2 - s[2] * y3);
        }
        for k in 0..4 {
            check_row(
                &format!("ct_quad case {case} row {k}"),
                &rows[k],
                &want[k],
                bound,
            );
        }

        // Forward, one level.
        let (mut lo, mut hi) = (
            lazy_row::<F>(&mut rng, len, 4),
            lazy_row::<F>(&mut rng, len, 4),
        );
        let (x, y) = (value(&lo), value(&hi));
        let (pl, ph) = (words(&mut lo), words(&mut hi));
        // SAFETY: as above.
        unsafe {
            if last {
                lanes::ct_rows::<V, true>(pl, ph, len, &t[2], &m)
            } else {
                lanes::ct_rows::<V, false>(pl, ph, len, &t[2], &m)
            }
        }
        let wl: Vec<F> = (0..len).map(|i| x[i] + s[2] * y[i]).collect();
        let wh: Vec<F> = (0..len).map(|i| x[i] - s[2] * y[i]).collect();
        check_row(&format!("ct_rows case {case} lo"), &lo, &wl, bound);
        check_row(&format!("ct_rows case {case} hi"), &hi, &wh, bound);

        // Inverse, one level: inputs below 2p; the common factor only on a last level.
        let scaled = last && case % 3 == 0;
        let cf = F::random(&mut rng);
        let (mut lo, mut hi) = (
            lazy_row::<F>(&mut rng, len, 2),
            lazy_row::<F>(&mut rng, len, 2),
        );
        let (u, v) = (value(&lo), value(&hi));
        let (pl, ph) = (words(&mut lo), words(&mut hi));
        let scale = (tw(cf), tw(s[2] * cf));
        let sc = scaled.then_some(&scale);
        // SAFETY: as above.
        unsafe {
            if last {
                lanes::gs_rows::<V, true>(pl, ph, len, &t[2], sc, &m)
            } else {
                lanes::gs_rows::<V, false>(pl, ph, len, &t[2], sc, &m)
            }
        }
        let k = if scaled { cf } else { F::ONE };
        let wl: Vec<F> = (0..len).map(|i| (u[i] + v[i]) * k).collect();
        let wh: Vec<F> = (0..len).map(|i| (u[i] - v[i]) * s[2] * k).collect();
        let bound = if last { 1 } else { 2 };
        check_row(&format!("gs_rows case {case} lo"), &lo, &wl, bound);
        check_row(&format!("gs_rows case {case} hi"), &hi, &wh, bound);

        // Inverse, two levels.
        let mut rows: [Vec<[u64; 4]>; 4] =
            core::array::from_fn(|_| lazy_row::<F>(&mut rng, len, 2));
        let [a, b, c, d] = [0, 1, 2, 3].map(|k| value(&rows[k]));
        let ptrs = [0, 1, 2, 3].map(|k| rows[k].as_mut_ptr() as *mut u64);
        let scale = (tw(cf), tw(s[0] * cf));
        let sc = scaled.then_some(&scale);
        // SAFETY: as above.
        unsafe {
            if last {
                lanes::gs_quad::<V, true>(ptrs, len, &t, sc, &m)
            } else {
                lanes::gs_quad::<V, false>(ptrs, len, &t, sc, &m)
            }
        }
        let mut want: [Vec<F>; 4] = core::array::from_fn(|_| Vec::new());
        for i in 0..len {
            let (a1, b1) = (a[i] + b[i], (a[i] - b[i]) * s[1]);
            let (c1, d1) = (c[i] + d[i], (c[i] - d[i]) * s[2]);
            want[0].push((a1 + c1) * k);
            want[2].push((a1 - c1) * s[0] * k);
            want[1].push((b1 + d1) * k);
            want[3].push((b1 - d1) * s[0] * k);
        }
        for r in 0..4 {
            check_row(
                &format!("gs_quad case {case} row {r}"),
                &rows[r],
                &want[r],
                bound,
            );
        }
    }
}

/// `from_ifma ∘ to_ifma` is the identity (no vectors involved).
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

/// Byte offsets of eight consecutive elements.
unsafe fn element_offsets<F: LaneField>() -> F::Vec {
    F::Vec::from_array(core::array::from_fn(|l| (l * size_of::<F::Elem>()) as u64))
}

/// Loads eight elements (IFMA form) into lanes through the gather path.
unsafe fn gathered<F: LaneField>(xs: &[F::Elem; 8]) -> F {
    F::gather(xs.as_ptr() as *const u8, element_offsets::<F>(), 0, 0xff)
}

/// Stores lanes canonically through the scatter path.
unsafe fn scattered<F: LaneField>(v: &F, k: &Consts<F>) -> [F::Elem; 8] {
    let mut out = [F::Elem::ZERO; 8];
    v.scatter(
        k,
        out.as_mut_ptr() as *mut u8,
        element_offsets::<F>(),
        0,
        0xff,
    );
    out
}

/// The lane field type `F` against its scalar field, with the lazy operands the flush
/// makes.
///
/// # Panics
/// On the first lane that differs. For lanes on `__m512i` the caller must have checked
/// [`hardware`].
pub fn lane_field_matches_scalar<F: LaneField>() {
    let (to, from) = (F::elem_to_ifma, F::elem_from_ifma);
    let mut rng = rng(F::VECS as u64);
    let edges = [F::Elem::ZERO, F::Elem::ONE, -F::Elem::ONE];
    for case in 0..CASES / 2 {
        let pick = |rng: &mut ChaCha20Rng, l: usize| {
            if (case + l).is_multiple_of(4) {
                edges[(case / 4 + l) % edges.len()]
            } else {
                F::Elem::random(rng)
            }
        };
        let xs: [F::Elem; 8] = core::array::from_fn(|l| pick(&mut rng, l));
        let ys: [F::Elem; 8] = core::array::from_fn(|l| pick(&mut rng, l + 1));
        // SAFETY: the model runs anywhere; the instructions only where the caller checked.
        unsafe {
            let k = F::consts();
            let (a, b) = (gathered::<F>(&xs.map(to)), gathered::<F>(&ys.map(to)));
            // Lazy operands as the flush makes them: a + 4p − b in (0, 5p).
            let lazy = F::sub(&a, &b, &k.four_p);
            let prod = scattered(&F::mul(&a, &b, &k), &k).map(from);
            let lazy_prod = scattered(&F::mul(&lazy, &a, &k), &k).map(from);
            let sq = scattered(&F::square(&a, &k), &k).map(from);
            let lazy_sq = scattered(&F::square(&lazy, &k), &k).map(from);
            let sum = scattered(&F::add(&a, &b), &k).map(from);
            let diff = scattered(&F::sub2(&a, &b, &b, &k.two_p), &k).map(from);
            // A sum below 8p, as the flush's shrink gets.
            let shrunk = scattered(&F::add(&lazy, &a).shrink(&k), &k).map(from);
            let same = a.eq(&b);
            let zero = F::sub(&a, &a, &k.p).is_zero(&k);
            let mask = (case as u8).wrapping_mul(37);
            let mixed = scattered(&F::blend(mask, &a, &b), &k).map(from);
            for l in 0..8 {
                let (x, y) = (xs[l], ys[l]);
                assert_eq!(prod[l], x * y, "mul lane {l}");
                assert_eq!(lazy_prod[l], (x - y) * x, "lazy mul lane {l}");
                assert_eq!(sq[l], x.square(), "square lane {l}");
                assert_eq!(lazy_sq[l], (x - y).square(), "lazy square lane {l}");
                assert_eq!(sum[l], x + y, "add lane {l}");
                assert_eq!(diff[l], x - y - y, "sub2 lane {l}");
                assert_eq!(shrunk[l], x - y + x, "shrink lane {l}");
                assert_eq!(same & (1 << l) != 0, x == y, "eq lane {l}");
                assert!(zero & (1 << l) != 0, "is_zero lane {l}");
                let want = if mask >> l & 1 == 1 { y } else { x };
                assert_eq!(mixed[l], want, "blend lane {l}");
            }
            if xs.iter().all(|x| !x.is_zero()) {
                let inv = scattered(&a.invert(&k), &k).map(from);
                for l in 0..8 {
                    assert_eq!(inv[l] * xs[l], F::Elem::ONE, "invert lane {l}");
                }
            }
            // Scratch round trip, and the word-major load the flush reads points with.
            let mut buf = vec![F::Vec::zero(); F::VECS];
            a.store(buf.as_mut_ptr());
            assert_eq!(scattered(&F::load(buf.as_ptr()), &k).map(from), xs);
            let words = size_of::<F::Elem>() / 8;
            let mut soa = vec![[0u64; 8]; words];
            for (l, x) in xs.map(to).iter().enumerate() {
                let raw: &[u64] = core::slice::from_raw_parts(x as *const _ as *const u64, words);
                for (i, w) in raw.iter().enumerate() {
                    soa[i][l] = *w;
                }
            }
            let from_words = F::from_words(soa.as_ptr() as *const F::Vec);
            assert_eq!(scattered(&from_words, &k).map(from), xs, "from_words");
            // Masked gathers read nothing in masked-off lanes and give zero there.
            let half = F::gather(
                xs.map(to).as_ptr() as *const u8,
                element_offsets::<F>(),
                0,
                0x0f,
            );
            let got = scattered(&half, &k).map(from);
            for l in 0..8 {
                let want = if l < 4 { xs[l] } else { F::Elem::ZERO };
                assert_eq!(got[l], want, "masked gather lane {l}");
            }
        }
    }
}

/// The IFMA field suite for `F` with `W` memory limbs and `L` lane limbs, on the model
/// and on the instructions, as trials named `{name}::…`.
#[macro_export]
macro_rules! ifma_field_trials {
    ($trials:expr, $name:literal, $f:ty, $w:literal, $l:literal) => {{
        let t: &mut $crate::ifma::Trials = $trials;
        t.on_model(concat!($name, "::lanes_match_scalar"), || {
            $crate::ifma::lanes_match_scalar::<$f, $crate::fastzk_field::ifma::Model, $w, $l>()
        });
        // Registered on every host, so that elsewhere it is reported ignored.
        t.on_avx512(concat!($name, "::lanes_match_scalar"), || {
            #[cfg(target_arch = "x86_64")]
            $crate::ifma::lanes_match_scalar::<$f, core::arch::x86_64::__m512i, $w, $l>()
        });
        t.plain(concat!($name, "::conversions_round_trip"), || {
            $crate::ifma::conversions_round_trip::<$f, $w, $l>()
        });
    }};
}

/// The NTT lane suite for a 4-limb field with two spare bits, on the model and on the
/// instructions, as trials named `{name}::ntt_lanes_match_scalar`.
#[macro_export]
macro_rules! ntt_lane_trials {
    ($trials:expr, $name:literal, $f:ty) => {{
        let t: &mut $crate::ifma::Trials = $trials;
        t.on_model(concat!($name, "::ntt_lanes_match_scalar"), || {
            $crate::ifma::ntt_lanes_match_scalar::<$f, $crate::fastzk_field::ifma::Model>()
        });
        // Registered on every host, so that elsewhere it is reported ignored.
        t.on_avx512(concat!($name, "::ntt_lanes_match_scalar"), || {
            #[cfg(target_arch = "x86_64")]
            $crate::ifma::ntt_lanes_match_scalar::<$f, core::arch::x86_64::__m512i>()
        });
    }};
}

/// The lane field suite for `Lanes<field, W, L>` (`Fq8` or `Fq2x8`), on the model and on
/// the instructions, as trials named `{name}::…`.
#[macro_export]
macro_rules! lane_field_trials {
    ($trials:expr, $name:literal, $lanes:ident<$field:ty, $w:literal, $l:literal>) => {{
        let t: &mut $crate::ifma::Trials = $trials;
        t.on_model(concat!($name, "::lane_field_matches_scalar"), || {
            $crate::ifma::lane_field_matches_scalar::<
                $lanes<$field, $w, $l, $crate::fastzk_field::ifma::Model>,
            >()
        });
        // Registered on every host, so that elsewhere it is reported ignored.
        t.on_avx512(concat!($name, "::lane_field_matches_scalar"), || {
            #[cfg(target_arch = "x86_64")]
            $crate::ifma::lane_field_matches_scalar::<
                $lanes<$field, $w, $l, core::arch::x86_64::__m512i>,
            >()
        });
    }};
}

/// Words that hit the corners of 52-bit and 64-bit lane arithmetic.
#[cfg(target_arch = "x86_64")]
const EDGE_WORDS: [u64; 14] = [
    0,
    1,
    2,
    (1 << 32) - 1,
    1 << 32,
    (1 << 51) - 1,
    1 << 51,
    (1 << 52) - 1,
    1 << 52,
    (1 << 53) + 1,
    (1 << 63) - 1,
    1 << 63,
    u64::MAX - 1,
    u64::MAX,
];

/// Eight words: random, edge words, random with an edge word's pattern, or shift counts.
#[cfg(target_arch = "x86_64")]
fn words(rng: &mut ChaCha20Rng, case: usize) -> [u64; 8] {
    use rand::Rng;
    core::array::from_fn(|l| match (case + 3 * l) % 4 {
        0 => EDGE_WORDS[rng.gen_range(0..EDGE_WORDS.len())],
        1 => rng.gen::<u64>() & EDGE_WORDS[rng.gen_range(0..EDGE_WORDS.len())],
        2 => rng.gen_range(0..80),
        _ => rng.gen(),
    })
}

/// Every modelled operation against the CPU's instruction, on random and edge inputs.
///
/// # Panics
/// On the first operation and lane that differ. The caller must have checked
/// [`hardware`].
#[cfg(target_arch = "x86_64")]
pub fn model_matches_avx512() {
    model_matches::<core::arch::x86_64::__m512i>("avx512");
}

/// The same for the FMA lanes' emulation of every operation, and their product and
/// square, single and paired, against the model's limb for limb (so with the same
/// bounds).
///
/// # Panics
/// On the first operation and lane that differ. The caller must have checked
/// [`fma_lanes`].
#[cfg(target_arch = "x86_64")]
pub fn model_matches_fma() {
    use fastzk_field::ifma::avx2::Avx2;
    use rand::Rng;
    model_matches::<Avx2>("fma");
    fn products<F: IfmaField<W, L>, const W: usize, const L: usize>() {
        let mut rng = rng(L as u64);
        let p = F::IFMA.p;
        // Normalised limbs below 8p, edge limbs (0, 2^52 − 1, the modulus' own) mixed in.
        let lanes = |rng: &mut ChaCha20Rng| -> [[u64; 8]; L] {
            core::array::from_fn(|k| {
                core::array::from_fn(|_| {
                    let limb = match rng.gen_range(0..8) {
                        0 => 0,
                        1 => (1 << 52) - 1,
                        2 => p[k],
                        _ => rng.gen::<u64>() & ((1 << 52) - 1),
                    };
                    if k == L - 1 {
                        limb % (8 * p[L - 1])
                    } else {
                        limb
                    }
                })
            })
        };
        for case in 0..5000 {
            let (a, b) = (lanes(&mut rng), lanes(&mut rng));
            // SAFETY: the caller checked AVX2 and FMA; the model runs anywhere.
            unsafe {
                let (km, kh) = (
                    VecModulus::<Model, L>::new(&F::IFMA),
                    VecModulus::<Avx2, L>::new(&F::IFMA),
                );
                let (ma, mb) = (a.map(Model), b.map(Model));
                let (ha, hb) = (
                    a.map(|v| Avx2::from_array(v)),
                    b.map(|v| Avx2::from_array(v)),
                );
                let want = ifma::mul(&ma, &mb, &km).map(|v| v.0);
                let got = ifma::mul(&ha, &hb, &kh).map(|v| v.to_array());
                assert_eq!(got, want, "product, {L} limbs, case {case}");
                let want_sq = ifma::square(&ma, &km).map(|v| v.0);
                let got = ifma::square(&ha, &kh).map(|v| v.to_array());
                assert_eq!(got, want_sq, "square, {L} limbs, case {case}");
                // The paired forms, each half against the single product or square.
                let [ab, ba] = ifma::mul2([&ha, &hb], [&hb, &ha], &kh);
                let [sa, sb] = ifma::square2(&ha, &hb, &kh);
                let want_sb = ifma::square(&mb, &km).map(|v| v.0);
                assert_eq!(ab.map(|v| v.to_array()), want, "mul2 first, case {case}");
                assert_eq!(ba.map(|v| v.to_array()), want, "mul2 second, case {case}");
                assert_eq!(
                    sa.map(|v| v.to_array()),
                    want_sq,
                    "square2 first, case {case}"
                );
                assert_eq!(
                    sb.map(|v| v.to_array()),
                    want_sb,
                    "square2 second, case {case}"
                );
            }
        }
    }
    products::<fastzk_field::bn254::Fq, 4, 5>();
    products::<fastzk_field::bls12_381::Fq, 6, 8>();
}

/// Every operation of `Hw` against the model's, on random and edge inputs.
#[cfg(target_arch = "x86_64")]
fn model_matches<Hw: Avx512>(what: &'static str) {
    use rand::Rng;

    let same = |op: &str, a: [u64; 8], b: [u64; 8], hw: Hw, model: Model| {
        // SAFETY: the caller checked the CPU.
        let got = unsafe { hw.to_array() };
        assert_eq!(got, model.0, "{op}: {what} vs model, inputs {a:x?} {b:x?}");
    };
    let same_mask = |op: &str, a: [u64; 8], b: [u64; 8], hw: u8, model: u8| {
        assert_eq!(hw, model, "{op}: {what} vs model, inputs {a:x?} {b:x?}");
    };

    let mut rng = rng(52);
    for case in 0..20_000 {
        let (a, b, c) = (
            words(&mut rng, case),
            words(&mut rng, case + 1),
            words(&mut rng, case + 2),
        );
        let m: u8 = match case % 5 {
            0 => 0,
            1 => 0xff,
            _ => rng.gen(),
        };
        // SAFETY: the caller checked the CPU; the memory operations below address
        // their own buffers.
        unsafe {
            let (ha, hb, hc) = (Hw::from_array(a), Hw::from_array(b), Hw::from_array(c));
            let (ma, mb, mc) = (Model(a), Model(b), Model(c));
            same("from_array", a, b, ha, ma);
            same("zero", a, b, Hw::zero(), Model::zero());
            same("splat", a, b, Hw::splat(a[0]), Model::splat(a[0]));
            macro_rules! binary {
                ($($op:ident),*) => {$(
                    same(stringify!($op), a, b, Hw::$op(ha, hb), Model::$op(ma, mb));
                )*};
            }
            binary!(add, sub, and, or, andnot, srlv, sllv, mul_epu32);
            macro_rules! ternary {
                ($($op:ident),*) => {$(
                    same(stringify!($op), a, b, Hw::$op(ha, hb, hc), Model::$op(ma, mb, mc));
                )*};
            }
            ternary!(madd52lo, madd52hi, permutex2var);
            macro_rules! shifts {
                ($($n:literal),*) => {$(
                    same(concat!("srli ", $n), a, b, Hw::srli::<$n>(ha), Model::srli::<$n>(ma));
                    same(concat!("srai ", $n), a, b, Hw::srai::<$n>(ha), Model::srai::<$n>(ma));
                )*};
            }
            shifts!(0, 1, 12, 31, 52, 63, 64, 100);
            macro_rules! masks {
                ($($op:ident),*) => {$(
                    same_mask(stringify!($op), a, b, Hw::$op(ha, hb), Model::$op(ma, mb));
                    same_mask(stringify!($op), a, a, Hw::$op(ha, ha), Model::$op(ma, ma));
                )*};
            }
            masks!(cmplt_epi64, cmpeq, test);
            same("blend", a, b, Hw::blend(m, ha, hb), Model::blend(m, ma, mb));

            // Memory: unaligned loads and stores, u32 loads, gathers and scatters at
            // arbitrary byte offsets (overlapping ones included) under the mask.
            let mut bytes = [0u8; 256];
            rng.fill(&mut bytes[..]);
            let base = bytes.as_ptr().add(8);
            let off = (case % 8) as isize;
            same(
                "load",
                a,
                b,
                Hw::load(base.offset(off) as *const Hw),
                Model::load(base.offset(off) as *const Model),
            );
            same(
                "load_u32",
                a,
                b,
                Hw::load_u32(base.offset(off) as *const u32),
                Model::load_u32(base.offset(off) as *const u32),
            );
            let offsets: [u64; 8] = core::array::from_fn(|l| {
                if case % 3 == 0 && l % 2 == 1 {
                    (l as u64 - 1) * 7 // every other lane repeats its neighbour's offset
                } else {
                    rng.gen_range(0..200)
                }
            });
            let src = Model(words(&mut rng, case));
            same(
                "gather",
                offsets,
                src.0,
                Hw::gather(Hw::from_array(src.0), m, Hw::from_array(offsets), base),
                Model::gather(src, m, Model(offsets), base),
            );
            // A negative offset: base + 8 − 8 is the buffer's start.
            let back = [-8i64 as u64; 8];
            same(
                "gather (negative offset)",
                back,
                src.0,
                Hw::gather(Hw::zero(), 0xff, Hw::from_array(back), base),
                Model::gather(Model::zero(), 0xff, Model(back), base),
            );
            let (mut hw_mem, mut model_mem) = (bytes, bytes);
            Hw::scatter(hw_mem.as_mut_ptr().add(8), m, Hw::from_array(offsets), ha);
            Model::scatter(model_mem.as_mut_ptr().add(8), m, Model(offsets), ma);
            assert_eq!(
                hw_mem, model_mem,
                "scatter: offsets {offsets:?} mask {m:#x}"
            );
            let (mut hw_out, mut model_out) = ([0u8; 72], [0u8; 72]);
            ha.store(hw_out.as_mut_ptr().offset(off) as *mut Hw);
            ma.store(model_out.as_mut_ptr().offset(off) as *mut Model);
            assert_eq!(hw_out, model_out, "store");
        }
    }
}
