//! Round 3's points off `H` on eight AVX-512 IFMA lanes, for BN254: the loop of
//! [`crate::quotient::off_h_points`] eight points at a time (BLS12-381 and CPUs without
//! IFMA keep that loop; it also takes each block's last `len mod 8` points).
//!
//! Values are read in the scalar Montgomery form and brought to IFMA form with one
//! product each (the IFMA form of `x` is the scalar form of `x·2^4`, see
//! `fastzk_field::ifma`); products of IFMA-form values are in IFMA form, and the product
//! of an IFMA-form value with a scalar-form constant is in scalar form, which is how the
//! two results leave (`t` times one, `tz`'s difference times `1/Z_H`). Between products
//! values stay below `2p` (each sum is reduced before it is multiplied or added again).

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
    omega: Limbs,
    omega8: Limbs,
    one: Limbs,
    l1c: Limbs,
    bz: [Limbs; 10],
    /// `1/Z_H` in scalar form: an IFMA-form value times it is the scalar form of the
    /// product.
    zh_inv_scalar: Limbs,
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
            k1b: ifma_limbs(k.k1b),
            k2b: ifma_limbs(k.k2b),
            omega: ifma_limbs(k.omega),
            omega8: ifma_limbs(k.omega.pow_u64(8)),
            one: ifma_limbs(Fr::ONE),
            l1c: ifma_limbs(k.l1c),
            bz: k.bz.map(ifma_limbs),
            zh_inv_scalar: to_radix52(&k.zh_inv.raw_limbs()),
            x,
        }
    }
}

/// The block's rows as words (`Fr` is `repr(transparent)` over four words).
struct Rows {
    q: [*const u64; 5],
    s: [*const u64; 3],
    c: *const u64,
    z: *const u64,
    zw: *const u64,
    inv0: *const u64,
    pi: Option<*const u64>,
    oa: *mut u64,
    ob: *mut u64,
}

/// The points `0 .. len − len mod 8` of the block on the lanes, when the field is
/// BN254's `Fr` and the CPU has IFMA; returns how many points it took (0 otherwise).
pub(crate) fn off_h_points<F: Field>(
    k: &OffH<F>,
    blk: &OffHBlock<'_, F>,
    oa: &mut [F],
    ob: &mut [F],
) -> usize {
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
    let (consts, rows) = prepare(
        k,
        blk,
        oa.as_mut_ptr() as *mut u64,
        ob.as_mut_ptr() as *mut u64,
        len,
        ob.len(),
    );
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
fn prepare(
    k: &OffH<Fr>,
    blk: &OffHBlock<'_, Fr>,
    oa: *mut u64,
    ob: *mut u64,
    len: usize,
    ob_len: usize,
) -> (Consts, Rows) {
    check_rows(blk, len, ob_len);
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
            c: w(blk.c),
            z: w(blk.z),
            zw: w(blk.zw),
            inv0: w(blk.inv0),
            pi: (!blk.pi.is_empty()).then(|| w(blk.pi)),
            oa,
            ob,
        },
    )
}

