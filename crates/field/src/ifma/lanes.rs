//! Eight elements of a coordinate field in registers, as one type per field: [`Fq8`] for a
//! prime field with an IFMA form, [`Fq2x8`] for `Fq[u]/(u² + 1)` over one. Both implement
//! [`LaneField`], the interface the MSM's eight-lane bucket flush is written against
//! (gathers and scatters of point coordinates, lazy sums, products, one shared
//! inversion). Values stay below `2p` per coefficient between operations; see the bounds
//! in [`super`]. Both are generic over the vector type `V` ([`Avx512`]): `__m512i` for
//! the CPU's instructions, `Model` for the software model.

use core::marker::PhantomData;
use core::mem::offset_of;

use super::{Avx512, IfmaField, Lanes, VecModulus};
use crate::{Field, QuadExt, QuadExtConfig};

/// Multiples of `p` (and one) broadcast as lane values, and the multiplier's constants.
#[derive(Clone, Copy)]
pub struct Consts<F: LaneField> {
    pub zero: F,
    pub one: F,
    pub p: F,
    pub two_p: F,
    pub four_p: F,
    pub to_factor: F,
    pub from_factor: F,
    pub m: F::Mod,
}

/// Eight elements of the coordinate field in registers (IFMA form). Values stay below
/// `2p` per coefficient between operations; see the bounds in `fastzk_field::ifma`.
///
/// # Safety
/// Every `unsafe` method has the requirements of [`Avx512`] for [`Self::Vec`] (for
/// `__m512i`: a CPU with AVX-512F and AVX-512 IFMA, [`super::is_supported`]); the memory
/// methods also need their pointers to address the lanes they read or write.
#[allow(clippy::missing_safety_doc)] // covered above, for all methods at once
pub trait LaneField: Copy {
    type Elem: Field;
    /// The vector type the lanes are held in.
    type Vec: Avx512;
    /// The multiplier's broadcast constants.
    type Mod: Copy;
    /// Number of vectors in one value (for the scratch area).
    const VECS: usize;
    /// One element into IFMA form (the form lanes hold; see [`IfmaField::to_ifma`]).
    fn elem_to_ifma(e: Self::Elem) -> Self::Elem;
    /// The inverse of [`Self::elem_to_ifma`].
    fn elem_from_ifma(e: Self::Elem) -> Self::Elem;
    unsafe fn consts() -> Consts<Self>;
    /// Eight elements from `base + offsets[l] + field_offset` (masked-off lanes are zero
    /// and read nothing).
    unsafe fn gather(base: *const u8, offsets: Self::Vec, field_offset: usize, mask: u8) -> Self;
    /// Stores a value below `4p` (per coefficient) canonically.
    unsafe fn scatter(
        &self,
        k: &Consts<Self>,
        base: *mut u8,
        offsets: Self::Vec,
        field_offset: usize,
        mask: u8,
    );
    /// Lanes where two canonical values are equal.
    unsafe fn eq(&self, other: &Self) -> u8;
    /// `a + b`.
    unsafe fn add(a: &Self, b: &Self) -> Self;
    /// A value below `8p` (per coefficient) brought below `2p`.
    unsafe fn shrink(&self, k: &Consts<Self>) -> Self;
    /// Lanes whose value (below `2p`) is zero.
    unsafe fn is_zero(&self, k: &Consts<Self>) -> u8;
    /// `b` where `mask` is set, else `a`.
    unsafe fn blend(mask: u8, a: &Self, b: &Self) -> Self;
    /// `a + kp − b`.
    unsafe fn sub(a: &Self, b: &Self, kp: &Self) -> Self;
    /// `a + kp − b − c`.
    unsafe fn sub2(a: &Self, b: &Self, c: &Self, kp: &Self) -> Self;
    unsafe fn mul(a: &Self, b: &Self, k: &Consts<Self>) -> Self;
    unsafe fn square(a: &Self, k: &Consts<Self>) -> Self;
    /// Two independent products `a·b` and `c·d`: by default one after the other.
    #[inline(always)]
    unsafe fn mul2([a, b]: [&Self; 2], [c, d]: [&Self; 2], k: &Consts<Self>) -> [Self; 2] {
        [Self::mul(a, b, k), Self::mul(c, d, k)]
    }
    /// Two independent squares.
    #[inline(always)]
    unsafe fn square2(a: &Self, c: &Self, k: &Consts<Self>) -> [Self; 2] {
        [Self::square(a, k), Self::square(c, k)]
    }
    /// Lane-wise inverses (no lane may be zero), through one scalar inversion.
    unsafe fn invert(&self, k: &Consts<Self>) -> Self;
    unsafe fn store(&self, dst: *mut Self::Vec);
    unsafe fn load(src: *const Self::Vec) -> Self;
    /// Eight elements from word-major memory: vector `i` holds 64-bit word `i` of the
    /// element's memory layout for all lanes.
    unsafe fn from_words(src: *const Self::Vec) -> Self;
}

