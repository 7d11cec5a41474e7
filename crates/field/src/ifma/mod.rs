//! Eight-lane Montgomery arithmetic in radix 2^52 with AVX-512 IFMA (SimdMSM §3.1).
//!
//! `vpmadd52luq` / `vpmadd52huq` multiply eight pairs of 52-bit limbs per instruction
//! and add the low or high 52 bits of each product to a 64-bit accumulator, so a
//! product of `L`-limb numbers needs no carry handling until the end: the 12 spare bits
//! of every accumulator absorb the sums.
//!
//! **Representation.** A vector of eight field elements is `[__m512i; L]`: vector `k`
//! holds limb `k` (bits `52k .. 52k+52`) of all eight lanes. Elements are in Montgomery
//! form with `R' = 2^(52L)`, which differs from the scalar field's `R = 2^(64W)`: the
//! IFMA form of `x` is the scalar Montgomery form of `x · 2^shift`, `shift = 52L − 64W`
//! ([`IfmaField::to_ifma`] / [`IfmaField::from_ifma`] convert). In memory the IFMA form
//! is kept in the field's own `W`-limb layout (it is a canonical integer `< p`), so
//! buffers of points keep their size and addition, subtraction, negation and equality
//! work on it unchanged; only products and constants differ.
//!
//! **Bounds.** Products accept inputs `< 8p` with normalised limbs and return values
//! `< 2p` with normalised limbs (`R' > 32p` for both supported moduli). Sums are
//! normalised by a signed carry pass, so `a + k·p − b` stays exact.
//!
//! **Instructions.** The arithmetic is generic over [`Avx512`], the handful of AVX-512
//! operations it uses: `__m512i` runs them on the CPU (everything is then `unsafe` and
//! needs `avx512f` and `avx512ifma`; check [`is_supported`] first), [`Model`] runs them
//! lane by lane in plain Rust on any host, for tests (feature `ifma-model`).

use crate::mont::{Fp, MontConfig};
use crate::Field;

#[cfg(target_arch = "x86_64")]
pub mod avx2;
pub mod isa;
pub mod lanes;
pub mod ntt;

pub use isa::Avx512;
#[cfg(any(test, feature = "ifma-model"))]
pub use isa::Model;

/// Bits per limb in registers.
pub const LIMB_BITS: usize = 52;
const MASK: u64 = (1 << LIMB_BITS) - 1;

/// Whether the IFMA lanes may run: AVX-512F, IFMA and VL present and `FASTZK_NO_IFMA`
/// not set ([`crate::cpu::Capability::Ifma`]).
pub fn is_supported() -> bool {
    crate::cpu::Capability::Ifma.enabled()
}

/// A modulus of `W` 64-bit limbs prepared for `L`-limb radix-2^52 Montgomery
/// arithmetic.
#[derive(Clone, Copy, Debug)]
pub struct IfmaModulus<const W: usize, const L: usize> {
    /// `p` in 52-bit limbs.
    pub p: [u64; L],
    /// `2p` in 52-bit limbs.
    pub two_p: [u64; L],
    /// `4p` in 52-bit limbs.
    pub four_p: [u64; L],
    /// `−p⁻¹ mod 2^52`.
    pub n0: u64,
    /// `2^(52L) mod p` (one in IFMA form), 52-bit limbs.
    pub one: [u64; L],
    /// `52L − 64W`.
    pub shift: u32,
    /// `2^(shift + 52L) mod p`: the Montgomery product of a scalar-form integer with it
    /// is the IFMA form.
    pub to_factor: [u64; L],
    /// `2^(64W) mod p`: the Montgomery product of an IFMA-form integer with it is the
    /// scalar form.
    pub from_factor: [u64; L],
}

/// A `W`-word integer (`< 2^(52L)`) as `L` radix-2^52 limbs.
pub const fn to_radix52<const W: usize, const L: usize>(w: &[u64; W]) -> [u64; L] {
    let mut out = [0u64; L];
    let mut k = 0;
    while k < L {
        let bit = LIMB_BITS * k;
        let (i, sh) = (bit / 64, bit % 64);
        if i < W {
            let mut v = w[i] >> sh;
            if sh > 64 - LIMB_BITS && i + 1 < W {
                v |= w[i + 1] << (64 - sh);
            }
            out[k] = v & MASK;
        }
        k += 1;
    }
    out
}

