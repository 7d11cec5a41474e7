//! Round 3's points off `H` on eight AVX-512 IFMA lanes, for BN254: the loop of
//! [`crate::quotient::off_h_points`] eight points at a time (BLS12-381 and CPUs without
//! IFMA keep that loop; it also takes each block's last `len mod 8` points).
//!
//! Values are read in the scalar Montgomery form and brought to IFMA form with one
//! product each (the IFMA form of `x` is the scalar form of `x·2^4`, see
//! `fastzk_field::ifma`); products of IFMA-form values are in IFMA form, and the product
//! of an IFMA-form value with a scalar-form constant is in scalar form, which is how the
//! numerator leaves (times one). Between products values stay below `2p` (each sum is
//! reduced before it is multiplied or added again).
//!
//! The lanes are x86-64's: elsewhere (ARM64) the entry points return 0 before reaching
//! them, and only the tests on the software model run the lane code.
#![cfg_attr(
    not(target_arch = "x86_64"),
    allow(dead_code, unreachable_code, unused_variables)
)]

use core::any::TypeId;

use fastzk_field::bn254::Fr;
use fastzk_field::ifma::ntt::{load8, store8};
use fastzk_field::ifma::{self, add, canonicalize, mul, reduce_once, sub, to_radix52};
use fastzk_field::ifma::{Avx512, IfmaField, Lanes, VecModulus};
use fastzk_field::Field;

use crate::quotient::{OffH, OffHBlock};

type Limbs = [u64; 5];
type X<V> = Lanes<V, 5>;

/// The coset's constants as limbs: IFMA form unless named scalar.
struct Consts {
    alpha: Limbs,
    beta: Limbs,
    gamma: Limbs,
    k1b: Limbs,
    k2b: Limbs,
    omega8: Limbs,
    one: Limbs,
    l1c: Limbs,
    /// The first eight points, IFMA form.
    x: [Fr; 8],
}

fn ifma_limbs(x: Fr) -> Limbs {
    to_radix52(&x.to_ifma().raw_limbs())
}

impl Consts {
    fn new(k: &OffH<Fr>, x0: Fr) -> Self {
        let mut x = [Fr::ZERO; 8];
        let mut xi = x0;
        for v in &mut x {
            *v = xi.to_ifma();
            xi *= k.omega;
        }
        Self {
            alpha: ifma_limbs(k.alpha),
            beta: ifma_limbs(k.beta),
            gamma: ifma_limbs(k.gamma),
            k1b: ifma_limbs(k.k1.times(k.beta)),
            k2b: ifma_limbs(k.k2.times(k.beta)),
            omega8: ifma_limbs(k.omega.pow_u64(8)),
            one: ifma_limbs(Fr::ONE),
            l1c: ifma_limbs(k.l1c),
            x,
        }
    }
}

/// The block's rows as words (`Fr` is `repr(transparent)` over four words).
struct Rows {
    q: [*const u64; 5],
    s: [*const u64; 3],
    b: *const u64,
    c: *const u64,
    z: *const u64,
    zw: *const u64,
    inv0: *const u64,
    pi: Option<*const u64>,
    oa: *mut u64,
}

/// The points `0 .. len − len mod 8` of the block on the lanes, when the field is
/// BN254's `Fr` and the CPU has IFMA; returns how many points it took (0 otherwise).
pub(crate) fn off_h_points<F: Field>(k: &OffH<F>, blk: &OffHBlock<'_, F>, oa: &mut [F]) -> usize {
    if TypeId::of::<F>() != TypeId::of::<Fr>() || !ifma::is_supported() {
        return 0;
    }
    // SAFETY: `F` is `Fr` (equal type ids), so these are the same types.
    let (k, blk) = unsafe {
        (
            &*(k as *const OffH<F> as *const OffH<Fr>),
            &*(blk as *const OffHBlock<'_, F> as *const OffHBlock<'_, Fr>),
        )
    };
    let len = oa.len() & !7;
    if len == 0 {
        return 0;
    }
    let (consts, rows) = prepare(k, blk, oa.as_mut_ptr() as *mut u64, len);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: IFMA is present (checked above); `prepare` checked that every row holds
    // `len` elements.
    unsafe {
        points_avx512(&consts, &rows, len)
    };
    #[cfg(not(target_arch = "x86_64"))]
    return 0;
    len
}