#[inline(always)]
unsafe fn gather_words<V: Avx512, const W: usize>(
    base: *const u8,
    offsets: V,
    field_offset: usize,
    mask: u8,
) -> [V; W] {
    let mut out = [V::zero(); W];
    for (i, o) in out.iter_mut().enumerate() {
        let off = V::add(offsets, V::splat((field_offset + 8 * i) as u64));
        *o = V::gather(V::zero(), mask, off, base);
    }
    out
}

#[inline(always)]
unsafe fn scatter_words<V: Avx512, const W: usize>(
    base: *mut u8,
    offsets: V,
    field_offset: usize,
    mask: u8,
    words: &[V; W],
) {
    // Word-major vectors to each lane's words with plain stores, not scatters: on Zen 4
    // this made a 2^20 BN254 G1 MSM 2.4 % faster (median of six alternated runs).
    let mut rows = [[0u64; 8]; W];
    for i in 0..W {
        words[i].store(rows[i].as_mut_ptr() as *mut V);
    }
    let offs = offsets.to_array();
    for l in 0..8 {
        if mask & (1 << l) != 0 {
            let dst = base.add(offs[l] as usize + field_offset) as *mut u64;
            for (i, row) in rows.iter().enumerate() {
                dst.add(i).write_unaligned(row[l]);
            }
        }
    }
}

#[inline(always)]
unsafe fn load_vecs<V: Avx512, const N: usize>(src: *const V) -> [V; N] {
    // A loop, not a closure, so that the loads inline under the caller's target features.
    let mut out = [V::zero(); N];
    for (k, o) in out.iter_mut().enumerate() {
        *o = V::load(src.add(k));
    }
    out
}

/// Eight elements of a prime field with an `L`-limb IFMA form.
#[derive(Clone, Copy)]
pub struct Fq8<F, const W: usize, const L: usize, V> {
    v: Lanes<V, L>,
    m: PhantomData<F>,
}

impl<F, const W: usize, const L: usize, V> Fq8<F, W, L, V> {
    #[inline(always)]
    fn new(v: Lanes<V, L>) -> Self {
        Self { v, m: PhantomData }
    }
}

impl<F: IfmaField<W, L>, const W: usize, const L: usize, V: Avx512> LaneField for Fq8<F, W, L, V> {
    type Elem = F;
    type Vec = V;
    type Mod = VecModulus<V, L>;
    const VECS: usize = L;

    fn elem_to_ifma(e: F) -> F {
        e.to_ifma()
    }
    fn elem_from_ifma(e: F) -> F {
        e.from_ifma()
    }