const fn add_mod<const W: usize>(a: &[u64; W], b: &[u64; W], p: &[u64; W]) -> [u64; W] {
    let mut s = [0u64; W];
    let mut carry = 0u64;
    let mut i = 0;
    while i < W {
        let (t, c1) = a[i].overflowing_add(b[i]);
        let (t, c2) = t.overflowing_add(carry);
        s[i] = t;
        carry = (c1 | c2) as u64;
        i += 1;
    }
    // The moduli here have a spare top bit, so the sum never carries out.
    let mut ge = true;
    let mut i = W;
    while i > 0 {
        i -= 1;
        if s[i] != p[i] {
            ge = s[i] > p[i];
            break;
        }
    }
    if ge || carry != 0 {
        let mut borrow = 0u64;
        let mut i = 0;
        while i < W {
            let (t, b1) = s[i].overflowing_sub(p[i]);
            let (t, b2) = t.overflowing_sub(borrow);
            s[i] = t;
            borrow = (b1 | b2) as u64;
            i += 1;
        }
    }
    s
}

/// `2^e mod p` by repeated doubling.
const fn pow2_mod<const W: usize>(e: usize, p: &[u64; W]) -> [u64; W] {
    let mut x = [0u64; W];
    x[0] = 1;
    let mut i = 0;
    while i < e {
        x = add_mod(&x, &x, p);
        i += 1;
    }
    x
}

impl<const W: usize, const L: usize> IfmaModulus<W, L> {
    /// Prepares `p` (little-endian 64-bit limbs, odd, with `32p < 2^(52L)`).
    pub const fn new(p: [u64; W]) -> Self {
        assert!(52 * L >= 64 * W, "too few 52-bit limbs");
        assert!(W * 64 <= 52 * L && p[0] & 1 == 1, "modulus must be odd");
        // 32p < 2^(52L): the top 52-bit limb of p must leave five bits free.
        let p52 = to_radix52::<W, L>(&p);
        assert!(
            p52[L - 1] < (1 << (LIMB_BITS - 5)),
            "modulus too large for L limbs"
        );
        let mut two = [0u64; W];
        let mut four = [0u64; W];
        let mut carry2 = 0u64;
        let mut carry4 = 0u64;
        let mut i = 0;
        while i < W {
            two[i] = (p[i] << 1) | carry2;
            carry2 = p[i] >> 63;
            four[i] = (p[i] << 2) | carry4;
            carry4 = p[i] >> 62;
            i += 1;
        }
        assert!(carry4 == 0, "4p must fit the memory limbs");
        // p⁻¹ mod 2^64 by Newton's iteration, then negate and cut to 52 bits.
        let mut inv = 1u64;
        let mut k = 0;
        while k < 6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p[0].wrapping_mul(inv)));
            k += 1;
        }
        Self {
            p: p52,
            two_p: to_radix52::<W, L>(&two),
            four_p: to_radix52::<W, L>(&four),
            n0: inv.wrapping_neg() & MASK,
            one: to_radix52::<W, L>(&pow2_mod::<W>(LIMB_BITS * L, &p)),
            shift: (LIMB_BITS * L - 64 * W) as u32,
            to_factor: to_radix52::<W, L>(&pow2_mod::<W>(2 * LIMB_BITS * L - 64 * W, &p)),
            from_factor: to_radix52::<W, L>(&pow2_mod::<W>(64 * W, &p)),
        }
    }
}

