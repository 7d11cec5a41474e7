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
//! ([`fastzk_field::ifma::IfmaField::to_ifma`]); the caller converts on the way in and out. Lanes whose
//! bucket and point share an `x` coordinate (doubling or cancellation, rare) are not
//! written; they are reported back so the caller can finish them with a projective
//! addition.
//!
//! The flush is written once over the lane type `V` ([`LaneField`]) and its vector type
//! ([`Avx512`]): [`IfmaFlush::new`] runs it on the CPU's AVX-512 IFMA instructions,
//! [`IfmaFlush::model`] (feature `ifma-model`) on the software model of the lanes, on
//! any host, for tests.

// Off x86-64 and without the model nothing instantiates the generic flush.
#![cfg_attr(
    not(any(target_arch = "x86_64", feature = "ifma-model")),
    allow(dead_code)
)]

use core::mem::{offset_of, size_of};

use fastzk_curve::{Affine, CurveConfig};
use fastzk_field::ifma::lanes::LaneField;
use fastzk_field::ifma::Avx512;

use crate::bucket::FlushJob;

/// Entry points of the eight-lane flush for one group.
pub struct IfmaFlush<C: CurveConfig> {
    flush: unsafe fn(&mut FlushJob<'_, C>),
    /// `(base, stride, count, x_offset, y_offset, to_ifma)`: converts records in place.
    convert: unsafe fn(*mut u8, usize, usize, usize, usize, bool),
    to_ifma: fn(C::Base) -> C::Base,
    from_ifma: fn(C::Base) -> C::Base,
}

impl<C: CurveConfig> IfmaFlush<C> {
    /// The flush for a group whose coordinates are held in the lane type `V`
    /// ([`Fq8`](fastzk_field::ifma::lanes::Fq8) for G1,
    /// [`Fq2x8`](fastzk_field::ifma::lanes::Fq2x8) for G2), if this CPU can run it.
    #[cfg(target_arch = "x86_64")]
    pub fn new<V>() -> Option<Self>
    where
        V: LaneField<Elem = C::Base, Vec = core::arch::x86_64::__m512i>,
    {
        fastzk_field::ifma::is_supported().then_some(Self {
            flush: flush_avx512::<C, V>,
            convert: convert_avx512::<V>,
            to_ifma: V::elem_to_ifma,
            from_ifma: V::elem_from_ifma,
        })
    }

    /// The flush on AVX2 lanes ([`Avx2`](fastzk_field::ifma::avx2::Avx2): products on
    /// FMA), if this CPU has AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    pub fn new_avx2<V>() -> Option<Self>
    where
        V: LaneField<Elem = C::Base, Vec = fastzk_field::ifma::avx2::Avx2>,
    {
        fastzk_field::ifma::avx2::is_supported().then_some(Self {
            flush: flush_avx2::<C, V>,
            convert: convert_avx2::<V>,
            to_ifma: V::elem_to_ifma,
            from_ifma: V::elem_from_ifma,
        })
    }

    /// The same flush on the software model of the lanes
    /// ([`Model`](fastzk_field::ifma::Model)): any host, slow, for tests and debugging.
    #[cfg(feature = "ifma-model")]
    pub fn model<V>() -> Self
    where
        V: LaneField<Elem = C::Base, Vec = fastzk_field::ifma::Model>,
    {
        Self {
            flush: flush::<C, V>,
            convert: convert::<V>,
            to_ifma: V::elem_to_ifma,
            from_ifma: V::elem_from_ifma,
        }
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
    /// is padded to whole groups of eight. (A hardware kernel exists only where the CPU
    /// has AVX-512 IFMA.)
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
        // SAFETY: a hardware kernel exists only where the CPU has AVX-512 IFMA; the
        // records are the slice's own points.
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

/// [`convert`] on the CPU's instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn convert_avx512<V: LaneField>(
    base: *mut u8,
    stride: usize,
    count: usize,
    x_offset: usize,
    y_offset: usize,
    to_ifma: bool,
) {
    convert::<V>(base, stride, count, x_offset, y_offset, to_ifma)
}

/// [`flush`] on the CPU's instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn flush_avx512<C: CurveConfig, V: LaneField<Elem = C::Base>>(job: &mut FlushJob<'_, C>) {
    flush::<C, V>(job)
}

/// [`convert`] on AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn convert_avx2<V: LaneField>(
    base: *mut u8,
    stride: usize,
    count: usize,
    x_offset: usize,
    y_offset: usize,
    to_ifma: bool,
) {
    convert::<V>(base, stride, count, x_offset, y_offset, to_ifma)
}