/// Every row the lanes read or write holds at least `len` points.
fn check_rows<F>(blk: &OffHBlock<'_, F>, len: usize, ob_len: usize) {
    let rows = [blk.q.as_slice(), blk.s.as_slice(), &[blk.c, blk.z, blk.zw]];
    assert!(
        rows.iter().flat_map(|r| r.iter()).all(|r| r.len() >= len) && ob_len >= len,
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

/// `a − b` for `a, b < 2p`, below `2p`.
#[inline(always)]
unsafe fn sub2<V: Avx512>(a: &X<V>, b: &X<V>, m: &VecModulus<V, 5>) -> X<V> {
    r2(&sub(a, b, &m.two_p), m)
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
    one: X<V>,
}

/// The numerator at eight points of wire values `a, b, c, z, z(xω)` (each below `2p`),
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
    let d = mul(&sub(&e2, &e3, &m.two_p), &pt.alpha, m);
    let l = mul(&sub(z, &pt.one, &m.two_p), &pt.l1a, m);
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
    let (omega, omega8, one, l1c) = (
        splat(&k.omega),
        splat(&k.omega8),
        splat(&k.one),
        splat(&k.l1c),
    );
    let zh_inv = splat(&k.zh_inv_scalar);
    let mut bz = [splat(&k.bz[0]); 10];
    for (i, b) in bz.iter_mut().enumerate() {
        *b = splat(&k.bz[i]);
    }
    let mut x: X<V> = ifma::load::<V, Fr, 4, 5>(&k.x);
    for g in 0..len / 8 {
        let o = 32 * g;
        let qc = read(r.q[4], o, &m);
        let piqc = match r.pi {
            Some(p) => add2(&read(p, o, &m), &qc, &m),
            None => qc,
        };
        let xw = mul(&x, &omega, &m);
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
            one,
        };
        let a = read(r.oa, o, &m);
        let b = read(r.ob, o, &m);
        let c = read(r.c, o, &m);
        let z = read(r.z, o, &m);
        let zw = read(r.zw, o, &m);
        let zp = affine(&affine(&bz[7], &x, &bz[8], &m), &x, &bz[9], &m);
        let zwp = affine(&affine(&bz[7], &xw, &bz[8], &m), &xw, &bz[9], &m);
        let ua = sub2(&a, &affine(&bz[1], &x, &bz[2], &m), &m);
        let ub = sub2(&b, &affine(&bz[3], &x, &bz[4], &m), &m);
        let uc = sub2(&c, &affine(&bz[5], &x, &bz[6], &m), &m);
        let uz = sub2(&z, &zp, &m);
        let uzw = sub2(&zw, &zwp, &m);
        let t = numerator(&pt, [&ua, &ub, &uc, &uz, &uzw], &m);
        let full = numerator(&pt, [&a, &b, &c, &z, &zw], &m);
        let tz = mul(&sub(&full, &t, &m.two_p), &zh_inv, &m);
        store8(r.oa.add(o), &canonicalize(&mul(&t, &m.from_factor, &m), &m));
        store8(r.ob.add(o), &canonicalize(&tz, &m));
        x = mul(&x, &omega8, &m);
    }
}

/// The constants of the points on `H` (IFMA-form limbs): the challenges, `ω`, and the
/// blinding scalars `b₁ … b₉` themselves (index 0 unused).
pub(crate) struct OnH<F> {
    pub alpha: F,
    pub beta: F,
    pub gamma: F,
    pub k1b: F,
    pub k2b: F,
    pub omega: F,
    pub b: [F; 10],
}

/// The points of `H` in `blk` (whose `inv0` and `pi` are unused: the caller keeps the
/// points where `L₁` or `PI` is not zero for its own loop) on the lanes, eight at a
/// time, while every gate and the whole numerator vanish there: `oa` gets zero and `ob`
/// `tz` (the first-order terms of the blinded products), as the prover's loop on `H`
/// computes them. Returns how many points it took: all but `len mod 8` unless a group
/// fails a check, which the caller's loop then finds and names; 0 when the field is not
/// BN254's `Fr` or the CPU has no IFMA.
pub(crate) fn on_h_points<F: Field>(
    k: &OnH<F>,
    blk: &OffHBlock<'_, F>,
    oa: &mut [F],
    ob: &mut [F],
) -> usize {
    let len = oa.len() & !7;
    if !lanes_for::<F>() || len == 0 {
        return 0;
    }
    check_rows(blk, len, ob.len());
    let (x, omega8) = powers(as_fr(blk.x0), as_fr(k.omega));
    let l = |v: F| ifma_limbs(as_fr(v));
    let consts = HConsts {
        alpha: l(k.alpha),
        beta: l(k.beta),
        gamma: l(k.gamma),
        k1b: l(k.k1b),
        k2b: l(k.k2b),
        omega: l(k.omega),
        omega8,
        b: k.b.map(l),
        x,
    };
    let rows = HRows {
        q: blk.q.map(words),
        s: blk.s.map(words),
        c: words(blk.c),
        z: words(blk.z),
        zw: words(blk.zw),
        oa: oa.as_mut_ptr() as *mut u64,
        ob: ob.as_mut_ptr() as *mut u64,
    };
    #[cfg(target_arch = "x86_64")]
    // SAFETY: IFMA is present (`lanes_for`); every row holds `len` elements (checked).
    return unsafe { on_h_avx512(&consts, &rows, len) };
    #[cfg(not(target_arch = "x86_64"))]
    0
}