/// Prime fields with an IFMA representation: `W` 64-bit limbs in memory, `L` 52-bit
/// limbs in registers.
pub trait IfmaField<const W: usize, const L: usize>: Field {
    const IFMA: IfmaModulus<W, L>;
    /// The Montgomery limbs (in whichever form the element is held).
    fn raw_limbs(&self) -> [u64; W];
    /// Wraps limbs `< p` without checking.
    fn from_raw_limbs(limbs: [u64; W]) -> Self;
    /// `x` (scalar Montgomery form) in IFMA form: the same limbs an IFMA vector holds.
    fn to_ifma(self) -> Self;
    /// The inverse of [`to_ifma`](Self::to_ifma).
    #[allow(clippy::wrong_self_convention)] // both forms are `Self`; the name says which way
    fn from_ifma(self) -> Self;
    /// For `e` holding `x` in IFMA form, `x⁻¹` in IFMA form given `scalar_inverse(e)`.
    fn ifma_inverse_fixup(inv: Self) -> Self;
}

/// `x/2 mod p` for `x < p` (the moduli have a spare top bit, so `x + p` fits).
const fn half_mod<const W: usize>(x: &[u64; W], p: &[u64; W]) -> [u64; W] {
    let mut v = *x;
    let mut top = 0u64;
    if v[0] & 1 == 1 {
        let mut carry = 0u64;
        let mut i = 0;
        while i < W {
            let (t, c1) = v[i].overflowing_add(p[i]);
            let (t, c2) = t.overflowing_add(carry);
            v[i] = t;
            carry = (c1 | c2) as u64;
            i += 1;
        }
        top = carry;
    }
    let mut i = 0;
    while i < W {
        let hi = if i + 1 < W { v[i + 1] } else { top };
        v[i] = (v[i] >> 1) | (hi << 63);
        i += 1;
    }
    v
}

/// `2^e mod p` for a possibly negative `e`, canonical limbs.
const fn pow2_signed<const W: usize>(e: i64, p: &[u64; W]) -> [u64; W] {
    if e >= 0 {
        return pow2_mod(e as usize, p);
    }
    let mut x = [0u64; W];
    x[0] = 1;
    let mut i = 0;
    while i < e.unsigned_abs() {
        x = half_mod(&x, p);
        i += 1;
    }
    x
}

macro_rules! ifma_field {
    ($w:literal, $l:literal) => {
        impl<P: MontConfig<$w>> IfmaField<$w, $l> for Fp<P, $w> {
            const IFMA: IfmaModulus<$w, $l> = IfmaModulus::new(P::MODULUS);
            #[inline(always)]
            fn raw_limbs(&self) -> [u64; $w] {
                self.montgomery_limbs()
            }
            #[inline(always)]
            fn from_raw_limbs(limbs: [u64; $w]) -> Self {
                Self::from_montgomery_limbs_unchecked(limbs)
            }
            #[inline]
            fn to_ifma(self) -> Self {
                self * IfmaConsts::<P, $w, $l>::TO
            }
            #[inline]
            fn from_ifma(self) -> Self {
                self * IfmaConsts::<P, $w, $l>::FROM
            }
            #[inline]
            fn ifma_inverse_fixup(inv: Self) -> Self {
                // e = x·2^s as a scalar element; e⁻¹ = x⁻¹·2^−s; want x⁻¹·2^s.
                inv * IfmaConsts::<P, $w, $l>::FIXUP
            }
        }
    };
}

/// The conversion factors `2^s`, `2^−s` and `2^2s` as field elements.
struct IfmaConsts<P, const W: usize, const L: usize>(core::marker::PhantomData<P>);

impl<P: MontConfig<W>, const W: usize, const L: usize> IfmaConsts<P, W, L> {
    const SHIFT: i64 = (LIMB_BITS * L - 64 * W) as i64;
    const TO: Fp<P, W> = Fp::from_canonical_limbs_const(pow2_signed(Self::SHIFT, &P::MODULUS));
    const FROM: Fp<P, W> = Fp::from_canonical_limbs_const(pow2_signed(-Self::SHIFT, &P::MODULUS));
    const FIXUP: Fp<P, W> =
        Fp::from_canonical_limbs_const(pow2_signed(2 * Self::SHIFT, &P::MODULUS));
}

ifma_field!(4, 5);
ifma_field!(6, 8);

/// Eight field elements, limb-major: vector `k` holds limb `k` of every lane.
pub type Lanes<V, const L: usize> = [V; L];

