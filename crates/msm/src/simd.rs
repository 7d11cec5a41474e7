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

use fastzk_curve::{Affine, CurveConfig};
use fastzk_field::ifma::{self, IfmaField, Lanes, VecModulus};
use fastzk_field::Field;

/// Entry points of the eight-lane flush for one group.
pub struct SimdKernel<C: CurveConfig> {
    pub(crate) flush: unsafe fn(&mut FlushJob<'_, C>),
    pub(crate) to_ifma: fn(C::Base) -> C::Base,
    pub(crate) from_ifma: fn(C::Base) -> C::Base,
}

impl<C: CurveConfig> SimdKernel<C> {
    /// The kernel for a group whose base field has an `L`-limb IFMA form, if this CPU
    /// can run it.
    pub fn new<const W: usize, const L: usize>() -> Option<Self>
    where
        C::Base: IfmaField<W, L>,
    {
        ifma::is_supported().then_some(Self {
            flush: flush::<C, W, L>,
            to_ifma: <C::Base as IfmaField<W, L>>::to_ifma,
            from_ifma: <C::Base as IfmaField<W, L>>::from_ifma,
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
}

/// One batch for [`SimdKernel::flush`].
pub(crate) struct FlushJob<'a, C: CurveConfig> {
    /// Bucket storage: bucket `b`'s `x` at `slots + b·stride`, `y` at `+ y_offset`.
    pub slots: *mut u8,
    pub stride: usize,
    pub y_offset: usize,
    /// Bucket of each entry, padded with valid indices to a multiple of 8.
    pub idx: &'a [u32],
    /// Point of each entry (IFMA form), `n` of them.
    pub pts: &'a [Affine<C>],
    pub scratch: &'a mut Vec<[u64; 8]>,
    pub group_masks: &'a mut Vec<u8>,
    /// Output: entries whose bucket and point share `x`, left for the caller.
    pub exceptional: &'a mut Vec<u32>,
}

/// Interleaved product chains in the forward pass.
const CHAINS: usize = 4;

#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn gather<const W: usize>(
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
unsafe fn scatter<const W: usize>(
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

/// Byte offsets of eight consecutive buckets' slots.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn bucket_offsets(idx: &[u32], stride: usize) -> __m512i {
    let i = _mm512_cvtepu32_epi64(_mm256_loadu_si256(idx.as_ptr() as *const __m256i));
    _mm512_mul_epu32(i, _mm512_set1_epi64(stride as i64))
}

#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn blend<const L: usize>(mask: __mmask8, a: &Lanes<L>, b: &Lanes<L>) -> Lanes<L> {
    core::array::from_fn(|k| _mm512_mask_blend_epi64(mask, a[k], b[k]))
}

/// `a + kp − b − c`, normalised (non-negative when `b + c ≤ a + kp`).
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn sub2<const L: usize>(
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

/// The flush. Safety: the CPU supports AVX-512F and IFMA; `slots` holds every bucket
/// named in `idx` (stride and offsets as described), `idx.len() ≥ 8·⌈n/8⌉`.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn flush<C: CurveConfig, const W: usize, const L: usize>(job: &mut FlushJob<'_, C>)
where
    C::Base: IfmaField<W, L>,
{
    let n = job.pts.len();
    let groups = n.div_ceil(8);
    debug_assert!(job.idx.len() >= 8 * groups);
    let m = VecModulus::<L>::new(&<C::Base as IfmaField<W, L>>::IFMA);
    let pt_stride = size_of::<Affine<C>>();
    let (px_off, py_off) = (offset_of!(Affine<C>, x), offset_of!(Affine<C>, y));
    let lane_offsets: [u64; 8] = core::array::from_fn(|l| (l * pt_stride) as u64);
    let lane_offsets = _mm512_loadu_si512(lane_offsets.as_ptr() as *const _);
    let pts_base = job.pts.as_ptr() as *const u8;

    // Per group: d, prefix, x(A), x(P), each L vectors.
    job.scratch.clear();
    job.scratch.resize(groups * 4 * L, [0; 8]);
    job.group_masks.clear();
    job.exceptional.clear();
    let sp = job.scratch.as_mut_ptr() as *mut __m512i;
    let at = |g: usize, part: usize, k: usize| sp.add((g * 4 + part) * L + k);

    let mut acc = [m.one; CHAINS];
    for g in 0..groups {
        let valid: __mmask8 = if 8 * g + 8 <= n {
            0xff
        } else {
            (1u8 << (n - 8 * g)) - 1
        };
        let boff = bucket_offsets(&job.idx[8 * g..], job.stride);
        let pbase = pts_base.wrapping_add(8 * g * pt_stride);
        let axw = gather::<W>(job.slots, boff, 0, valid);
        let pxw = gather::<W>(pbase, lane_offsets, px_off, valid);
        let same = ifma::eq_words(&axw, &pxw) & valid;
        job.group_masks.push(same);
        let mut bits = same;
        while bits != 0 {
            job.exceptional
                .push((8 * g + bits.trailing_zeros() as usize) as u32);
            bits &= bits - 1;
        }
        let ax: Lanes<L> = ifma::split(&axw);
        let px: Lanes<L> = ifma::split(&pxw);
        let d = blend(same | !valid, &ifma::sub(&px, &ax, &m.p), &m.one);
        let c = g % CHAINS;
        for k in 0..L {
            _mm512_storeu_si512(at(g, 0, k), d[k]);
            _mm512_storeu_si512(at(g, 1, k), acc[c][k]);
            _mm512_storeu_si512(at(g, 2, k), ax[k]);
            _mm512_storeu_si512(at(g, 3, k), px[k]);
        }
        acc[c] = ifma::mul(&acc[c], &d, &m);
    }

    // Invert the four chain products: combine them, invert the eight lanes with one
    // scalar inversion, and split the inverse back.
    let a01 = ifma::mul(&acc[0], &acc[1], &m);
    let a23 = ifma::mul(&acc[2], &acc[3], &m);
    let total = ifma::mul(&a01, &a23, &m);
    let lanes: [C::Base; 8] = ifma::store::<C::Base, W, L>(&total, &m);
    let mut prefix = [C::Base::ONE; 8];
    let mut run = C::Base::ONE;
    for (p, t) in prefix.iter_mut().zip(lanes.iter()) {
        *p = run;
        run *= *t;
    }
    let mut inv_run = <C::Base as IfmaField<W, L>>::ifma_inverse_fixup(
        run.inverse().expect("denominators are nonzero"),
    );
    let mut inv_lanes = [C::Base::ONE; 8];
    for l in (0..8).rev() {
        inv_lanes[l] = prefix[l] * inv_run;
        inv_run *= lanes[l];
    }
    let inv_total: Lanes<L> = ifma::load::<C::Base, W, L>(&inv_lanes);
    let inv01 = ifma::mul(&inv_total, &a23, &m);
    let inv23 = ifma::mul(&inv_total, &a01, &m);
    let mut inv = [
        ifma::mul(&inv01, &acc[1], &m),
        ifma::mul(&inv01, &acc[0], &m),
        ifma::mul(&inv23, &acc[3], &m),
        ifma::mul(&inv23, &acc[2], &m),
    ];

    for g in (0..groups).rev() {
        let valid: __mmask8 = if 8 * g + 8 <= n {
            0xff
        } else {
            (1u8 << (n - 8 * g)) - 1
        };
        let write = valid & !job.group_masks[g];
        let load = |part: usize| -> Lanes<L> {
            core::array::from_fn(|k| _mm512_loadu_si512(at(g, part, k) as *const _))
        };
        let (d, prefix, ax, px) = (load(0), load(1), load(2), load(3));
        let c = g % CHAINS;
        let dinv = ifma::mul(&inv[c], &prefix, &m);
        inv[c] = ifma::mul(&inv[c], &d, &m);
        if write == 0 {
            continue;
        }
        let boff = bucket_offsets(&job.idx[8 * g..], job.stride);
        let pbase = pts_base.wrapping_add(8 * g * pt_stride);
        let ay: Lanes<L> = ifma::split(&gather::<W>(job.slots, boff, job.y_offset, write));
        let py: Lanes<L> = ifma::split(&gather::<W>(pbase, lane_offsets, py_off, write));
        let lambda = ifma::mul(&ifma::sub(&py, &ay, &m.p), &dinv, &m);
        // x3 = λ² − x(A) − x(P) in (0, 4p); y3 = λ·(x(A) − x3) − y(A) in (0, 3p).
        let x3 = sub2(&ifma::square(&lambda, &m), &ax, &px, &m.two_p);
        let y3 = ifma::mul(&lambda, &ifma::sub(&ax, &x3, &m.four_p), &m);
        let y3 = ifma::sub(&y3, &ay, &m.p);
        let x3w: [__m512i; W] = ifma::join(&ifma::canonicalize(&x3, &m));
        let y3w: [__m512i; W] = ifma::join(&ifma::canonicalize(&y3, &m));
        scatter(job.slots, boff, 0, write, &x3w);
        scatter(job.slots, boff, job.y_offset, write, &y3w);
    }
}