/// The constants and the rows' words, after checking that every row has `len` points.
fn prepare(k: &OffH<Fr>, blk: &OffHBlock<'_, Fr>, oa: *mut u64, len: usize) -> (Consts, Rows) {
    check_rows(blk, len);
    assert!(blk.inv0.len() >= len, "the block's 1/(x − 1) row is short");
    assert!(
        blk.pi.is_empty() || blk.pi.len() >= len,
        "PI's row is short"
    );
    let w = |r: &[Fr]| r.as_ptr() as *const u64;
    (
        Consts::new(k, blk.x0),
        Rows {
            q: blk.q.map(w),
            s: blk.s.map(w),
            b: w(blk.b),
            c: w(blk.c),
            z: w(blk.z),
            zw: w(blk.zw),
            inv0: w(blk.inv0),
            pi: (!blk.pi.is_empty()).then(|| w(blk.pi)),
            oa,
        },
    )
}

/// Every row the lanes read or write holds at least `len` points.
fn check_rows<F>(blk: &OffHBlock<'_, F>, len: usize) {
    let rows = [
        blk.q.as_slice(),
        blk.s.as_slice(),
        &[blk.b, blk.c, blk.z, blk.zw],
    ];
    assert!(
        rows.iter().flat_map(|r| r.iter()).all(|r| r.len() >= len),
        "a row of the quotient's block is shorter than the block"
    );
}

/// [`points`] on the CPU's instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn points_avx512(k: &Consts, r: &Rows, len: usize) {
    points::<core::arch::x86_64::__m512i>(k, r, len)
}

// Everything below is `inline(always)` and free of closures (a closure does not inherit
// the entry point's target features, so its intrinsics would not inline).

/// A value below `4p` brought below `2p`.
#[inline(always)]
unsafe fn r2<V: Avx512>(x: &X<V>, m: &VecModulus<V, 5>) -> X<V> {
    reduce_once(x, &m.two_p)
}

/// A value below `8p` brought below `2p`.
#[inline(always)]
unsafe fn shrink<V: Avx512>(x: &X<V>, m: &VecModulus<V, 5>) -> X<V> {
    reduce_once(&reduce_once(x, &m.four_p), &m.two_p)
}

/// `a + b` for `a, b < 2p`, below `2p`.
#[inline(always)]
unsafe fn add2<V: Avx512>(a: &X<V>, b: &X<V>, m: &VecModulus<V, 5>) -> X<V> {
    r2(&add(a, b), m)
}

/// Eight elements at `p + o` words, scalar form in memory, into IFMA form.
#[inline(always)]
unsafe fn read<V: Avx512>(p: *const u64, o: usize, m: &VecModulus<V, 5>) -> X<V> {
    mul(&load8::<V>(p.add(o)), &m.to_factor, m)
}

/// The wire-independent parts of one group of points, all below `2p`.
struct Point<V> {
    qm: X<V>,
    ql: X<V>,
    qr: X<V>,
    qo: X<V>,
    /// `PI(x) + q_C`.
    piqc: X<V>,
    id: [X<V>; 3],
    sigma: [X<V>; 3],
    l1a: X<V>,
    alpha: X<V>,
}

/// The numerator at eight points of wire values `a, b, c, αz, αz(xω)` (each below `2p`),
/// below `2p`.
#[inline(always)]
unsafe fn numerator<V: Avx512>(pt: &Point<V>, w: [&X<V>; 5], m: &VecModulus<V, 5>) -> X<V> {
    let [a, b, c, z, zw] = w;
    let ab = mul(a, b, m);
    let e1 = add(
        &add(&mul(&ab, &pt.qm, m), &mul(a, &pt.ql, m)),
        &add(&mul(b, &pt.qr, m), &mul(c, &pt.qo, m)),
    );
    let e1 = add2(&shrink(&e1, m), &pt.piqc, m);
    let f01 = mul(&add(a, &pt.id[0]), &add(b, &pt.id[1]), m);
    let e2 = mul(&f01, &mul(&add(c, &pt.id[2]), z, m), m);
    let g01 = mul(&add(a, &pt.sigma[0]), &add(b, &pt.sigma[1]), m);
    let e3 = mul(&g01, &mul(&add(c, &pt.sigma[2]), zw, m), m);
    let d = r2(&sub(&e2, &e3, &m.two_p), m);
    let l = mul(&sub(z, &pt.alpha, &m.two_p), &pt.l1a, m);
    shrink(&add(&add(&e1, &d), &l), m)
}

