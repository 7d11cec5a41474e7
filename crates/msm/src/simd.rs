//! The batch-affine flush on eight lanes with AVX-512 IFMA (SimdMSM §3–§4).
//!
//! A flush adds a batch of points `P_j` into distinct affine buckets `A_j` with one
//! shared inversion. Here lane `l` of group `g` handles batch entry `8g + l`: the
//! denominators `x(P) − x(A)` and their prefix products are computed eight at a time
//! in four interleaved chains (so consecutive products do not wait on each other),
//! the four chain products are combined and their eight lanes inverted with one scalar
//! inversion, and the backward pass produces the eight sums per step. Buckets and
//! points are read with gathers and written with masked scatters; since a bucket is in
//! a batch at most once, no two lanes of a flush touch the same bucket.
//!
//! Points and buckets are held in the IFMA form of their coordinates
//! ([`IfmaField::to_ifma`]); the caller converts on the way in and out. Lanes whose
//! bucket and point share an `x` coordinate (doubling or cancellation, rare) are not
//! written; they are reported back so the caller can finish them with a projective
//! addition.

use core::arch::x86_64::*;
use core::mem::{offset_of, size_of};

use core::marker::PhantomData;

use fastzk_curve::{Affine, CurveConfig};

use crate::bucket::FlushJob;
use fastzk_field::ifma::{self, IfmaField, Lanes, VecModulus};
use fastzk_field::{Field, QuadExt, QuadExtConfig};

/// Entry points of the eight-lane flush for one group.
pub struct SimdKernel<C: CurveConfig> {
    pub(crate) flush: unsafe fn(&mut FlushJob<'_, C>),
    /// `(base, stride, count, x_offset, y_offset, to_ifma)`: converts records in place.
    convert: unsafe fn(*mut u8, usize, usize, usize, usize, bool),
    pub(crate) to_ifma: fn(C::Base) -> C::Base,
    pub(crate) from_ifma: fn(C::Base) -> C::Base,
}

impl<C: CurveConfig> SimdKernel<C> {
    /// The kernel for a group over a prime field with an `L`-limb IFMA form (G1), if
    /// this CPU can run it.
    pub fn new<const W: usize, const L: usize>() -> Option<Self>
    where
        C::Base: IfmaField<W, L>,
    {
        ifma::is_supported().then_some(Self {
            flush: flush::<C, Fq8<C::Base, W, L>>,
            convert: convert::<Fq8<C::Base, W, L>>,
            to_ifma: <C::Base as IfmaField<W, L>>::to_ifma,
            from_ifma: <C::Base as IfmaField<W, L>>::from_ifma,
        })
    }

    /// The kernel for a group over `Fq2 = Fq[u]/(u² + 1)` (G2), if this CPU can run it.
    pub fn new_quadratic<Q: QuadExtConfig, const W: usize, const L: usize>() -> Option<Self>
    where
        C: CurveConfig<Base = QuadExt<Q>>,
        Q::Base: IfmaField<W, L>,
    {
        assert!(Q::NONRESIDUE_IS_MINUS_ONE, "the Fq2 lanes assume u² = −1");
        ifma::is_supported().then_some(Self {
            flush: flush::<C, Fq2x8<Q, W, L>>,
            convert: convert::<Fq2x8<Q, W, L>>,
            to_ifma: |x| {
                QuadExt::new(
                    <Q::Base as IfmaField<W, L>>::to_ifma(x.c0),
                    <Q::Base as IfmaField<W, L>>::to_ifma(x.c1),
                )
            },
            from_ifma: |x| {
                QuadExt::new(
                    <Q::Base as IfmaField<W, L>>::from_ifma(x.c0),
                    <Q::Base as IfmaField<W, L>>::from_ifma(x.c1),
                )
            },
        })
    }

    /// `p` with its coordinates in IFMA form.
    #[inline]
    pub fn point_to_ifma(&self, p: &Affine<C>) -> Affine<C> {
        Affine {
            x: (self.to_ifma)(p.x),
            y: (self.to_ifma)(p.y),
            infinity: p.infinity,
        }
    }

    /// The inverse of [`point_to_ifma`](Self::point_to_ifma).
    #[inline]
    pub fn point_from_ifma(&self, p: &Affine<C>) -> Affine<C> {
        Affine {
            x: (self.from_ifma)(p.x),
            y: (self.from_ifma)(p.y),
            infinity: p.infinity,
        }
    }