    #[inline(always)]
    unsafe fn consts() -> Consts<Self> {
        let m = VecModulus::<V, L>::new(&F::IFMA);
        Consts {
            zero: Self::new([V::zero(); L]),
            one: Self::new(m.one),
            p: Self::new(m.p),
            two_p: Self::new(m.two_p),
            four_p: Self::new(m.four_p),
            to_factor: Self::new(m.to_factor),
            from_factor: Self::new(m.from_factor),
            m,
        }
    }
    #[inline(always)]
    unsafe fn gather(base: *const u8, offsets: V, field_offset: usize, mask: u8) -> Self {
        Self::new(super::split(&gather_words::<V, W>(
            base,
            offsets,
            field_offset,
            mask,
        )))
    }
    #[inline(always)]
    unsafe fn scatter(
        &self,
        k: &Consts<Self>,
        base: *mut u8,
        offsets: V,
        field_offset: usize,
        mask: u8,
    ) {
        let c = super::canonicalize(&self.v, &k.m);
        scatter_words::<V, W>(base, offsets, field_offset, mask, &super::join(&c));
    }
    #[inline(always)]
    unsafe fn eq(&self, other: &Self) -> u8 {
        super::eq_words(&self.v, &other.v)
    }
    #[inline(always)]
    unsafe fn add(a: &Self, b: &Self) -> Self {
        Self::new(super::add(&a.v, &b.v))
    }
    #[inline(always)]
    unsafe fn shrink(&self, k: &Consts<Self>) -> Self {
        Self::new(super::reduce_once(
            &super::reduce_once(&self.v, &k.four_p.v),
            &k.two_p.v,
        ))
    }
    #[inline(always)]
    unsafe fn is_zero(&self, k: &Consts<Self>) -> u8 {
        super::eq_words(&super::reduce_once(&self.v, &k.p.v), &k.zero.v)
    }
    #[inline(always)]
    unsafe fn blend(mask: u8, a: &Self, b: &Self) -> Self {
        Self::new(super::blend(mask, &a.v, &b.v))
    }
    #[inline(always)]
    unsafe fn sub(a: &Self, b: &Self, kp: &Self) -> Self {
        Self::new(super::sub(&a.v, &b.v, &kp.v))
    }
    #[inline(always)]
    unsafe fn sub2(a: &Self, b: &Self, c: &Self, kp: &Self) -> Self {
        Self::new(super::sub2(&a.v, &b.v, &c.v, &kp.v))
    }
    #[inline(always)]
    unsafe fn mul(a: &Self, b: &Self, k: &Consts<Self>) -> Self {
        Self::new(super::mul(&a.v, &b.v, &k.m))
    }
    #[inline(always)]
    unsafe fn square(a: &Self, k: &Consts<Self>) -> Self {
        Self::new(super::square(&a.v, &k.m))
    }
    #[inline(always)]
    unsafe fn mul2([a, b]: [&Self; 2], [c, d]: [&Self; 2], k: &Consts<Self>) -> [Self; 2] {
        super::mul2([&a.v, &b.v], [&c.v, &d.v], &k.m).map(Self::new)
    }
    #[inline(always)]
    unsafe fn square2(a: &Self, c: &Self, k: &Consts<Self>) -> [Self; 2] {
        super::square2(&a.v, &c.v, &k.m).map(Self::new)
    }
    #[inline(always)]
    unsafe fn invert(&self, k: &Consts<Self>) -> Self {
        let lanes: [F; 8] = super::store::<V, F, W, L>(&self.v, &k.m);
        let inv = invert_eight(&lanes, F::ifma_inverse_fixup(F::ONE));
        Self::new(super::load::<V, F, W, L>(&inv))
    }
    #[inline(always)]
    unsafe fn store(&self, dst: *mut V) {
        for k in 0..L {
            self.v[k].store(dst.add(k));
        }
    }
    #[inline(always)]
    unsafe fn load(src: *const V) -> Self {
        Self::new(load_vecs(src))
    }
    #[inline(always)]
    unsafe fn from_words(src: *const V) -> Self {
        Self::new(super::split(&load_vecs::<V, W>(src)))
    }
}

/// Inverses of eight nonzero elements in punned IFMA form with one inversion; `fixup`
/// is the factor that turns a scalar inverse of a punned value into the punned inverse.
fn invert_eight<E: Field>(lanes: &[E; 8], fixup: E) -> [E; 8] {
    let mut inv = *lanes;
    crate::batch_inverse(&mut inv);
    inv.map(|e| e * fixup)
}

/// Eight elements of `Fq2 = Fq[u]/(u² + 1)` as two [`Fq8`] coefficient vectors.
#[derive(Clone, Copy)]
pub struct Fq2x8<Q: QuadExtConfig, const W: usize, const L: usize, V> {
    c0: Lanes<V, L>,
    c1: Lanes<V, L>,
    m: PhantomData<Q>,
}