/// [`flush`] on AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn flush_avx2<C: CurveConfig, V: LaneField<Elem = C::Base>>(job: &mut FlushJob<'_, C>) {
    flush::<C, V>(job)
}

// `convert` and `flush` are `inline(always)` so that in the entry points above the lane
// arithmetic and the intrinsics inline under the enabled features.

/// In-place conversion of records to or from IFMA form (one product by a constant).
#[inline(always)]
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
    let lane_offsets = V::Vec::from_array(core::array::from_fn(|l| (l * stride) as u64));
    for g in 0..count.div_ceil(8) {
        let mask: u8 = if 8 * g + 8 <= count {
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
#[inline(always)]
unsafe fn bucket_offsets<X: Avx512>(idx: &[u32], stride: usize) -> (X, u8) {
    debug_assert!(idx.len() >= 8);
    let i = X::load_u32(idx.as_ptr());
    let sign = X::splat(1 << 31);
    let neg = X::test(i, sign);
    let b = X::andnot(sign, i);
    (X::mul_epu32(b, X::splat(stride as u64)), neg)
}

/// The lanes of group `g` that hold one of the `n` entries.
#[inline(always)]
fn valid_lanes(n: usize, g: usize) -> u8 {
    if 8 * g + 8 <= n {
        0xff
    } else {
        (1u8 << (n - 8 * g)) - 1
    }
}

/// The flush. Safety: `V` can run on this CPU; `slots` holds every bucket named in
/// `idx` (stride and offsets as described), `idx.len() ≥ 8·⌈n/8⌉`.
#[inline(always)]
unsafe fn flush<C: CurveConfig, V: LaneField<Elem = C::Base>>(job: &mut FlushJob<'_, C>) {
    let n = job.n;
    let groups = n.div_ceil(8);
    let words = size_of::<C::Base>() / 8;
    assert!(job.idx.len() >= 8 * groups && job.soa.len() >= groups * 2 * words * 8);
    let k = V::consts();
    // Word-major points: group g's x words start at vector g·2w, its y words w later.
    let soa = job.soa.as_ptr() as *const V::Vec;
    let point_x = |g: usize| soa.add(g * 2 * words);
    let point_y = |g: usize| soa.add(g * 2 * words + words);

    // Per group: d, prefix, x(A), x(P), each V::VECS vectors.
    let per_group = 4 * V::VECS;
    // The forward pass writes every part of every group before the backward pass reads
    // one, so the buffer only grows: clearing and zeroing it each flush was ~3 % of the
    // flush's samples (BN254 G1 2^20, FMA lanes).
    if job.scratch.len() < groups * per_group {
        job.scratch.resize(groups * per_group, [0; 8]);
    }
    job.group_masks.clear();
    job.exceptional.clear();
    let sp = job.scratch.as_mut_ptr() as *mut V::Vec;
    let at = |g: usize, part: usize| sp.add(g * per_group + part * V::VECS);

    // One group's denominators `x(P) − x(A)` (one where the lane is exceptional or
    // padding), with what the backward pass needs stored beside them.
    macro_rules! denominators {
        ($g:expr) => {{
            let g = $g;
            let valid = valid_lanes(n, g);
            let (boff, _) = bucket_offsets::<V::Vec>(&job.idx[8 * g..], job.stride);
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
            d.store(at(g, 0));
            ax.store(at(g, 2));
            px.store(at(g, 3));
            d
        }};
    }

    // Two groups a step, on neighbouring chains (g even: chains 0 and 1, or 2 and 3), so
    // their products can run in lockstep (`mul2`).
    let mut acc = [k.one; CHAINS];
    let mut g = 0;
    while g < groups {
        let c = g % CHAINS;
        let d = denominators!(g);
        acc[c].store(at(g, 1));
        if g + 1 < groups {
            let d1 = denominators!(g + 1);
            acc[c + 1].store(at(g + 1, 1));
            [acc[c], acc[c + 1]] = V::mul2([&acc[c], &d], [&acc[c + 1], &d1], &k);
            g += 2;
        } else {
            acc[c] = V::mul(&acc[c], &d, &k);
            g += 1;
        }
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

    // The chain step of group `g`: its lanes' inverses, and the chain moved past it
    // (two independent products).
    macro_rules! inverses {
        ($g:expr) => {{
            let g = $g;
            let c = g % CHAINS;
            let [dinv, next] = V::mul2(
                [&inv[c], &V::load(at(g, 1))],
                [&inv[c], &V::load(at(g, 0))],
                &k,
            );
            inv[c] = next;
            dinv
        }};
    }
    // The lanes of group `g` whose sum is written (not padding, not exceptional).
    let writes = |g: usize| valid_lanes(n, g) & !job.group_masks[g];
    // Group `g`'s chord inputs: `(x(A), x(P), y(A), y(P) − y(A), offsets, lanes to write)`.
    macro_rules! chord_inputs {
        ($g:expr) => {{
            let g = $g;
            let write = writes(g);
            let (ax, px) = (V::load(at(g, 2)), V::load(at(g, 3)));
            let (boff, negate) = bucket_offsets::<V::Vec>(&job.idx[8 * g..], job.stride);
            let ay = V::gather(job.slots, boff, job.y_offset, write);
            let py = V::from_words(point_y(g));
            // Subtracted points: −y = p − y (below 2p, as the arithmetic allows).
            let py = V::blend(negate, &py, &V::sub(&k.p, &py, &k.zero));
            (ax, px, ay, V::sub(&py, &ay, &k.p), boff, write)
        }};
    }
    // x3 = λ² − x(A) − x(P) in (0, 4p); y3 = λ·(x(A) − x3) − y(A) in (0, 3p).
    macro_rules! store_sums {
        ($x3:expr, $y3:expr, $ay:expr, $boff:expr, $write:expr) => {{
            let y3 = V::sub(&$y3, &$ay, &k.p);
            $x3.scatter(&k, job.slots, $boff, 0, $write);
            y3.scatter(&k, job.slots, $boff, job.y_offset, $write);
        }};
    }

    // Two groups a step (g and g − 1, on different chains), their chords in lockstep.
    let mut g = groups;
    while g > 0 {
        let hi = g - 1;
        let dinv_hi = inverses!(hi);
        if hi == 0 || writes(hi - 1) == 0 || writes(hi) == 0 {
            // One group (the last, or a pair with nothing to write on one side).
            if writes(hi) != 0 {
                let (ax, px, ay, dy, boff, write) = chord_inputs!(hi);
                let lambda = V::mul(&dy, &dinv_hi, &k);
                let x3 = V::sub2(&V::square(&lambda, &k), &ax, &px, &k.two_p);
                let y3 = V::mul(&lambda, &V::sub(&ax, &x3, &k.four_p), &k);
                store_sums!(x3, y3, ay, boff, write);
            }
            g -= 1;
            continue;
        }
        let lo = hi - 1;
        let dinv_lo = inverses!(lo);
        let (ax, px, ay, dy, boff, write) = chord_inputs!(hi);
        let (ax1, px1, ay1, dy1, boff1, write1) = chord_inputs!(lo);
        let [lambda, lambda1] = V::mul2([&dy, &dinv_hi], [&dy1, &dinv_lo], &k);
        let [sq, sq1] = V::square2(&lambda, &lambda1, &k);
        let x3 = V::sub2(&sq, &ax, &px, &k.two_p);
        let x31 = V::sub2(&sq1, &ax1, &px1, &k.two_p);
        let [y3, y31] = V::mul2(
            [&lambda, &V::sub(&ax, &x3, &k.four_p)],
            [&lambda1, &V::sub(&ax1, &x31, &k.four_p)],
            &k,
        );
        store_sums!(x3, y3, ay, boff, write);
        store_sums!(x31, y31, ay1, boff1, write1);
        g -= 2;
    }
}