/// Constants of a modulus broadcast to all lanes.
#[derive(Clone, Copy)]
pub struct VecModulus<V, const L: usize> {
    pub p: Lanes<V, L>,
    pub two_p: Lanes<V, L>,
    pub four_p: Lanes<V, L>,
    pub one: Lanes<V, L>,
    pub n0: V,
    pub to_factor: Lanes<V, L>,
    pub from_factor: Lanes<V, L>,
}

impl<V: Avx512, const L: usize> VecModulus<V, L> {
    /// # Safety
    /// As for [`Avx512`].
    #[inline(always)]
    pub unsafe fn new<const W: usize>(m: &IfmaModulus<W, L>) -> Self {
        Self {
            p: splat(&m.p),
            two_p: splat(&m.two_p),
            four_p: splat(&m.four_p),
            one: splat(&m.one),
            n0: V::splat(m.n0),
            to_factor: splat(&m.to_factor),
            from_factor: splat(&m.from_factor),
        }
    }
}

// Everything below is `inline(always)` and carries no target feature: it is inlined
// into the engine's entry points, which enable `avx512f,avx512ifma` for the CPU's
// instructions, and into plain code for the model.

/// The same value in every lane.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn splat<V: Avx512, const L: usize>(v: &[u64; L]) -> Lanes<V, L> {
    let mut out = [V::zero(); L];
    for k in 0..L {
        out[k] = V::splat(v[k]);
    }
    out
}

/// `W` 64-bit words per lane → `L` 52-bit limbs.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn split<V: Avx512, const W: usize, const L: usize>(w: &[V; W]) -> Lanes<V, L> {
    let mask = V::splat(MASK);
    let mut out = [V::zero(); L];
    for (k, o) in out.iter_mut().enumerate() {
        let bit = LIMB_BITS * k;
        let (i, sh) = (bit / 64, bit % 64);
        if i >= W {
            break;
        }
        let mut v = V::srlv(w[i], V::splat(sh as u64));
        if sh > 64 - LIMB_BITS && i + 1 < W {
            v = V::or(v, V::sllv(w[i + 1], V::splat((64 - sh) as u64)));
        }
        *o = V::and(v, mask);
    }
    out
}

/// `L` normalised 52-bit limbs (value `< 2^(64W)`) → `W` 64-bit words per lane.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn join<V: Avx512, const W: usize, const L: usize>(l: &Lanes<V, L>) -> [V; W] {
    let mut out = [V::zero(); W];
    for (i, o) in out.iter_mut().enumerate() {
        let bit = 64 * i;
        let (k, sh) = (bit / LIMB_BITS, bit % LIMB_BITS);
        let mut v = V::srlv(l[k], V::splat(sh as u64));
        let mut filled = LIMB_BITS - sh;
        let mut kk = k + 1;
        while filled < 64 && kk < L {
            v = V::or(v, V::sllv(l[kk], V::splat(filled as u64)));
            filled += LIMB_BITS;
            kk += 1;
        }
        *o = v;
    }
    out
}

/// Signed carry propagation: every limb but the top one ends in `[0, 2^52)`; the top
/// limb keeps the sign.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn normalize<V: Avx512, const L: usize>(l: &mut Lanes<V, L>) {
    let mask = V::splat(MASK);
    for k in 0..L - 1 {
        let c = V::srai::<52>(l[k]);
        l[k] = V::and(l[k], mask);
        l[k + 1] = V::add(l[k + 1], c);
    }
}

/// `a + b`, normalised.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn add<V: Avx512, const L: usize>(a: &Lanes<V, L>, b: &Lanes<V, L>) -> Lanes<V, L> {
    let mut r = [V::zero(); L];
    for k in 0..L {
        r[k] = V::add(a[k], b[k]);
    }
    normalize(&mut r);
    r
}

/// `a + kp − b` for a multiple `kp` of `p` at least `b`, normalised.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn sub<V: Avx512, const L: usize>(
    a: &Lanes<V, L>,
    b: &Lanes<V, L>,
    kp: &Lanes<V, L>,
) -> Lanes<V, L> {
    let mut r = [V::zero(); L];
    for k in 0..L {
        r[k] = V::sub(V::add(a[k], kp[k]), b[k]);
    }
    normalize(&mut r);
    r
}