    /// Runs the flush.
    ///
    /// # Safety
    /// As [`FlushJob`] describes: `slots` holds every bucket named in `idx`, and `idx`
    /// is padded to whole groups of eight.
    pub(crate) unsafe fn run_flush(&self, job: &mut FlushJob<'_, C>) {
        (self.flush)(job)
    }

    /// One coordinate back from IFMA form.
    #[inline]
    pub(crate) fn coord_from_ifma(&self, x: C::Base) -> C::Base {
        (self.from_ifma)(x)
    }

    /// [`point_to_ifma`](Self::point_to_ifma) (`to_ifma`) or its inverse on a slice,
    /// eight points per product.
    pub fn convert_points(&self, pts: &mut [Affine<C>], to_ifma: bool) {
        // SAFETY: a kernel exists only where the CPU has AVX-512 IFMA; the records are
        // the slice's own points.
        unsafe {
            (self.convert)(
                pts.as_mut_ptr() as *mut u8,
                size_of::<Affine<C>>(),
                pts.len(),
                offset_of!(Affine<C>, x),
                offset_of!(Affine<C>, y),
                to_ifma,
            )
        }
    }

    /// Converts `count` records of two coordinates at `base + i·stride` in place.
    ///
    /// # Safety
    /// Every record `i < count` must be valid, writable memory holding two `C::Base`
    /// values at `x_offset` and `y_offset`.
    pub(crate) unsafe fn convert_raw(
        &self,
        base: *mut u8,
        stride: usize,
        count: usize,
        x_offset: usize,
        y_offset: usize,
        to_ifma: bool,
    ) {
        (self.convert)(base, stride, count, x_offset, y_offset, to_ifma)
    }
}

/// Interleaved product chains in the forward pass.
const CHAINS: usize = 4;

/// Multiples of `p` (and one) broadcast as lane values, and the multiplier's constants.
#[derive(Clone, Copy)]
pub(crate) struct Consts<V: LaneField> {
    pub(crate) zero: V,
    pub(crate) one: V,
    pub(crate) p: V,
    pub(crate) two_p: V,
    pub(crate) four_p: V,
    to_factor: V,
    from_factor: V,
    m: V::Mod,
}

/// Eight elements of the coordinate field in registers (IFMA form). Values stay below
/// `2p` per coefficient between operations; see the bounds in `fastzk_field::ifma`.
pub(crate) trait LaneField: Copy {
    type Elem: Field;
    /// The multiplier's broadcast constants.
    type Mod: Copy;
    /// Number of `__m512i` in one value (for the scratch area).
    const VECS: usize;
    /// Safety (all methods): the CPU supports AVX-512F and IFMA.
    unsafe fn consts() -> Consts<Self>;
    /// Eight elements from `base + offsets[l] + field_offset` (masked-off lanes are zero
    /// and read nothing).
    unsafe fn gather(
        base: *const u8,
        offsets: __m512i,
        field_offset: usize,
        mask: __mmask8,
    ) -> Self;
    /// Stores a value below `4p` (per coefficient) canonically.
    unsafe fn scatter(
        &self,
        k: &Consts<Self>,
        base: *mut u8,
        offsets: __m512i,
        field_offset: usize,
        mask: __mmask8,
    );
    /// Lanes where two canonical values are equal.
    unsafe fn eq(&self, other: &Self) -> __mmask8;
    /// `a + b`.
    unsafe fn add(a: &Self, b: &Self) -> Self;
    /// A value below `8p` (per coefficient) brought below `2p`.
    unsafe fn shrink(&self, k: &Consts<Self>) -> Self;
    /// Lanes whose value (below `2p`) is zero.
    unsafe fn is_zero(&self, k: &Consts<Self>) -> __mmask8;
    /// `b` where `mask` is set, else `a`.
    unsafe fn blend(mask: __mmask8, a: &Self, b: &Self) -> Self;
    /// `a + kp − b`.
    unsafe fn sub(a: &Self, b: &Self, kp: &Self) -> Self;
    /// `a + kp − b − c`.
    unsafe fn sub2(a: &Self, b: &Self, c: &Self, kp: &Self) -> Self;
    unsafe fn mul(a: &Self, b: &Self, k: &Consts<Self>) -> Self;
    unsafe fn square(a: &Self, k: &Consts<Self>) -> Self;
    /// Lane-wise inverses (no lane may be zero), through one scalar inversion.
    unsafe fn invert(&self, k: &Consts<Self>) -> Self;
    unsafe fn store(&self, dst: *mut __m512i);
    unsafe fn load(src: *const __m512i) -> Self;
    /// Eight elements from word-major memory: vector `i` holds 64-bit word `i` of the
    /// element's memory layout for all lanes.
    unsafe fn from_words(src: *const __m512i) -> Self;
}

#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn gather_words<const W: usize>(
    base: *const u8,
    offsets: __m512i,
    field_offset: usize,
    mask: __mmask8,
) -> [__m512i; W] {
    let mut out = [_mm512_setzero_si512(); W];
    for (i, o) in out.iter_mut().enumerate() {
        let off = _mm512_add_epi64(offsets, _mm512_set1_epi64((field_offset + 8 * i) as i64));
        *o = _mm512_mask_i64gather_epi64::<1>(_mm512_setzero_si512(), mask, off, base as *const _);
    }
    out
}