struct HConsts {
    alpha: Limbs,
    beta: Limbs,
    gamma: Limbs,
    k1b: Limbs,
    k2b: Limbs,
    omega: Limbs,
    omega8: Limbs,
    b: [Limbs; 10],
    x: [Fr; 8],
}

struct HRows {
    q: [*const u64; 5],
    s: [*const u64; 3],
    c: *const u64,
    z: *const u64,
    zw: *const u64,
    oa: *mut u64,
    ob: *mut u64,
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn on_h_avx512(k: &HConsts, r: &HRows, len: usize) -> usize {
    on_h::<core::arch::x86_64::__m512i>(k, r, len)
}

/// Lanes where a value below `2p` is zero modulo `p`.
#[inline(always)]
unsafe fn zero_lanes<V: Avx512>(x: &X<V>, m: &VecModulus<V, 5>) -> u8 {
    let w: [V; 4] = ifma::join::<V, 4, 5>(&canonicalize(x, m));
    let z = [V::zero(); 4];
    ifma::eq_words::<V, 4>(&w, &z)
}

/// `Σₖ yₖ·Π_{j≠k} fⱼ` (as `quotient::first_order`), below `2p`.
#[inline(always)]
unsafe fn first_order_lanes<V: Avx512>(f: [&X<V>; 4], y: [&X<V>; 4], m: &VecModulus<V, 5>) -> X<V> {
    let (p01, p23) = (mul(f[0], f[1], m), mul(f[2], f[3], m));
    let l = add2(&mul(y[0], f[1], m), &mul(f[0], y[1], m), m);
    let r = add2(&mul(y[2], f[3], m), &mul(f[2], y[3], m), m);
    add2(&mul(&l, &p23, m), &mul(&p01, &r, m), m)
}

#[inline(always)]
unsafe fn on_h<V: Avx512>(k: &HConsts, r: &HRows, len: usize) -> usize {
    let m = VecModulus::<V, 5>::new(&<Fr as IfmaField<4, 5>>::IFMA);
    let splat = ifma::splat::<V, 5>;
    let (alpha, beta, gamma) = (splat(&k.alpha), splat(&k.beta), splat(&k.gamma));
    let (k1b, k2b) = (splat(&k.k1b), splat(&k.k2b));
    let (omega, omega8) = (splat(&k.omega), splat(&k.omega8));
    let mut b = [alpha; 10];
    for (i, v) in b.iter_mut().enumerate() {
        *v = splat(&k.b[i]);
    }
    let zero = [V::zero(); 5];
    let mut x: X<V> = ifma::load::<V, Fr, 4, 5>(&k.x);
    for g in 0..len / 8 {
        let o = 32 * g;
        let a = read(r.oa, o, &m);
        let bb = read(r.ob, o, &m);
        let c = read(r.c, o, &m);
        let z = read(r.z, o, &m);
        let zw = read(r.zw, o, &m);
        let (qm, ql, qr) = (
            read(r.q[0], o, &m),
            read(r.q[1], o, &m),
            read(r.q[2], o, &m),
        );
        let (qo, qc) = (read(r.q[3], o, &m), read(r.q[4], o, &m));
        let e1 = add(
            &add(&mul(&mul(&a, &bb, &m), &qm, &m), &mul(&a, &ql, &m)),
            &add(&mul(&bb, &qr, &m), &mul(&c, &qo, &m)),
        );
        let e1 = add2(&shrink(&e1, &m), &qc, &m);
        let f = [
            add2(&a, &affine(&beta, &x, &gamma, &m), &m),
            add2(&bb, &affine(&k1b, &x, &gamma, &m), &m),
            add2(&c, &affine(&k2b, &x, &gamma, &m), &m),
        ];
        let g3 = [
            add2(&a, &affine(&beta, &read(r.s[0], o, &m), &gamma, &m), &m),
            add2(&bb, &affine(&beta, &read(r.s[1], o, &m), &gamma, &m), &m),
            add2(&c, &affine(&beta, &read(r.s[2], o, &m), &gamma, &m), &m),
        ];
        let e2 = mul(&mul(&f[0], &f[1], &m), &mul(&f[2], &z, &m), &m);
        let e3 = mul(&mul(&g3[0], &g3[1], &m), &mul(&g3[2], &zw, &m), &m);
        let t = add2(&e1, &mul(&sub(&e2, &e3, &m.two_p), &alpha, &m), &m);
        if zero_lanes(&e1, &m) != 0xff || zero_lanes(&t, &m) != 0xff {
            return 8 * g;
        }
        let xw = mul(&x, &omega, &m);
        let ap = affine(&b[1], &x, &b[2], &m);
        let bp = affine(&b[3], &x, &b[4], &m);
        let cp = affine(&b[5], &x, &b[6], &m);
        let zp = affine(&affine(&b[7], &x, &b[8], &m), &x, &b[9], &m);
        let zwp = affine(&affine(&b[7], &xw, &b[8], &m), &xw, &b[9], &m);
        let lin = add2(&mul(&ap, &bb, &m), &mul(&a, &bp, &m), &m);
        let e1z = add2(
            &add2(&mul(&lin, &qm, &m), &mul(&ap, &ql, &m), &m),
            &add2(&mul(&bp, &qr, &m), &mul(&cp, &qo, &m), &m),
            &m,
        );
        let e2z = first_order_lanes([&f[0], &f[1], &f[2], &z], [&ap, &bp, &cp, &zp], &m);
        let e3z = first_order_lanes([&g3[0], &g3[1], &g3[2], &zw], [&ap, &bp, &cp, &zwp], &m);
        let tz = add2(&e1z, &mul(&sub(&e2z, &e3z, &m.two_p), &alpha, &m), &m);
        store8(r.oa.add(o), &zero);
        store8(
            r.ob.add(o),
            &canonicalize(&mul(&tz, &m.from_factor, &m), &m),
        );
        x = mul(&x, &omega8, &m);
    }
    len
}

/// Whether the lanes run for `F`: BN254's `Fr` on a CPU with IFMA.
fn lanes_for<F: Field>() -> bool {
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

/// `outs[l][i] += (w_tz[l]·tz[i] + w_t[l]·num[i])·u0·stepⁱ` (without the `num` term when
/// it is `None`) on the lanes, as [`scaled_by_powers`]; returns how many points it took.
pub(crate) fn accumulate_blocks<F: Field>(
    outs: [&mut [F]; 4],
    tz: &[F],
    num: Option<&[F]>,
    u0: F,
    step: F,
    w_tz: [F; 4],
    w_t: [F; 4],
) -> usize {
    let len = outs[0].len() & !7;
    if !lanes_for::<F>() || len == 0 {
        return 0;
    }
    assert!(
        outs.iter().all(|o| o.len() >= len)
            && tz.len() >= len
            && num.is_none_or(|v| v.len() >= len),
        "a row of the quotient's blocks is short"
    );
    let (start, step8) = powers(as_fr(u0), as_fr(step));
    let acc = Accumulate {
        outs: outs.map(|o| o.as_mut_ptr() as *mut u64),
        tz: words(tz),
        num: num.map(words),
        w_tz: w_tz.map(|w| ifma_limbs(as_fr(w))),
        w_t: w_t.map(|w| ifma_limbs(as_fr(w))),
        start,
        step8,
    };
    #[cfg(target_arch = "x86_64")]
    // SAFETY: IFMA is present (`lanes_for`); every row holds `len` elements (checked).
    unsafe {
        accumulate_avx512(&acc, len)
    };
    #[cfg(not(target_arch = "x86_64"))]
    return 0;
    len
}

/// [`accumulate_blocks`]' rows and constants.
struct Accumulate {
    outs: [*mut u64; 4],
    tz: *const u64,
    num: Option<*const u64>,
    w_tz: [Limbs; 4],
    w_t: [Limbs; 4],
    start: [Fr; 8],
    step8: Limbs,
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

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn accumulate_avx512(acc: &Accumulate, len: usize) {
    accumulate::<core::arch::x86_64::__m512i>(acc, len)
}

/// A value below `8p` brought below `p`.
#[inline(always)]
unsafe fn canonical8<V: Avx512>(x: &X<V>, m: &VecModulus<V, 5>) -> X<V> {
    reduce_once(&shrink(x, m), &m.p)
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

#[inline(always)]
unsafe fn accumulate<V: Avx512>(acc: &Accumulate, len: usize) {
    let m = VecModulus::<V, 5>::new(&<Fr as IfmaField<4, 5>>::IFMA);
    let step8 = ifma::splat::<V, 5>(&acc.step8);
    let mut w_tz = [m.one; 4];
    let mut w_t = [m.one; 4];
    for l in 0..4 {
        w_tz[l] = ifma::splat::<V, 5>(&acc.w_tz[l]);
        w_t[l] = ifma::splat::<V, 5>(&acc.w_t[l]);
    }
    let mut u: X<V> = ifma::load::<V, Fr, 4, 5>(&acc.start);
    for g in 0..len / 8 {
        let o = 32 * g;
        let y_tz = mul(&load8::<V>(acc.tz.add(o)), &u, &m);
        let y_t = match acc.num {
            Some(p) => Some(mul(&load8::<V>(p.add(o)), &u, &m)),
            None => None,
        };
        for l in 0..4 {
            let at = acc.outs[l].add(o);
            let mut v = add(&load8::<V>(at), &mul(&y_tz, &w_tz[l], &m));
            if let Some(y) = &y_t {
                v = add(&v, &mul(y, &w_t[l], &m));
            }
            store8(at, &canonical8(&v, &m));
        }
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

    fn constants(rng: &mut ChaCha20Rng, zero_blinding: bool) -> OffH<Fr> {
        let mut r = || Fr::random(&mut *rng);
        OffH {
            alpha: r(),
            beta: r(),
            gamma: r(),
            k1b: r(),
            k2b: r(),
            omega: r(),
            l1c: r(),
            zh_inv: r(),
            bz: core::array::from_fn(|_| if zero_blinding { Fr::ZERO } else { r() }),
        }
    }

    /// The lanes (on the model, and on the CPU when it has IFMA) against the scalar loop,
    /// with and without public inputs and blindings, and a block whose length is not a
    /// multiple of eight (its tail goes to the scalar loop).
    #[test]
    fn lanes_match_the_scalar_points() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        for case in 0..12 {
            let len = if case % 3 == 2 { 29 } else { 24 };
            let k = constants(&mut rng, case % 4 == 1);
            let q: Vec<Vec<Fr>> = (0..5).map(|_| row(&mut rng, len)).collect();
            let s: Vec<Vec<Fr>> = (0..3).map(|_| row(&mut rng, len)).collect();
            let (c, z, zw, inv0) = (
                row(&mut rng, len),
                row(&mut rng, len),
                row(&mut rng, len),
                row(&mut rng, len),
            );
            let pi = if case % 2 == 0 {
                row(&mut rng, len)
            } else {
                Vec::new()
            };
            let blk = OffHBlock {
                q: [&q[0][..], &q[1], &q[2], &q[3], &q[4]],
                s: [&s[0][..], &s[1], &s[2]],
                c: &c,
                z: &z,
                zw: &zw,
                inv0: &inv0,
                pi: &pi,
                x0: Fr::random(&mut rng),
            };
            let (a, b) = (row(&mut rng, len), row(&mut rng, len));
            let (mut want_a, mut want_b) = (a.clone(), b.clone());
            scalar(&k, &blk, &mut want_a, &mut want_b);

            let (mut got_a, mut got_b) = (a.clone(), b.clone());
            let lanes = len & !7;
            let (consts, rows) = prepare(
                &k,
                &blk,
                got_a.as_mut_ptr() as *mut u64,
                got_b.as_mut_ptr() as *mut u64,
                lanes,
                len,
            );
            // SAFETY: the model runs anywhere; `prepare` checked the rows.
            unsafe { points::<Model>(&consts, &rows, lanes) };
            assert_eq!(
                got_a[..lanes],
                want_a[..lanes],
                "t on the model, case {case}"
            );
            assert_eq!(
                got_b[..lanes],
                want_b[..lanes],
                "tz on the model, case {case}"
            );

            // The dispatcher: all of it on the CPU's lanes when there are some, the tail
            // on the scalar loop.
            let (mut got_a, mut got_b) = (a.clone(), b.clone());
            let done = off_h_points(&k, &blk, &mut got_a, &mut got_b);
            assert_eq!(done, if ifma::is_supported() { lanes } else { 0 });
            scalar(
                &k,
                &blk.from(done, k.omega),
                &mut got_a[done..],
                &mut got_b[done..],
            );
            assert_eq!(got_a, want_a, "t, case {case}");
            assert_eq!(got_b, want_b, "tz, case {case}");
        }
    }

    /// The coset scaling and the blocks' accumulation on the model (and through the
    /// dispatchers on the CPU when it has IFMA) against the plain formulas.
    #[test]
    fn scaling_and_accumulation_match_the_formulas() {
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
            let mut got = vec![Fr::ZERO; len];
            let done = scaled_by_powers(&mut got, &src, s0, step);
            assert_eq!(got[..done], want[..done], "scaled, case {case}");

            let (tz, num) = (row(&mut rng, len), row(&mut rng, len));
            let w_tz: [Fr; 4] = core::array::from_fn(|_| Fr::random(&mut rng));
            let w_t: [Fr; 4] = core::array::from_fn(|_| Fr::random(&mut rng));
            let with_num = case % 2 == 0;
            let outs0: [Vec<Fr>; 4] = core::array::from_fn(|_| row(&mut rng, len));
            let want: [Vec<Fr>; 4] = core::array::from_fn(|l| {
                (0..len)
                    .map(|i| {
                        let u = s0 * step.pow_u64(i as u64);
                        let t = if with_num { w_t[l] * num[i] } else { Fr::ZERO };
                        outs0[l][i] + (w_tz[l] * tz[i] + t) * u
                    })
                    .collect()
            });
            let mut outs = outs0.clone();
            let acc = Accumulate {
                outs: core::array::from_fn(|l| outs[l].as_mut_ptr() as *mut u64),
                tz: words(&tz),
                num: with_num.then(|| words(&num)),
                w_tz: w_tz.map(ifma_limbs),
                w_t: w_t.map(ifma_limbs),
                start,
                step8,
            };
            // SAFETY: as above; every row holds `len` elements.
            unsafe { accumulate::<Model>(&acc, len) };
            assert_eq!(outs, want, "accumulated on the model, case {case}");
            let mut outs = outs0.clone();
            let [o0, o1, o2, o3] = &mut outs;
            let done = accumulate_blocks(
                [&mut o0[..], o1, o2, o3],
                &tz,
                with_num.then_some(&num[..]),
                s0,
                step,
                w_tz,
                w_t,
            );
            for l in 0..4 {
                assert_eq!(outs[l][..done], want[l][..done], "accumulated, case {case}");
            }
        }
    }

    /// The points on `H`: satisfied gates (q_C chosen to zero each gate, z(xω) to zero
    /// the permutation term) give the first-order blinding terms the prover's loop
    /// computes; a group with a broken gate stops the lanes before it, untouched.
    #[test]
    fn points_on_h_match_the_formula_and_stop_at_a_broken_gate() {
        use crate::quotient::first_order;
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let len = 24;
        let kk = OnH {
            alpha: Fr::random(&mut rng),
            beta: Fr::random(&mut rng),
            gamma: Fr::random(&mut rng),
            k1b: Fr::random(&mut rng),
            k2b: Fr::random(&mut rng),
            omega: Fr::random(&mut rng),
            b: core::array::from_fn(|_| Fr::random(&mut rng)),
        };
        let (a, b, c, z) = (
            row(&mut rng, len),
            row(&mut rng, len),
            row(&mut rng, len),
            row(&mut rng, len),
        );
        let mut q: Vec<Vec<Fr>> = (0..4).map(|_| row(&mut rng, len)).collect();
        let s: Vec<Vec<Fr>> = (0..3).map(|_| row(&mut rng, len)).collect();
        let x0 = Fr::random(&mut rng);
        let xs: Vec<Fr> = (0..len).map(|i| x0 * kk.omega.pow_u64(i as u64)).collect();
        let qc: Vec<Fr> = (0..len)
            .map(|i| -(a[i] * b[i] * q[0][i] + a[i] * q[1][i] + b[i] * q[2][i] + c[i] * q[3][i]))
            .collect();
        q.push(qc);
        let id = |i: usize| {
            [
                kk.beta * xs[i] + kk.gamma,
                kk.k1b * xs[i] + kk.gamma,
                kk.k2b * xs[i] + kk.gamma,
            ]
        };
        let sg = |i: usize| [0, 1, 2].map(|k| kk.beta * s[k][i] + kk.gamma);
        let zw: Vec<Fr> = (0..len)
            .map(|i| {
                let (f, g) = (id(i), sg(i));
                let e2 = (a[i] + f[0]) * (b[i] + f[1]) * (c[i] + f[2]) * z[i];
                e2 * ((a[i] + g[0]) * (b[i] + g[1]) * (c[i] + g[2]))
                    .inverse()
                    .unwrap()
            })
            .collect();
        let want: Vec<Fr> = (0..len)
            .map(|i| {
                let (x, bl) = (xs[i], &kk.b);
                let xw = x * kk.omega;
                let (ap, bp, cp) = (bl[2] + bl[1] * x, bl[4] + bl[3] * x, bl[6] + bl[5] * x);
                let zp = (bl[7] * x + bl[8]) * x + bl[9];
                let zwp = (bl[7] * xw + bl[8]) * xw + bl[9];
                let e1z =
                    (ap * b[i] + a[i] * bp) * q[0][i] + ap * q[1][i] + bp * q[2][i] + cp * q[3][i];
                let (f, g) = (id(i), sg(i));
                let e2z = first_order(
                    [a[i] + f[0], b[i] + f[1], c[i] + f[2], z[i]],
                    [ap, bp, cp, zp],
                );
                let e3z = first_order(
                    [a[i] + g[0], b[i] + g[1], c[i] + g[2], zw[i]],
                    [ap, bp, cp, zwp],
                );
                e1z + (e2z - e3z) * kk.alpha
            })
            .collect();
        for broken in [None, Some(13)] {
            let mut q = q.clone();
            if let Some(i) = broken {
                q[4][i] += Fr::ONE;
            }
            let blk = OffHBlock {
                q: [&q[0][..], &q[1], &q[2], &q[3], &q[4]],
                s: [&s[0][..], &s[1], &s[2]],
                c: &c,
                z: &z,
                zw: &zw,
                inv0: &[],
                pi: &[],
                x0,
            };
            let expect_done = if broken.is_some() { 8 } else { len };
            let check = |what: &str, done: usize, ga: &[Fr], gb: &[Fr]| {
                assert_eq!(done, expect_done, "{what}: points taken");
                assert!(ga[..done].iter().all(|v| v.is_zero()), "{what}: a on H");
                assert_eq!(gb[..done], want[..done], "{what}: tz on H");
                assert_eq!(ga[done..], a[done..], "{what}: a past the broken group");
                assert_eq!(gb[done..], b[done..], "{what}: b past the broken group");
            };
            // On the model, through the kernel.
            let (mut ga, mut gb) = (a.clone(), b.clone());
            let l = |v: Fr| ifma_limbs(v);
            let (xp, omega8) = powers(x0, kk.omega);
            let consts = HConsts {
                alpha: l(kk.alpha),
                beta: l(kk.beta),
                gamma: l(kk.gamma),
                k1b: l(kk.k1b),
                k2b: l(kk.k2b),
                omega: l(kk.omega),
                omega8,
                b: kk.b.map(l),
                x: xp,
            };
            let rows = HRows {
                q: blk.q.map(words),
                s: blk.s.map(words),
                c: words(blk.c),
                z: words(blk.z),
                zw: words(blk.zw),
                oa: ga.as_mut_ptr() as *mut u64,
                ob: gb.as_mut_ptr() as *mut u64,
            };
            // SAFETY: the model runs anywhere; every row holds `len` elements.
            let done = unsafe { on_h::<Model>(&consts, &rows, len) };
            check("model", done, &ga, &gb);
            // Through the dispatcher (the CPU's lanes when it has IFMA).
            if ifma::is_supported() {
                let (mut ga, mut gb) = (a.clone(), b.clone());
                let done = on_h_points(&kk, &blk, &mut ga, &mut gb);
                check("cpu", done, &ga, &gb);
            }
        }
    }
}