/// `a + kp − b − c`, normalised.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn sub2<V: Avx512, const L: usize>(
    a: &Lanes<V, L>,
    b: &Lanes<V, L>,
    c: &Lanes<V, L>,
    kp: &Lanes<V, L>,
) -> Lanes<V, L> {
    let mut r = [V::zero(); L];
    for k in 0..L {
        r[k] = V::sub(V::sub(V::add(a[k], kp[k]), b[k]), c[k]);
    }
    normalize(&mut r);
    r
}

/// `b` where `mask` is set, else `a` (lane-wise).
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn blend<V: Avx512, const L: usize>(
    mask: u8,
    a: &Lanes<V, L>,
    b: &Lanes<V, L>,
) -> Lanes<V, L> {
    // A loop, not `array::from_fn`: a closure does not inherit the caller's target
    // features, so without LTO its intrinsics would not inline.
    let mut r = *a;
    for k in 0..L {
        r[k] = V::blend(mask, a[k], b[k]);
    }
    r
}

/// `a − q` where that is non-negative, else `a` (lane-wise).
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn reduce_once<V: Avx512, const L: usize>(
    a: &Lanes<V, L>,
    q: &Lanes<V, L>,
) -> Lanes<V, L> {
    let mut t = [V::zero(); L];
    for k in 0..L {
        t[k] = V::sub(a[k], q[k]);
    }
    normalize(&mut t);
    let negative = V::cmplt_epi64(t[L - 1], V::zero());
    blend(negative, &t, a)
}

/// The canonical representative of a value `< 4p`.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn canonicalize<V: Avx512, const L: usize>(
    a: &Lanes<V, L>,
    m: &VecModulus<V, L>,
) -> Lanes<V, L> {
    reduce_once(&reduce_once(a, &m.two_p), &m.p)
}

/// Montgomery product `a·b/2^(52L) mod p`: inputs `< 8p` with normalised limbs,
/// result `< 2p` with normalised limbs ([`Avx512::mont_mul`]).
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn mul<V: Avx512, const L: usize>(
    a: &Lanes<V, L>,
    b: &Lanes<V, L>,
    m: &VecModulus<V, L>,
) -> Lanes<V, L> {
    V::mont_mul(a, b, m)
}

/// `a²`, same bounds as [`mul`] ([`Avx512::mont_square`]).
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn square<V: Avx512, const L: usize>(
    a: &Lanes<V, L>,
    m: &VecModulus<V, L>,
) -> Lanes<V, L> {
    V::mont_square(a, m)
}

/// Two independent products, `a·b` and `c·d` ([`Avx512::mont_mul2`]).
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn mul2<V: Avx512, const L: usize>(
    ab: [&Lanes<V, L>; 2],
    cd: [&Lanes<V, L>; 2],
    m: &VecModulus<V, L>,
) -> [Lanes<V, L>; 2] {
    V::mont_mul2(ab, cd, m)
}

/// Two independent squares ([`Avx512::mont_square2`]).
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn square2<V: Avx512, const L: usize>(
    a: &Lanes<V, L>,
    c: &Lanes<V, L>,
    m: &VecModulus<V, L>,
) -> [Lanes<V, L>; 2] {
    V::mont_square2(a, c, m)
}