#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn scatter_words<const W: usize>(
    base: *mut u8,
    offsets: __m512i,
    field_offset: usize,
    mask: __mmask8,
    words: &[__m512i; W],
) {
    for (i, w) in words.iter().enumerate() {
        let off = _mm512_add_epi64(offsets, _mm512_set1_epi64((field_offset + 8 * i) as i64));
        _mm512_mask_i64scatter_epi64::<1>(base as *mut _, mask, off, *w);
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn blend_lanes<const L: usize>(mask: __mmask8, a: &Lanes<L>, b: &Lanes<L>) -> Lanes<L> {
    core::array::from_fn(|k| _mm512_mask_blend_epi64(mask, a[k], b[k]))
}

/// `a + kp − b − c`, normalised.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn sub2_lanes<const L: usize>(
    a: &Lanes<L>,
    b: &Lanes<L>,
    c: &Lanes<L>,
    kp: &Lanes<L>,
) -> Lanes<L> {
    let mut r: Lanes<L> = core::array::from_fn(|k| {
        _mm512_sub_epi64(_mm512_sub_epi64(_mm512_add_epi64(a[k], kp[k]), b[k]), c[k])
    });
    ifma::normalize(&mut r);
    r
}

/// Eight elements of a prime field with an `L`-limb IFMA form.
#[derive(Clone, Copy)]
pub(crate) struct Fq8<F, const W: usize, const L: usize> {
    v: Lanes<L>,
    m: PhantomData<F>,
}

impl<F, const W: usize, const L: usize> Fq8<F, W, L> {
    #[inline(always)]
    fn new(v: Lanes<L>) -> Self {
        Self { v, m: PhantomData }
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn modulus<F: IfmaField<W, L>, const W: usize, const L: usize>() -> VecModulus<L> {
    VecModulus::<L>::new(&F::IFMA)
}

impl<F: IfmaField<W, L>, const W: usize, const L: usize> LaneField for Fq8<F, W, L> {
    type Elem = F;
    type Mod = VecModulus<L>;
    const VECS: usize = L;

    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn consts() -> Consts<Self> {
        let m = modulus::<F, W, L>();
        Consts {
            zero: Self::new([_mm512_setzero_si512(); L]),
            one: Self::new(m.one),
            p: Self::new(m.p),
            two_p: Self::new(m.two_p),
            four_p: Self::new(m.four_p),
            to_factor: Self::new(m.to_factor),
            from_factor: Self::new(m.from_factor),
            m,
        }
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn gather(
        base: *const u8,
        offsets: __m512i,
        field_offset: usize,
        mask: __mmask8,
    ) -> Self {
        Self::new(ifma::split(&gather_words::<W>(
            base,
            offsets,
            field_offset,
            mask,
        )))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn scatter(
        &self,
        k: &Consts<Self>,
        base: *mut u8,
        offsets: __m512i,
        field_offset: usize,
        mask: __mmask8,
    ) {
        let c = ifma::reduce_once(&ifma::reduce_once(&self.v, &k.two_p.v), &k.p.v);
        scatter_words::<W>(base, offsets, field_offset, mask, &ifma::join(&c));
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn eq(&self, other: &Self) -> __mmask8 {
        ifma::eq_words(&self.v, &other.v)
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn add(a: &Self, b: &Self) -> Self {
        Self::new(ifma::add(&a.v, &b.v))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn shrink(&self, k: &Consts<Self>) -> Self {
        Self::new(ifma::reduce_once(
            &ifma::reduce_once(&self.v, &k.four_p.v),
            &k.two_p.v,
        ))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn is_zero(&self, k: &Consts<Self>) -> __mmask8 {
        ifma::eq_words(&ifma::reduce_once(&self.v, &k.p.v), &k.zero.v)
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn blend(mask: __mmask8, a: &Self, b: &Self) -> Self {
        Self::new(blend_lanes(mask, &a.v, &b.v))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn sub(a: &Self, b: &Self, kp: &Self) -> Self {
        Self::new(ifma::sub(&a.v, &b.v, &kp.v))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn sub2(a: &Self, b: &Self, c: &Self, kp: &Self) -> Self {
        Self::new(sub2_lanes(&a.v, &b.v, &c.v, &kp.v))
    }
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn mul(a: &Self, b: &Self, k: &Consts<Self>) -> Self {
        Self::new(ifma::mul(&a.v, &b.v, &k.m))
    }
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn square(a: &Self, k: &Consts<Self>) -> Self {
        Self::new(ifma::square(&a.v, &k.m))
    }
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn invert(&self, k: &Consts<Self>) -> Self {
        let lanes: [F; 8] = ifma::store::<F, W, L>(&self.v, &k.m);
        let inv = invert_eight(&lanes, F::ifma_inverse_fixup(F::ONE));
        Self::new(ifma::load::<F, W, L>(&inv))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn store(&self, dst: *mut __m512i) {
        for k in 0..L {
            _mm512_storeu_si512(dst.add(k), self.v[k]);
        }
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn load(src: *const __m512i) -> Self {
        Self::new(core::array::from_fn(|k| {
            _mm512_loadu_si512(src.add(k) as *const _)
        }))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn from_words(src: *const __m512i) -> Self {
        let w: [__m512i; W] = core::array::from_fn(|i| _mm512_loadu_si512(src.add(i) as *const _));
        Self::new(ifma::split(&w))
    }
}

/// Inverses of eight nonzero elements in punned IFMA form with one inversion; `fixup`
/// is the factor that turns a scalar inverse of a punned value into the punned inverse.
fn invert_eight<E: Field>(lanes: &[E; 8], fixup: E) -> [E; 8] {
    let mut inv = *lanes;
    fastzk_field::batch_inverse(&mut inv);
    inv.map(|e| e * fixup)
}

/// Eight elements of `Fq2 = Fq[u]/(u² + 1)` as two [`Fq8`] coefficient vectors.
#[derive(Clone, Copy)]
pub(crate) struct Fq2x8<Q: QuadExtConfig, const W: usize, const L: usize> {
    c0: Lanes<L>,
    c1: Lanes<L>,
    m: PhantomData<Q>,
}

impl<Q: QuadExtConfig, const W: usize, const L: usize> Fq2x8<Q, W, L> {
    #[inline(always)]
    fn new(c0: Lanes<L>, c1: Lanes<L>) -> Self {
        Self {
            c0,
            c1,
            m: PhantomData,
        }
    }
}

impl<Q: QuadExtConfig, const W: usize, const L: usize> LaneField for Fq2x8<Q, W, L>
where
    Q::Base: IfmaField<W, L>,
{
    type Elem = QuadExt<Q>;
    type Mod = VecModulus<L>;
    const VECS: usize = 2 * L;

    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn consts() -> Consts<Self> {
        let m = modulus::<Q::Base, W, L>();
        let zero = [_mm512_setzero_si512(); L];
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
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn gather(
        base: *const u8,
        offsets: __m512i,
        field_offset: usize,
        mask: __mmask8,
    ) -> Self {
        let (o0, o1) = (offset_of!(QuadExt<Q>, c0), offset_of!(QuadExt<Q>, c1));
        Self::new(
            ifma::split(&gather_words::<W>(base, offsets, field_offset + o0, mask)),
            ifma::split(&gather_words::<W>(base, offsets, field_offset + o1, mask)),
        )
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn scatter(
        &self,
        k: &Consts<Self>,
        base: *mut u8,
        offsets: __m512i,
        field_offset: usize,
        mask: __mmask8,
    ) {
        let (o0, o1) = (offset_of!(QuadExt<Q>, c0), offset_of!(QuadExt<Q>, c1));
        let canon = |v: &Lanes<L>| ifma::reduce_once(&ifma::reduce_once(v, &k.two_p.c0), &k.p.c0);
        scatter_words::<W>(
            base,
            offsets,
            field_offset + o0,
            mask,
            &ifma::join(&canon(&self.c0)),
        );
        scatter_words::<W>(
            base,
            offsets,
            field_offset + o1,
            mask,
            &ifma::join(&canon(&self.c1)),
        );
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn eq(&self, other: &Self) -> __mmask8 {
        ifma::eq_words(&self.c0, &other.c0) & ifma::eq_words(&self.c1, &other.c1)
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn add(a: &Self, b: &Self) -> Self {
        Self::new(ifma::add(&a.c0, &b.c0), ifma::add(&a.c1, &b.c1))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn shrink(&self, k: &Consts<Self>) -> Self {
        let s = |v: &Lanes<L>| ifma::reduce_once(&ifma::reduce_once(v, &k.four_p.c0), &k.two_p.c0);
        Self::new(s(&self.c0), s(&self.c1))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn is_zero(&self, k: &Consts<Self>) -> __mmask8 {
        let z = |v: &Lanes<L>| ifma::eq_words(&ifma::reduce_once(v, &k.p.c0), &k.zero.c0);
        z(&self.c0) & z(&self.c1)
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn blend(mask: __mmask8, a: &Self, b: &Self) -> Self {
        Self::new(
            blend_lanes(mask, &a.c0, &b.c0),
            blend_lanes(mask, &a.c1, &b.c1),
        )
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn sub(a: &Self, b: &Self, kp: &Self) -> Self {
        Self::new(
            ifma::sub(&a.c0, &b.c0, &kp.c0),
            ifma::sub(&a.c1, &b.c1, &kp.c1),
        )
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn sub2(a: &Self, b: &Self, c: &Self, kp: &Self) -> Self {
        Self::new(
            sub2_lanes(&a.c0, &b.c0, &c.c0, &kp.c0),
            sub2_lanes(&a.c1, &b.c1, &c.c1, &kp.c1),
        )
    }
    /// Karatsuba with `u² = −1`: `c0 = a0b0 − a1b1`, `c1 = (a0+a1)(b0+b1) − a0b0 − a1b1`,
    /// each brought back below `2p`. Inputs below `5p` per coefficient keep the sum
    /// products inside the multiplier's bound (`10p · 4p < p·2^(52L)` for both moduli).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn mul(a: &Self, b: &Self, k: &Consts<Self>) -> Self {
        let m = k.m;
        let v0 = ifma::mul(&a.c0, &b.c0, &m);
        let v1 = ifma::mul(&a.c1, &b.c1, &m);
        let s = ifma::mul(&ifma::add(&a.c0, &a.c1), &ifma::add(&b.c0, &b.c1), &m);
        let c0 = ifma::reduce_once(&ifma::sub(&v0, &v1, &k.two_p.c0), &k.two_p.c0);
        let c1 = sub2_lanes(&s, &v0, &v1, &k.four_p.c0);
        let c1 = ifma::reduce_once(&ifma::reduce_once(&c1, &k.four_p.c0), &k.two_p.c0);
        Self::new(c0, c1)
    }
    /// `(a0 + a1)(a0 − a1) + 2·a0·a1·u`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn square(a: &Self, k: &Consts<Self>) -> Self {
        let m = k.m;
        let c0 = ifma::mul(
            &ifma::add(&a.c0, &a.c1),
            &ifma::sub(&a.c0, &a.c1, &k.four_p.c0),
            &m,
        );
        let t = ifma::mul(&a.c0, &a.c1, &m);
        let c1 = ifma::reduce_once(&ifma::add(&t, &t), &k.two_p.c0);
        Self::new(c0, c1)
    }
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn invert(&self, k: &Consts<Self>) -> Self {
        let m = k.m;
        let c0: [Q::Base; 8] = ifma::store::<Q::Base, W, L>(&self.c0, &m);
        let c1: [Q::Base; 8] = ifma::store::<Q::Base, W, L>(&self.c1, &m);
        let lanes: [QuadExt<Q>; 8] = core::array::from_fn(|l| QuadExt::new(c0[l], c1[l]));
        let fix = <Q::Base as IfmaField<W, L>>::ifma_inverse_fixup(Q::Base::ONE);
        let inv = invert_eight(&lanes, QuadExt::<Q>::new(fix, Q::Base::ZERO));
        Self::new(
            ifma::load::<Q::Base, W, L>(&inv.map(|e| e.c0)),
            ifma::load::<Q::Base, W, L>(&inv.map(|e| e.c1)),
        )
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn store(&self, dst: *mut __m512i) {
        for k in 0..L {
            _mm512_storeu_si512(dst.add(k), self.c0[k]);
            _mm512_storeu_si512(dst.add(L + k), self.c1[k]);
        }
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn load(src: *const __m512i) -> Self {
        Self::new(
            core::array::from_fn(|k| _mm512_loadu_si512(src.add(k) as *const _)),
            core::array::from_fn(|k| _mm512_loadu_si512(src.add(L + k) as *const _)),
        )
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn from_words(src: *const __m512i) -> Self {
        let (o0, o1) = (
            offset_of!(QuadExt<Q>, c0) / 8,
            offset_of!(QuadExt<Q>, c1) / 8,
        );
        let w0: [__m512i; W] =
            core::array::from_fn(|i| _mm512_loadu_si512(src.add(o0 + i) as *const _));
        let w1: [__m512i; W] =
            core::array::from_fn(|i| _mm512_loadu_si512(src.add(o1 + i) as *const _));
        Self::new(ifma::split(&w0), ifma::split(&w1))
    }
}

/// In-place conversion of records to or from IFMA form (one product by a constant).
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn convert<V: LaneField>(
    base: *mut u8,
    stride: usize,
    count: usize,
    x_offset: usize,
    y_offset: usize,
    to_ifma: bool,
) {
    let k = V::consts();
    let factor = if to_ifma { k.to_factor } else { k.from_factor };
    let lane_offsets: [u64; 8] = core::array::from_fn(|l| (l * stride) as u64);
    let lane_offsets = _mm512_loadu_si512(lane_offsets.as_ptr() as *const _);
    for g in 0..count.div_ceil(8) {
        let mask: __mmask8 = if 8 * g + 8 <= count {
            0xff
        } else {
            (1u8 << (count - 8 * g)) - 1
        };
        let b = base.wrapping_add(8 * g * stride);
        for off in [x_offset, y_offset] {
            let v = V::gather(b, lane_offsets, off, mask);
            V::mul(&v, &factor, &k).scatter(&k, b, lane_offsets, off, mask);
        }
    }
}

/// Byte offsets of eight consecutive entries' bucket slots, and the lanes whose point
/// is subtracted (top bit of the index).
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn bucket_offsets(idx: &[u32], stride: usize) -> (__m512i, __mmask8) {
    let i = _mm512_cvtepu32_epi64(_mm256_loadu_si256(idx.as_ptr() as *const __m256i));
    let sign = _mm512_set1_epi64(1 << 31);
    let neg = _mm512_test_epi64_mask(i, sign);
    let b = _mm512_andnot_si512(sign, i);
    (_mm512_mul_epu32(b, _mm512_set1_epi64(stride as i64)), neg)
}

/// The flush. Safety: the CPU supports AVX-512F and IFMA; `slots` holds every bucket
/// named in `idx` (stride and offsets as described), `idx.len() ≥ 8·⌈n/8⌉`.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn flush<C: CurveConfig, V: LaneField<Elem = C::Base>>(job: &mut FlushJob<'_, C>) {
    let n = job.n;
    let groups = n.div_ceil(8);
    let words = size_of::<C::Base>() / 8;
    assert!(job.idx.len() >= 8 * groups && job.soa.len() >= groups * 2 * words * 8);
    let k = V::consts();
    // Word-major points: group g's x words start at vector g·2w, its y words w later.
    let soa = job.soa.as_ptr() as *const __m512i;
    let point_x = |g: usize| soa.add(g * 2 * words);
    let point_y = |g: usize| soa.add(g * 2 * words + words);

    // Per group: d, prefix, x(A), x(P), each V::VECS vectors.
    let per_group = 4 * V::VECS;
    job.scratch.clear();
    job.scratch.resize(groups * per_group, [0; 8]);
    job.group_masks.clear();
    job.exceptional.clear();
    let sp = job.scratch.as_mut_ptr() as *mut __m512i;
    let at = |g: usize, part: usize| sp.add(g * per_group + part * V::VECS);

    let mut acc = [k.one; CHAINS];
    for g in 0..groups {
        let valid: __mmask8 = if 8 * g + 8 <= n {
            0xff
        } else {
            (1u8 << (n - 8 * g)) - 1
        };
        let (boff, _) = bucket_offsets(&job.idx[8 * g..], job.stride);
        let ax = V::gather(job.slots, boff, 0, valid);
        let px = V::from_words(point_x(g));
        let same = ax.eq(&px) & valid;
        job.group_masks.push(same);
        let mut bits = same;
        while bits != 0 {
            job.exceptional
                .push((8 * g + bits.trailing_zeros() as usize) as u32);
            bits &= bits - 1;
        }
        let d = V::blend(same | !valid, &V::sub(&px, &ax, &k.p), &k.one);
        let c = g % CHAINS;
        d.store(at(g, 0));
        acc[c].store(at(g, 1));
        ax.store(at(g, 2));
        px.store(at(g, 3));
        acc[c] = V::mul(&acc[c], &d, &k);
    }

    // Invert the four chain products: combine them, invert the eight lanes with one
    // scalar inversion, and split the inverse back.
    let a01 = V::mul(&acc[0], &acc[1], &k);
    let a23 = V::mul(&acc[2], &acc[3], &k);
    let inv_total = V::mul(&a01, &a23, &k).invert(&k);
    let inv01 = V::mul(&inv_total, &a23, &k);
    let inv23 = V::mul(&inv_total, &a01, &k);
    let mut inv = [
        V::mul(&inv01, &acc[1], &k),
        V::mul(&inv01, &acc[0], &k),
        V::mul(&inv23, &acc[3], &k),
        V::mul(&inv23, &acc[2], &k),
    ];

    for g in (0..groups).rev() {
        let valid: __mmask8 = if 8 * g + 8 <= n {
            0xff
        } else {
            (1u8 << (n - 8 * g)) - 1
        };
        let write = valid & !job.group_masks[g];
        let c = g % CHAINS;
        let dinv = V::mul(&inv[c], &V::load(at(g, 1)), &k);
        inv[c] = V::mul(&inv[c], &V::load(at(g, 0)), &k);
        if write == 0 {
            continue;
        }
        let (ax, px) = (V::load(at(g, 2)), V::load(at(g, 3)));
        let (boff, negate) = bucket_offsets(&job.idx[8 * g..], job.stride);
        let ay = V::gather(job.slots, boff, job.y_offset, write);
        let py = V::from_words(point_y(g));
        // Subtracted points: −y = p − y (below 2p, as the arithmetic allows).
        let py = V::blend(negate, &py, &V::sub(&k.p, &py, &k.zero));
        let lambda = V::mul(&V::sub(&py, &ay, &k.p), &dinv, &k);
        // x3 = λ² − x(A) − x(P) in (0, 4p); y3 = λ·(x(A) − x3) − y(A) in (0, 3p).
        let x3 = V::sub2(&V::square(&lambda, &k), &ax, &px, &k.two_p);
        let y3 = V::mul(&lambda, &V::sub(&ax, &x3, &k.four_p), &k);
        let y3 = V::sub(&y3, &ay, &k.p);
        x3.scatter(&k, job.slots, boff, 0, write);
        y3.scatter(&k, job.slots, boff, job.y_offset, write);
    }
}

#[cfg(test)]
mod tests {
    //! The lane types the flush uses, lane by lane against the scalar fields, including
    //! the lazy input ranges the flush feeds them (up to `5p` per coefficient).
    use super::*;
    use fastzk_field::{bls12_381, bn254};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    const CASES: usize = 1000;

    /// Loads eight scalar elements (IFMA form) into lanes through the gather path.
    unsafe fn lanes<V: LaneField>(xs: &[V::Elem; 8]) -> V {
        let base = xs.as_ptr() as *const u8;
        let offs: [u64; 8] = core::array::from_fn(|l| (l * size_of::<V::Elem>()) as u64);
        V::gather(base, _mm512_loadu_si512(offs.as_ptr() as *const _), 0, 0xff)
    }

    /// Stores lanes canonically through the scatter path.
    unsafe fn back<V: LaneField>(v: &V, k: &Consts<V>) -> [V::Elem; 8] {
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

    fn check<V: LaneField>(to: fn(V::Elem) -> V::Elem, from: fn(V::Elem) -> V::Elem, seed: u64) {
        if !ifma::is_supported() {
            eprintln!("skipped: this CPU has no AVX-512 IFMA");
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let edges = [V::Elem::ZERO, V::Elem::ONE, -V::Elem::ONE];
        for case in 0..CASES {
            let pick = |rng: &mut ChaCha8Rng, l: usize| {
                if (case + l).is_multiple_of(4) {
                    edges[(case / 4 + l) % edges.len()]
                } else {
                    V::Elem::random(rng)
                }
            };
            let xs: [V::Elem; 8] = core::array::from_fn(|l| pick(&mut rng, l));
            let ys: [V::Elem; 8] = core::array::from_fn(|l| pick(&mut rng, l + 1));
            unsafe {
                let k = V::consts();
                let (a, b) = (lanes::<V>(&xs.map(to)), lanes::<V>(&ys.map(to)));
                // Lazy operands as the flush makes them: a + 4p − b in (0, 5p).
                let lazy = V::sub(&a, &b, &k.four_p);
                let prod = back(&V::mul(&a, &b, &k), &k).map(from);
                let lazy_prod = back(&V::mul(&lazy, &a, &k), &k).map(from);
                let sq = back(&V::square(&a, &k), &k).map(from);
                let diff = back(&V::sub2(&a, &b, &b, &k.two_p), &k).map(from);
                let same = a.eq(&b);
                for l in 0..8 {
                    assert_eq!(prod[l], xs[l] * ys[l], "mul lane {l}");
                    assert_eq!(lazy_prod[l], (xs[l] - ys[l]) * xs[l], "lazy mul lane {l}");
                    assert_eq!(sq[l], xs[l].square(), "square lane {l}");
                    assert_eq!(diff[l], xs[l] - ys[l] - ys[l], "sub2 lane {l}");
                    assert_eq!(same & (1 << l) != 0, xs[l] == ys[l], "eq lane {l}");
                }
                if xs.iter().all(|x| !x.is_zero()) {
                    let inv = back(&a.invert(&k), &k).map(from);
                    for l in 0..8 {
                        assert_eq!(inv[l] * xs[l], V::Elem::ONE, "invert lane {l}");
                    }
                }
                // Scratch round trip.
                let mut buf = vec![_mm512_setzero_si512(); V::VECS];
                a.store(buf.as_mut_ptr());
                assert_eq!(back(&V::load(buf.as_ptr()), &k).map(from), xs);
            }
        }
    }

    fn to2<Q: QuadExtConfig, const W: usize, const L: usize>(x: QuadExt<Q>) -> QuadExt<Q>
    where
        Q::Base: IfmaField<W, L>,
    {
        QuadExt::new(x.c0.to_ifma(), x.c1.to_ifma())
    }
    fn from2<Q: QuadExtConfig, const W: usize, const L: usize>(x: QuadExt<Q>) -> QuadExt<Q>
    where
        Q::Base: IfmaField<W, L>,
    {
        QuadExt::new(x.c0.from_ifma(), x.c1.from_ifma())
    }

    #[test]
    fn bn254_fq_lanes() {
        check::<Fq8<bn254::Fq, 4, 5>>(|x| x.to_ifma(), |x| x.from_ifma(), 1);
    }

    #[test]
    fn bls12_381_fq_lanes() {
        check::<Fq8<bls12_381::Fq, 6, 8>>(|x| x.to_ifma(), |x| x.from_ifma(), 2);
    }

    #[test]
    fn bn254_fq2_lanes() {
        check::<Fq2x8<bn254::Fq2Config, 4, 5>>(to2::<_, 4, 5>, from2::<_, 4, 5>, 3);
    }

    #[test]
    fn bls12_381_fq2_lanes() {
        check::<Fq2x8<bls12_381::Fq2Config, 6, 8>>(to2::<_, 6, 8>, from2::<_, 6, 8>, 4);
    }
}