/// `(b·x + a)` below `2p`.
#[inline(always)]
unsafe fn affine<V: Avx512>(b: &X<V>, x: &X<V>, a: &X<V>, m: &VecModulus<V, 5>) -> X<V> {
    add2(&mul(b, x, m), a, m)
}

#[inline(always)]
unsafe fn points<V: Avx512>(k: &Consts, r: &Rows, len: usize) {
    let m = VecModulus::<V, 5>::new(&<Fr as IfmaField<4, 5>>::IFMA);
    let splat = ifma::splat::<V, 5>;
    let (alpha, beta, gamma) = (splat(&k.alpha), splat(&k.beta), splat(&k.gamma));
    let (k1b, k2b) = (splat(&k.k1b), splat(&k.k2b));
    let (omega8, one, l1c) = (splat(&k.omega8), splat(&k.one), splat(&k.l1c));
    let mut x: X<V> = ifma::load::<V, Fr, 4, 5>(&k.x);
    for g in 0..len / 8 {
        let o = 32 * g;
        let qc = read(r.q[4], o, &m);
        let piqc = match r.pi {
            Some(p) => add2(&read(p, o, &m), &qc, &m),
            None => qc,
        };
        let mut sigma = [one; 3];
        for (i, s) in sigma.iter_mut().enumerate() {
            *s = affine(&beta, &read(r.s[i], o, &m), &gamma, &m);
        }
        let pt = Point {
            qm: read(r.q[0], o, &m),
            ql: read(r.q[1], o, &m),
            qr: read(r.q[2], o, &m),
            qo: read(r.q[3], o, &m),
            piqc,
            id: [
                affine(&beta, &x, &gamma, &m),
                affine(&k1b, &x, &gamma, &m),
                affine(&k2b, &x, &gamma, &m),
            ],
            sigma,
            l1a: mul(&read(r.inv0, o, &m), &l1c, &m),
            alpha,
        };
        let a = read(r.oa, o, &m);
        let b = read(r.b, o, &m);
        let c = read(r.c, o, &m);
        let z = read(r.z, o, &m);
        let zw = read(r.zw, o, &m);
        let full = numerator(&pt, [&a, &b, &c, &z, &zw], &m);
        store8(
            r.oa.add(o),
            &canonicalize(&mul(&full, &m.from_factor, &m), &m),
        );
        x = mul(&x, &omega8, &m);
    }
}

/// Whether the lanes run for `F`: BN254's `Fr` on a CPU with IFMA.
pub(crate) fn lanes_for<F: Field>() -> bool {
    TypeId::of::<F>() == TypeId::of::<Fr>() && ifma::is_supported()
}

/// `F`'s slice as `Fr`'s, when [`lanes_for`] said they are the same type.
fn words<F: Field>(x: &[F]) -> *const u64 {
    debug_assert_eq!(TypeId::of::<F>(), TypeId::of::<Fr>());
    x.as_ptr() as *const u64
}

/// An element of `F` as `Fr`, when [`lanes_for`] said they are the same type.
fn as_fr<F: Field>(x: F) -> Fr {
    assert_eq!(
        TypeId::of::<F>(),
        TypeId::of::<Fr>(),
        "only BN254's Fr runs on the lanes"
    );
    // SAFETY: the same type (checked above).
    unsafe { core::mem::transmute_copy(&x) }
}

/// `x0·stepˡ` for `l < 8`, IFMA form, and `step⁸` as IFMA limbs.
fn powers(x0: Fr, step: Fr) -> ([Fr; 8], Limbs) {
    let mut p = [Fr::ZERO; 8];
    let mut x = x0;
    for v in &mut p {
        *v = x.to_ifma();
        x *= step;
    }
    (p, ifma_limbs(step.pow_u64(8)))
}