impl<Q: QuadExtConfig, const W: usize, const L: usize, V> Fq2x8<Q, W, L, V> {
    /// The products below assume `u² = −1` (BN254 and BLS12-381 `Fq2`).
    const MINUS_ONE: () = assert!(Q::NONRESIDUE_IS_MINUS_ONE, "the Fq2 lanes assume u² = −1");

    #[inline(always)]
    fn new(c0: Lanes<V, L>, c1: Lanes<V, L>) -> Self {
        Self {
            c0,
            c1,
            m: PhantomData,
        }
    }
}

impl<Q: QuadExtConfig, const W: usize, const L: usize, V: Avx512> LaneField for Fq2x8<Q, W, L, V>
where
    Q::Base: IfmaField<W, L>,
{
    type Elem = QuadExt<Q>;
    type Vec = V;
    type Mod = VecModulus<V, L>;
    const VECS: usize = 2 * L;

    fn elem_to_ifma(e: QuadExt<Q>) -> QuadExt<Q> {
        QuadExt::new(e.c0.to_ifma(), e.c1.to_ifma())
    }
    fn elem_from_ifma(e: QuadExt<Q>) -> QuadExt<Q> {
        QuadExt::new(e.c0.from_ifma(), e.c1.from_ifma())
    }

    #[inline(always)]
    unsafe fn consts() -> Consts<Self> {
        let () = Self::MINUS_ONE;
        let m = VecModulus::<V, L>::new(&<Q::Base as IfmaField<W, L>>::IFMA);
        let zero = [V::zero(); L];
        Consts {
            zero: Self::new(zero, zero),
            one: Self::new(m.one, zero),
            p: Self::new(m.p, m.p),
            two_p: Self::new(m.two_p, m.two_p),
            four_p: Self::new(m.four_p, m.four_p),
            to_factor: Self::new(m.to_factor, zero),
            from_factor: Self::new(m.from_factor, zero),
            m,
        }
    }
    #[inline(always)]
    unsafe fn gather(base: *const u8, offsets: V, field_offset: usize, mask: u8) -> Self {
        let (o0, o1) = (offset_of!(QuadExt<Q>, c0), offset_of!(QuadExt<Q>, c1));
        Self::new(
            super::split(&gather_words::<V, W>(
                base,
                offsets,
                field_offset + o0,
                mask,
            )),
            super::split(&gather_words::<V, W>(
                base,
                offsets,
                field_offset + o1,
                mask,
            )),
        )
    }
    #[inline(always)]
    unsafe fn scatter(
        &self,
        k: &Consts<Self>,
        base: *mut u8,
        offsets: V,
        field_offset: usize,
        mask: u8,
    ) {
        let (o0, o1) = (offset_of!(QuadExt<Q>, c0), offset_of!(QuadExt<Q>, c1));
        let canon = |v: &Lanes<V, L>| super::canonicalize(v, &k.m);
        scatter_words::<V, W>(
            base,
            offsets,
            field_offset + o0,
            mask,
            &super::join(&canon(&self.c0)),
        );
        scatter_words::<V, W>(
            base,
            offsets,
            field_offset + o1,
            mask,
            &super::join(&canon(&self.c1)),
        );
    }
    #[inline(always)]
    unsafe fn eq(&self, other: &Self) -> u8 {
        super::eq_words(&self.c0, &other.c0) & super::eq_words(&self.c1, &other.c1)
    }
    #[inline(always)]
    unsafe fn add(a: &Self, b: &Self) -> Self {
        Self::new(super::add(&a.c0, &b.c0), super::add(&a.c1, &b.c1))
    }
    #[inline(always)]
    unsafe fn shrink(&self, k: &Consts<Self>) -> Self {
        let s =
            |v: &Lanes<V, L>| super::reduce_once(&super::reduce_once(v, &k.four_p.c0), &k.two_p.c0);
        Self::new(s(&self.c0), s(&self.c1))
    }
    #[inline(always)]
    unsafe fn is_zero(&self, k: &Consts<Self>) -> u8 {
        let z = |v: &Lanes<V, L>| super::eq_words(&super::reduce_once(v, &k.p.c0), &k.zero.c0);
        z(&self.c0) & z(&self.c1)
    }
    #[inline(always)]
    unsafe fn blend(mask: u8, a: &Self, b: &Self) -> Self {
        Self::new(
            super::blend(mask, &a.c0, &b.c0),
            super::blend(mask, &a.c1, &b.c1),
        )
    }
    #[inline(always)]
    unsafe fn sub(a: &Self, b: &Self, kp: &Self) -> Self {
        Self::new(
            super::sub(&a.c0, &b.c0, &kp.c0),
            super::sub(&a.c1, &b.c1, &kp.c1),
        )
    }
    #[inline(always)]
    unsafe fn sub2(a: &Self, b: &Self, c: &Self, kp: &Self) -> Self {
        Self::new(
            super::sub2(&a.c0, &b.c0, &c.c0, &kp.c0),
            super::sub2(&a.c1, &b.c1, &c.c1, &kp.c1),
        )
    }
    /// Karatsuba with `u² = −1`: `c0 = a0b0 − a1b1`, `c1 = (a0+a1)(b0+b1) − a0b0 − a1b1`,
    /// each brought back below `2p`. Inputs below `5p` per coefficient keep the sum
    /// products inside the multiplier's bound (`10p · 4p < p·2^(52L)` for both moduli).
    #[inline(always)]
    unsafe fn mul(a: &Self, b: &Self, k: &Consts<Self>) -> Self {
        let m = k.m;
        let v0 = super::mul(&a.c0, &b.c0, &m);
        let v1 = super::mul(&a.c1, &b.c1, &m);
        let s = super::mul(&super::add(&a.c0, &a.c1), &super::add(&b.c0, &b.c1), &m);
        let c0 = super::reduce_once(&super::sub(&v0, &v1, &k.two_p.c0), &k.two_p.c0);
        let c1 = super::sub2(&s, &v0, &v1, &k.four_p.c0);
        let c1 = super::reduce_once(&super::reduce_once(&c1, &k.four_p.c0), &k.two_p.c0);
        Self::new(c0, c1)
    }
    /// `(a0 + a1)(a0 − a1) + 2·a0·a1·u`.
    #[inline(always)]
    unsafe fn square(a: &Self, k: &Consts<Self>) -> Self {
        let m = k.m;
        let c0 = super::mul(
            &super::add(&a.c0, &a.c1),
            &super::sub(&a.c0, &a.c1, &k.four_p.c0),
            &m,
        );
        let t = super::mul(&a.c0, &a.c1, &m);
        let c1 = super::reduce_once(&super::add(&t, &t), &k.two_p.c0);
        Self::new(c0, c1)
    }
    #[inline(always)]
    unsafe fn invert(&self, k: &Consts<Self>) -> Self {
        let m = k.m;
        let c0: [Q::Base; 8] = super::store::<V, Q::Base, W, L>(&self.c0, &m);
        let c1: [Q::Base; 8] = super::store::<V, Q::Base, W, L>(&self.c1, &m);
        let lanes: [QuadExt<Q>; 8] = core::array::from_fn(|l| QuadExt::new(c0[l], c1[l]));
        let fix = <Q::Base as IfmaField<W, L>>::ifma_inverse_fixup(Q::Base::ONE);
        let inv = invert_eight(&lanes, QuadExt::<Q>::new(fix, Q::Base::ZERO));
        Self::new(
            super::load::<V, Q::Base, W, L>(&inv.map(|e| e.c0)),
            super::load::<V, Q::Base, W, L>(&inv.map(|e| e.c1)),
        )
    }
    #[inline(always)]
    unsafe fn store(&self, dst: *mut V) {
        for k in 0..L {
            self.c0[k].store(dst.add(k));
            self.c1[k].store(dst.add(L + k));
        }
    }
    #[inline(always)]
    unsafe fn load(src: *const V) -> Self {
        Self::new(load_vecs(src), load_vecs(src.add(L)))
    }
    #[inline(always)]
    unsafe fn from_words(src: *const V) -> Self {
        let (o0, o1) = (
            offset_of!(QuadExt<Q>, c0) / 8,
            offset_of!(QuadExt<Q>, c1) / 8,
        );
        Self::new(
            super::split(&load_vecs::<V, W>(src.add(o0))),
            super::split(&load_vecs::<V, W>(src.add(o1))),
        )
    }
}