/// [`mul`] on `madd52lo/hi`: operand scanning, one reduction step per limb of `b`.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
#[allow(clippy::needless_range_loop)] // limb indices shared by t, a and p read best as j
pub unsafe fn mul_madd52<V: Avx512, const L: usize>(
    a: &Lanes<V, L>,
    b: &Lanes<V, L>,
    m: &VecModulus<V, L>,
) -> Lanes<V, L> {
    let zero = V::zero();
    let mut t = [zero; L];
    for bi in b.iter() {
        let mut top = zero;
        for j in 0..L {
            t[j] = V::madd52lo(t[j], a[j], *bi);
        }
        for j in 0..L - 1 {
            t[j + 1] = V::madd52hi(t[j + 1], a[j], *bi);
        }
        top = V::madd52hi(top, a[L - 1], *bi);
        let q = V::madd52lo(zero, t[0], m.n0);
        for j in 0..L {
            t[j] = V::madd52lo(t[j], q, m.p[j]);
        }
        for j in 0..L - 1 {
            t[j + 1] = V::madd52hi(t[j + 1], q, m.p[j]);
        }
        top = V::madd52hi(top, q, m.p[L - 1]);
        // t[0] ≡ 0 (mod 2^52): carry its high part and shift down one limb.
        let carry = V::srli::<52>(t[0]);
        for j in 0..L - 1 {
            t[j] = t[j + 1];
        }
        t[L - 1] = top;
        t[0] = V::add(t[0], carry);
    }
    normalize(&mut t);
    t
}

/// [`square`] on `madd52lo/hi`.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
#[allow(clippy::needless_range_loop)] // limb indices read best as i, j
pub unsafe fn square_madd52<V: Avx512, const L: usize>(
    a: &Lanes<V, L>,
    m: &VecModulus<V, L>,
) -> Lanes<V, L> {
    // The 2L-limb square with each cross product computed once and doubled (about 30
    // multiply-adds for L = 5 instead of 50), then L Montgomery reduction steps.
    const MAX: usize = 16;
    assert!(2 * L <= MAX, "at most 8 limbs");
    let zero = V::zero();
    let mut t = [zero; MAX];
    for i in 0..L {
        for j in i + 1..L {
            t[i + j] = V::madd52lo(t[i + j], a[i], a[j]);
            t[i + j + 1] = V::madd52hi(t[i + j + 1], a[i], a[j]);
        }
    }
    for k in 1..2 * L {
        t[k] = V::add(t[k], t[k]);
    }
    for i in 0..L {
        t[2 * i] = V::madd52lo(t[2 * i], a[i], a[i]);
        t[2 * i + 1] = V::madd52hi(t[2 * i + 1], a[i], a[i]);
    }
    for i in 0..L {
        let q = V::madd52lo(zero, t[i], m.n0);
        for j in 0..L {
            t[i + j] = V::madd52lo(t[i + j], q, m.p[j]);
            t[i + j + 1] = V::madd52hi(t[i + j + 1], q, m.p[j]);
        }
        // t[i] ≡ 0 (mod 2^52) now: carry its high part up.
        t[i + 1] = V::add(t[i + 1], V::srli::<52>(t[i]));
    }
    let mut r = [zero; L];
    r.copy_from_slice(&t[L..2 * L]);
    normalize(&mut r);
    r
}

/// Lanes where two `W`-word values are equal.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn eq_words<V: Avx512, const W: usize>(a: &[V; W], b: &[V; W]) -> u8 {
    let mut m = 0xffu8;
    for i in 0..W {
        m &= V::cmpeq(a[i], b[i]);
    }
    m
}

/// Loads eight elements given in `W`-limb memory form (lane `i` from `src[i]`).
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn load<V: Avx512, F: IfmaField<W, L>, const W: usize, const L: usize>(
    src: &[F; 8],
) -> Lanes<V, L> {
    let mut words = [[0u64; 8]; W];
    for (lane, e) in src.iter().enumerate() {
        let l = e.raw_limbs();
        for i in 0..W {
            words[i][lane] = l[i];
        }
    }
    split(&words.map(|w| V::from_array(w)))
}

/// Stores eight elements (any value `< 4p`) canonically in `W`-limb memory form.
///
/// # Safety
/// As for [`Avx512`].
#[inline(always)]
pub unsafe fn store<V: Avx512, F: IfmaField<W, L>, const W: usize, const L: usize>(
    v: &Lanes<V, L>,
    m: &VecModulus<V, L>,
) -> [F; 8] {
    let w: [V; W] = join(&canonicalize(v, m));
    let words = w.map(|x| x.to_array());
    core::array::from_fn(|lane| F::from_raw_limbs(core::array::from_fn(|i| words[i][lane])))
}