/// `out[i] = src[i]·s0·stepⁱ` on the lanes for the first `out.len() − out.len() mod 8`
/// points (`src` at least as long), when the field is BN254's `Fr` and the CPU has IFMA;
/// returns how many points it took (0 otherwise).
pub(crate) fn scaled_by_powers<F: Field>(out: &mut [F], src: &[F], s0: F, step: F) -> usize {
    let len = out.len() & !7;
    if !lanes_for::<F>() || len == 0 {
        return 0;
    }
    assert!(src.len() >= len, "the source is shorter than the output");
    let (start, step8) = powers(as_fr(s0), as_fr(step));
    #[cfg(target_arch = "x86_64")]
    // SAFETY: IFMA is present (`lanes_for`); both rows hold `len` elements of `Fr`.
    unsafe {
        scaled_avx512(
            out.as_mut_ptr() as *mut u64,
            words(src),
            len,
            &start,
            &step8,
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    return 0;
    len
}

/// `x[i] *= s0·stepⁱ` in place on the lanes, as [`scaled_by_powers`]; returns how many
/// points it took.
pub(crate) fn scale_by_powers_in_place<F: Field>(x: &mut [F], s0: F, step: F) -> usize {
    let len = x.len() & !7;
    if !lanes_for::<F>() || len == 0 {
        return 0;
    }
    let (start, step8) = powers(as_fr(s0), as_fr(step));
    let row = x.as_mut_ptr() as *mut u64;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: IFMA is present (`lanes_for`); the row holds `len` elements of `Fr`, and
    // each group of eight is loaded before it is stored.
    unsafe {
        scaled_avx512(row, row, len, &start, &step8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    return 0;
    len
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn scaled_avx512(
    out: *mut u64,
    src: *const u64,
    len: usize,
    start: &[Fr; 8],
    step8: &Limbs,
) {
    scaled::<core::arch::x86_64::__m512i>(out, src, len, start, step8)
}

#[inline(always)]
unsafe fn scaled<V: Avx512>(
    out: *mut u64,
    src: *const u64,
    len: usize,
    start: &[Fr; 8],
    step8: &Limbs,
) {
    let m = VecModulus::<V, 5>::new(&<Fr as IfmaField<4, 5>>::IFMA);
    let step8 = ifma::splat::<V, 5>(step8);
    let mut u: X<V> = ifma::load::<V, Fr, 4, 5>(start);
    for g in 0..len / 8 {
        let o = 32 * g;
        // Scalar form times IFMA form is scalar form.
        store8(
            out.add(o),
            &canonicalize(&mul(&load8::<V>(src.add(o)), &u, &m), &m),
        );
        u = mul(&u, &step8, &m);
    }
}

#[cfg(test)]
mod tests {
    use fastzk_field::ifma::Model;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    use super::*;
    use crate::quotient::off_h_points as scalar;

    /// Random or edge elements (zero, one, −1) at every fifth place.
    fn row(rng: &mut ChaCha20Rng, len: usize) -> Vec<Fr> {
        let edges = [Fr::ZERO, Fr::ONE, -Fr::ONE];
        (0..len)
            .map(|i| {
                if i % 5 == 2 {
                    edges[i / 5 % 3]
                } else {
                    Fr::random(&mut *rng)
                }
            })
            .collect()
    }

    /// Random constants; `small`: snarkjs' k₁ = 2, k₂ = 3 (added, not multiplied).
    fn constants(rng: &mut ChaCha20Rng, small: bool) -> OffH<Fr> {
        use crate::quotient::KeyFactor;
        let mut r = || Fr::random(&mut *rng);
        let (k1, k2) = if small {
            (Fr::from_u64(2), Fr::from_u64(3))
        } else {
            (r(), r())
        };
        OffH {
            alpha: r(),
            beta: r(),
            gamma: r(),
            k1: KeyFactor::of(k1),
            k2: KeyFactor::of(k2),
            omega: r(),
            l1c: r(),
        }
    }

    /// The lanes (on the model, and on the CPU when it has IFMA) against the scalar loop,
    /// with and without public inputs, and a block whose length is not a multiple of
    /// eight (its tail goes to the scalar loop).
    #[test]
    fn lanes_match_the_scalar_points() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        for case in 0..12 {
            let len = if case % 3 == 2 { 29 } else { 24 };
            let k = constants(&mut rng, case % 4 < 2);
            let q: Vec<Vec<Fr>> = (0..5).map(|_| row(&mut rng, len)).collect();
            let s: Vec<Vec<Fr>> = (0..3).map(|_| row(&mut rng, len)).collect();
            let [b, c, z, zw, inv0] = [0; 5].map(|_| row(&mut rng, len));
            let pi = if case % 2 == 0 {
                row(&mut rng, len)
            } else {
                Vec::new()
            };
            // The lanes step x from x0; the scalar loop reads βx.
            let x0 = Fr::random(&mut rng);
            let bx: Vec<Fr> = (0..len)
                .map(|i| k.beta * x0 * k.omega.pow_u64(i as u64))
                .collect();
            let blk = OffHBlock {
                q: [&q[0][..], &q[1], &q[2], &q[3], &q[4]],
                s: [&s[0][..], &s[1], &s[2]],
                b: &b,
                c: &c,
                z: &z,
                zw: &zw,
                bx: &bx,
                inv0: &inv0,
                pi: &pi,
                x0,
            };
            let a = row(&mut rng, len);
            let mut want = a.clone();
            scalar(&k, &blk, &mut want);

            let mut got = a.clone();
            let lanes = len & !7;
            let (consts, rows) = prepare(&k, &blk, got.as_mut_ptr() as *mut u64, lanes);
            // SAFETY: the model runs anywhere; `prepare` checked the rows.
            unsafe { points::<Model>(&consts, &rows, lanes) };
            assert_eq!(got[..lanes], want[..lanes], "on the model, case {case}");
            assert_eq!(got[lanes..], a[lanes..], "past the lanes, case {case}");

            // The dispatcher: all of it on the CPU's lanes when there are some, the tail
            // on the scalar loop.
            let mut got = a.clone();
            let done = off_h_points(&k, &blk, &mut got);
            assert_eq!(done, if ifma::is_supported() { lanes } else { 0 });
            scalar(&k, &blk.from(done, k.omega), &mut got[done..]);
            assert_eq!(got, want, "case {case}");
        }
    }

    /// The coset scaling, out of place and in place, on the model (and through the
    /// dispatchers on the CPU when it has IFMA) against the plain formula.
    #[test]
    fn scaling_matches_the_formula() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        for case in 0..6 {
            let len = 16 + 8 * case;
            let (s0, step) = (Fr::random(&mut rng), Fr::random(&mut rng));
            let src = row(&mut rng, len);
            let want: Vec<Fr> = (0..len)
                .map(|i| src[i] * s0 * step.pow_u64(i as u64))
                .collect();
            let mut got = vec![Fr::ZERO; len];
            let (start, step8) = powers(s0, step);
            // SAFETY: the model runs anywhere; both rows hold `len` elements.
            unsafe {
                scaled::<Model>(
                    got.as_mut_ptr() as *mut u64,
                    words(&src),
                    len,
                    &start,
                    &step8,
                )
            };
            assert_eq!(got, want, "scaled on the model, case {case}");
            let mut got = src.clone();
            let p = got.as_mut_ptr() as *mut u64;
            // SAFETY: as above, with the row as its own source.
            unsafe { scaled::<Model>(p, p, len, &start, &step8) };
            assert_eq!(got, want, "scaled in place on the model, case {case}");

            let mut got = vec![Fr::ZERO; len];
            let done = scaled_by_powers(&mut got, &src, s0, step);
            assert_eq!(got[..done], want[..done], "scaled, case {case}");
            let mut got = src.clone();
            let done = scale_by_powers_in_place(&mut got, s0, step);
            assert_eq!(done, if ifma::is_supported() { len } else { 0 });
            assert_eq!(got[..done], want[..done], "scaled in place, case {case}");
            assert_eq!(got[done..], src[done..], "past the lanes, case {case}");
        }
    }
}
