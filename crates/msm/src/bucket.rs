//! Batch-affine bucket accumulation (the inner loop of the fast engine, the streaming
//! MSM and the precomputed mode).
//!
//! Points are added into affine buckets in batches that share one field inversion
//! (Montgomery's trick): an affine chord addition costs about 6 multiplications here
//! versus 10 for the cheapest projective mixed addition. A bucket may appear only once
//! per batch; a second point for a bucket already in the batch waits in a short queue
//! and, when that is full (scalars with few distinct digits), goes into an XYZZ
//! overflow bucket with a mixed addition, so adversarial inputs cost at most about
//! twice the batch-affine price instead of collapsing to one inversion per addition.

use fastzk_curve::{Affine, CurveConfig, Xyzz};
use fastzk_field::{ChordArith, Field, NormInverse};

use crate::ifma_flush::IfmaFlush;

/// A bucket's coordinates without the infinity flag (kept in a separate byte array),
/// cache-line aligned, so a BN254 G1 bucket is exactly one 64-byte line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot<B: Copy> {
    x: B,
    y: B,
}

/// Bucket states: empty (the identity), holding a point, or holding a point with a
/// pending addition in the current batch.
const EMPTY: u8 = 0;
const FULL: u8 = 1;
const IN_BATCH: u8 = 2;

/// Top bit of a batch or queue entry's bucket index: the point is to be subtracted.
const NEG: u32 = 1 << 31;

/// Bucket counts from which the reduction runs segmented, and the most segments it
/// uses (each step flushes this many additions twice).
pub(crate) const SEGMENTED_MIN: usize = 1024;
const SEGMENTS: usize = 512;

/// The segments [`BucketAcc::reduce`] cuts `n_buckets` (from [`SEGMENTED_MIN`]) into.
pub(crate) fn reduction_segments(n_buckets: usize) -> usize {
    (n_buckets / 8).min(SEGMENTS)
}

/// How many entries ahead a flush pass prefetches its buckets.
const AHEAD: usize = 8;

/// Hints the cache to fetch the line at `p` (a no-op off x86-64).
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching never faults, whatever the address; SSE is baseline on x86-64.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// One set of `2^(c−1)` buckets with its batch and conflict state.
pub struct BucketAcc<C: CurveConfig> {
    slots: Vec<Slot<C::Base>>,
    n: usize,
    state: Vec<u8>,
    overflow: Vec<Xyzz<C>>,
    /// Bucket of each batch entry (with [`NEG`] in kernel mode).
    batch_idx: Vec<u32>,
    /// Points of the batch (scalar mode, already negated where needed).
    batch_pts: Vec<Affine<C>>,
    /// Points of the batch in kernel mode: groups of eight, coordinates word-major
    /// (`soa[(g·2w + i)·8 + lane]`, `w` words per coordinate, `x` then `y`), so the
    /// kernel loads them without gathers.
    soa: Vec<u64>,
    /// Prefix products of the denominators' norms (scalar mode): the inversion chain runs
    /// in the prime field below the coordinates (`Fq` for G2, see [`NormInverse`]).
    prefix: Vec<Norm<C>>,
    /// The denominators' norms, kept from the forward pass.
    norms: Vec<Norm<C>>,
    queue: Vec<(u32, Affine<C>)>,
    spare: Vec<(u32, Affine<C>)>,
    batch_size: usize,
    queue_cap: usize,
    /// The eight-lane flush; when set, buckets and incoming points are in IFMA form.
    kernel: Option<&'static IfmaFlush<C>>,
    scratch: Vec<[u64; 8]>,
    group_masks: Vec<u8>,
    exceptional: Vec<u32>,
    /// With a kernel: the slots have been converted back to the usual form (after
    /// [`reduce`](Self::reduce); [`reset`](Self::reset) clears it).
    slots_standard: bool,
}

/// The prime field of a group's batch inversions (`Fq` for G1 and G2 alike).
type Norm<C> = <<C as CurveConfig>::Base as NormInverse>::Norm;

/// One batch for the eight-lane flush ([`IfmaFlush`]).
#[cfg_attr(
    not(any(target_arch = "x86_64", feature = "ifma-model")),
    allow(dead_code)
)] // no kernel reads it there
pub(crate) struct FlushJob<'a, C: CurveConfig> {
    pub group: std::marker::PhantomData<C>,
    /// Bucket storage: bucket `b`'s `x` at `slots + b·stride`, `y` at `+ y_offset`.
    pub slots: *mut u8,
    pub stride: usize,
    pub y_offset: usize,
    /// Bucket of each entry, top bit set where the point is subtracted, padded with
    /// valid indices to a multiple of 8.
    pub idx: &'a [u32],
    /// Number of entries.
    pub n: usize,
    /// Points of the entries (IFMA form) in groups of eight, word-major:
    /// `soa[(g·2w + i)·8 + lane]` for word `i` of `x` (`i < w`) then of `y`.
    pub soa: &'a [u64],
    pub scratch: &'a mut Vec<[u64; 8]>,
    pub group_masks: &'a mut Vec<u8>,
    /// Output: entries whose bucket and point share `x`, left for the caller.
    pub exceptional: &'a mut Vec<u32>,
}

impl<C: CurveConfig> BucketAcc<C> {
    /// `n_buckets` buckets, batches of `batch_size` additions.
    pub fn new(n_buckets: usize, batch_size: usize) -> Self {
        let batch_size = batch_size.clamp(1, n_buckets.max(1));
        let zero = Slot {
            x: C::Base::ZERO,
            y: C::Base::ZERO,
        };
        Self {
            slots: vec![zero; n_buckets],
            n: n_buckets,
            state: vec![EMPTY; n_buckets],
            overflow: Vec::new(),
            batch_idx: Vec::with_capacity(batch_size + 8),
            batch_pts: Vec::with_capacity(batch_size),
            soa: Vec::new(),
            prefix: Vec::with_capacity(batch_size),
            norms: Vec::with_capacity(batch_size),
            queue: Vec::with_capacity(batch_size),
            spare: Vec::with_capacity(batch_size),
            batch_size,
            queue_cap: batch_size.max(16),
            kernel: None,
            scratch: Vec::new(),
            group_masks: Vec::new(),
            exceptional: Vec::new(),
            slots_standard: false,
        }
    }

    /// Like [`new`](Self::new), flushing with the eight-lane `kernel`: points passed to
    /// [`add`](Self::add) must then be in IFMA form
    /// ([`IfmaFlush::point_to_ifma`]); results come out in the usual form.
    pub fn with_kernel(n_buckets: usize, batch_size: usize, kernel: &'static IfmaFlush<C>) -> Self {
        let mut acc = Self::new(n_buckets, batch_size);
        acc.kernel = Some(kernel);
        acc.batch_pts = Vec::new();
        acc.soa = vec![0; acc.batch_size.next_multiple_of(8) * 2 * Self::WORDS];
        acc
    }

    /// The scalar flush's batch size: it amortises the inversion (2 µs for BN254, about
    /// 80 multiplications) and keeps conflicts rare, and it is small enough that the
    /// batch's buckets and points stay near the core between the push that prefetches
    /// them and the flush (BN254 G1 2^20 without IFMA, c = 14: batches of 256 instead
    /// of 1024 were ~10 % faster in a harness calling the engine directly; the whole
    /// `fastzk bench msm` did not show it above a noisy host's ±10 %).
    pub fn default_batch(n_buckets: usize) -> usize {
        (n_buckets / 32).clamp(16, 2048)
    }

    /// The eight-lane flush's batch size (its lanes amortise more per flush).
    pub fn kernel_batch(n_buckets: usize) -> usize {
        (n_buckets / 8).clamp(16, 2048)
    }

    /// [`default_batch`](Self::default_batch) or [`kernel_batch`](Self::kernel_batch).
    pub fn batch_for(n_buckets: usize, kernel: bool) -> usize {
        if kernel {
            Self::kernel_batch(n_buckets)
        } else {
            Self::default_batch(n_buckets)
        }
    }

    /// Bytes of bucket storage per bucket (for the planner's cache model).
    pub fn bucket_bytes() -> usize {
        size_of::<Slot<C::Base>>() + 1
    }

    pub fn n_buckets(&self) -> usize {
        self.n
    }

    /// 64-bit words in one coordinate.
    const WORDS: usize = size_of::<C::Base>() / 8;

    /// Writes batch entry `j`'s point into the kernel's word-major buffer.
    #[inline(always)]
    fn write_soa(&mut self, j: usize, p: &Affine<C>) {
        let w = Self::WORDS;
        let (g, lane) = (j / 8, j % 8);
        let base = g * 2 * w * 8 + lane;
        let x = &p.x as *const C::Base as *const u64;
        let y = &p.y as *const C::Base as *const u64;
        for i in 0..w {
            // SAFETY: kernel mode only runs for coordinate types that are plain arrays of
            // u64 limbs (prime fields and their quadratic extensions), `w` words long.
            unsafe {
                self.soa[base + i * 8] = x.add(i).read_unaligned();
                self.soa[base + (w + i) * 8] = y.add(i).read_unaligned();
            }
        }
    }

    /// Batch entry `j`'s point (with its sign applied) back from the word-major buffer.
    fn read_soa(&self, j: usize) -> Affine<C> {
        let w = Self::WORDS;
        let (g, lane) = (j / 8, j % 8);
        let base = g * 2 * w * 8 + lane;
        let mut p = Affine::<C>::new_unchecked(C::Base::ZERO, C::Base::ZERO);
        let x = &mut p.x as *mut C::Base as *mut u64;
        let y = &mut p.y as *mut C::Base as *mut u64;
        for i in 0..w {
            // SAFETY: as in `write_soa`; the words were written from a valid coordinate.
            unsafe {
                x.add(i).write_unaligned(self.soa[base + i * 8]);
                y.add(i).write_unaligned(self.soa[base + (w + i) * 8]);
            }
        }
        if self.batch_idx[j] & NEG != 0 {
            -p
        } else {
            p
        }
    }

    /// Prefetches every cache line of bucket `b` (BLS12-381 and G2 slots span two: a
    /// `y` on the second line would otherwise miss in the backward pass).
    #[inline(always)]
    fn prefetch_slot(&self, b: usize) {
        let p = self.slot(b) as *const Slot<C::Base> as *const u8;
        for off in (0..size_of::<Slot<C::Base>>()).step_by(64) {
            prefetch(p.wrapping_add(off));
        }
    }

    #[inline(always)]
    fn slot(&self, b: usize) -> &Slot<C::Base> {
        &self.slots[b]
    }

    #[inline(always)]
    fn slot_mut(&mut self, b: usize) -> &mut Slot<C::Base> {
        &mut self.slots[b]
    }

    fn overflow_add(&mut self, b: usize, p: &Affine<C>) {
        if self.overflow.is_empty() {
            self.overflow = vec![Xyzz::identity(); self.n];
        }
        let p = match self.kernel {
            Some(k) => k.point_from_ifma(p),
            None => *p,
        };
        self.overflow[b] = self.overflow[b].add_affine(&p);
    }

    /// Adds `p` into bucket `b`.
    #[inline]
    pub fn add(&mut self, b: usize, p: &Affine<C>) {
        self.add_signed(b, p, false);
    }

    /// Adds `p`, or `−p` when `negate`, into bucket `b` (`b < 2^31`). In kernel mode the
    /// negation happens on eight lanes inside the flush.
    #[inline]
    pub fn add_signed(&mut self, b: usize, p: &Affine<C>, negate: bool) {
        if p.infinity {
            return;
        }
        debug_assert!(b < NEG as usize);
        if self.state[b] == IN_BATCH {
            if self.queue.len() < self.queue_cap {
                self.queue
                    .push((b as u32 | if negate { NEG } else { 0 }, *p));
            } else {
                self.overflow_add(b, &if negate { -*p } else { *p });
            }
            return;
        }
        self.push(b, p, negate);
        if self.batch_idx.len() >= self.batch_size {
            self.flush();
            self.drain_queue();
        }
    }

    #[inline(always)]
    fn push(&mut self, b: usize, p: &Affine<C>, negate: bool) {
        debug_assert!(!self.slots_standard, "add after reduce needs reset first");
        if self.state[b] == EMPTY {
            self.state[b] = FULL;
            let y = if negate { -p.y } else { p.y };
            *self.slot_mut(b) = Slot { x: p.x, y };
            return;
        }
        self.state[b] = IN_BATCH;
        // The bucket is read only when the batch is flushed: fetch it meanwhile.
        self.prefetch_slot(b);
        if self.kernel.is_some() {
            self.write_soa(self.batch_idx.len(), p);
            self.batch_idx.push(b as u32 | if negate { NEG } else { 0 });
        } else {
            self.batch_idx.push(b as u32);
            self.batch_pts.push(if negate { -*p } else { *p });
        }
    }

    /// Re-offers queued points; those that conflict again wait for the next batch, and
    /// go to the overflow buckets only when the queue is full. (Sending every repeat
    /// conflict to the overflow buckets cost projective additions and, once a window
    /// had any, its segmented reduction: at 2^18 on BLS12-381 the XYZZ share of the
    /// profile fell from 8.7 % to 2.5 % with this change.)
    fn drain_queue(&mut self) {
        let mut q = std::mem::take(&mut self.spare);
        std::mem::swap(&mut q, &mut self.queue);
        for (e, p) in q.iter() {
            let (b, negate) = ((e & !NEG) as usize, e & NEG != 0);
            if self.state[b] == IN_BATCH {
                if self.queue.len() < self.queue_cap {
                    self.queue.push((*e, *p));
                } else {
                    self.overflow_add(b, &if negate { -*p } else { *p });
                }
            } else {
                self.push(b, p, negate);
                if self.batch_idx.len() >= self.batch_size {
                    self.flush();
                }
            }
        }
        q.clear();
        self.spare = q;
    }

    /// The pending batch on eight lanes.
    fn flush_simd(&mut self, kernel: &IfmaFlush<C>) {
        let n = self.batch_idx.len();
        // Pad the bucket indices to whole groups of eight with a valid index.
        let pad = n.next_multiple_of(8) - n;
        self.batch_idx
            .extend(std::iter::repeat_n(self.batch_idx[0], pad));
        let mut job = FlushJob {
            group: std::marker::PhantomData,
            slots: self.slots.as_mut_ptr() as *mut u8,
            stride: size_of::<Slot<C::Base>>(),
            y_offset: std::mem::offset_of!(Slot<C::Base>, y),
            idx: &self.batch_idx,
            n,
            soa: &self.soa,
            scratch: &mut self.scratch,
            group_masks: &mut self.group_masks,
            exceptional: &mut self.exceptional,
        };
        // SAFETY: the kernel exists only where the CPU has AVX-512 IFMA; every index in
        // `batch_idx` is a bucket below `n` (so inside `slots`), and the indices are
        // padded to a multiple of eight.
        unsafe { kernel.run_flush(&mut job) };
        self.batch_idx.truncate(n);
        for &b in &self.batch_idx {
            self.state[(b & !NEG) as usize] = FULL;
        }
        // Doublings and cancellations: the bucket keeps its point, the new point goes
        // to the projective overflow bucket.
        let exceptional = std::mem::take(&mut self.exceptional);
        for &j in &exceptional {
            let p = self.read_soa(j as usize);
            self.overflow_add((self.batch_idx[j as usize] & !NEG) as usize, &p);
        }
        self.exceptional = exceptional;
        self.batch_idx.clear();
        self.batch_pts.clear();
    }

    /// Performs the pending batch with one inversion.
    pub fn flush(&mut self) {
        let n = self.batch_idx.len();
        if n == 0 {
            return;
        }
        if let Some(kernel) = self.kernel {
            self.flush_simd(kernel);
            return;
        }
        // Forward: the denominators `p.x − a.x`, their norms and the norms' prefix
        // products. A zero denominator (the point equals the bucket or its negation)
        // would need a doubling or give the identity: that entry is marked and its point
        // goes to the projective overflow bucket instead, as in the eight-lane flush, so
        // the backward pass has no branches on the common path.
        self.prefix.clear();
        self.norms.clear();
        let mut acc = Norm::<C>::ONE;
        let mut exceptional = false;
        for j in 0..n {
            if j + AHEAD < n {
                self.prefetch_slot(self.batch_idx[j + AHEAD] as usize);
            }
            let b = self.batch_idx[j] as usize;
            let d = self.batch_pts[j].x - self.slot(b).x;
            let mut norm = d.norm_of();
            if norm.is_zero() {
                norm = Norm::<C>::ONE;
                self.batch_idx[j] |= NEG;
                exceptional = true;
            }
            self.prefix.push(acc);
            self.norms.push(norm);
            acc = acc.chain_mul(&norm);
        }
        let mut inv = acc
            .settle()
            .inverse()
            .expect("a product of nonzero norms is nonzero");
        for j in (0..n).rev() {
            if j >= AHEAD {
                self.prefetch_slot((self.batch_idx[j - AHEAD] & !NEG) as usize);
            }
            let b = self.batch_idx[j];
            if b & NEG != 0 {
                continue; // its norm is one: `inv` is unchanged
            }
            let b = b as usize;
            let p = &self.batch_pts[j];
            let a = *self.slot(b);
            let norm_inv = inv.chain_mul(&self.prefix[j]);
            inv = inv.chain_mul(&self.norms[j]);
            // The denominator again (for a prime field unused, and optimised away).
            let dinv = (p.x - a.x).inverse_from_norm(norm_inv);
            let (x, y) = C::Base::chord(&a.x, &a.y, &p.x, &p.y, &dinv);
            *self.slot_mut(b) = Slot { x, y };
        }
        for j in 0..n {
            let b = (self.batch_idx[j] & !NEG) as usize;
            self.state[b] = FULL;
        }
        if exceptional {
            for j in 0..n {
                if self.batch_idx[j] & NEG != 0 {
                    let p = self.batch_pts[j];
                    self.overflow_add((self.batch_idx[j] & !NEG) as usize, &p);
                }
            }
        }
        self.batch_idx.clear();
        self.batch_pts.clear();
    }

    /// Completes all pending work.
    pub fn finish(&mut self) {
        while !self.batch_idx.is_empty() || !self.queue.is_empty() {
            self.flush();
            self.drain_queue();
        }
    }

    /// The affine part of bucket `b` (after [`finish`](Self::finish)).
    #[inline(always)]
    fn affine(&self, b: usize) -> Affine<C> {
        if self.state[b] == EMPTY {
            Affine::identity()
        } else {
            let s = self.slot(b);
            match self.kernel {
                Some(k) if !self.slots_standard => {
                    Affine::new_unchecked(k.coord_from_ifma(s.x), k.coord_from_ifma(s.y))
                }
                _ => Affine::new_unchecked(s.x, s.y),
            }
        }
    }

    /// Bucket `b` (after [`finish`](Self::finish)) as XYZZ.
    #[inline]
    pub fn bucket(&self, b: usize) -> Xyzz<C> {
        let base = Xyzz::from(self.affine(b));
        if self.overflow.is_empty() {
            base
        } else {
            base.add_xyzz(&self.overflow[b])
        }
    }

    /// `Σ_b (b+1)·bucket_b` by the running-sum method (BDLO12), after `finish`.
    pub fn reduce(&mut self) -> Xyzz<C> {
        self.finish();
        if !self.slots_standard && self.overflow.is_empty() && self.n >= SEGMENTED_MIN {
            if let Some(r) = self.reduce_segmented() {
                return r;
            }
        }
        if let (Some(k), false) = (self.kernel, self.slots_standard) {
            // SAFETY: `slots` holds `n` slots of two coordinates at these offsets.
            unsafe {
                k.convert_raw(
                    self.slots.as_mut_ptr() as *mut u8,
                    size_of::<Slot<C::Base>>(),
                    self.n,
                    std::mem::offset_of!(Slot<C::Base>, x),
                    std::mem::offset_of!(Slot<C::Base>, y),
                    false,
                )
            };
            self.slots_standard = true;
        }
        let mut running = Xyzz::<C>::identity();
        let mut total = Xyzz::<C>::identity();
        let has_overflow = !self.overflow.is_empty();
        for b in (0..self.n).rev() {
            if self.state[b] != EMPTY {
                running = running.add_affine(&self.affine(b));
            }
            if has_overflow {
                running = running.add_xyzz(&self.overflow[b]);
            }
            total = total.add_xyzz(&running);
        }
        total
    }

    /// [`reduce`](Self::reduce) from [`SEGMENTED_MIN`] buckets, on whichever flush this
    /// accumulator uses (BN254 G1 2^20 on the scalar flush, c = 16: the plain running
    /// sum's XYZZ additions were 9 % of the profile). The buckets are cut into `S`
    /// segments of `len`, and the `S` running sums and the `S` totals advance together,
    /// one batch-affine addition each per step (two flushes of `S` additions), instead of
    /// two projective additions per bucket. With `run_j = Σ_i B_(j·len+i)` and
    /// `tot_j = Σ_i (i+1)·B_(j·len+i)`, the result is `Σ_j tot_j + len·Σ_j j·run_j`.
    ///
    /// `None` when a running sum met a doubling or cancellation (its value then lives
    /// partly in a projective overflow bucket and cannot feed the totals as an affine
    /// point); the buckets are untouched, so the caller reduces them the usual way.
    fn reduce_segmented(&mut self) -> Option<Xyzz<C>> {
        let segs = reduction_segments(self.n);
        let len = self.n / segs;
        debug_assert_eq!(segs * len, self.n, "bucket counts are powers of two");
        let make = || match self.kernel {
            Some(k) => BucketAcc::<C>::with_kernel(segs, segs, k),
            None => BucketAcc::<C>::new(segs, segs),
        };
        let (mut run, mut tot) = (make(), make());
        for i in (0..len).rev() {
            for j in 0..segs {
                let b = j * len + i;
                if self.state[b] != EMPTY {
                    let s = self.slot(b);
                    run.add(j, &Affine::new_unchecked(s.x, s.y));
                }
            }
            run.finish();
            if !run.overflow.is_empty() {
                return None;
            }
            for j in 0..segs {
                if run.state[j] != EMPTY {
                    let s = run.slot(j);
                    tot.add(j, &Affine::new_unchecked(s.x, s.y));
                }
            }
            tot.finish();
        }
        // Σ_j j·run_j by a running sum over the segments, times len (a power of two).
        let mut weighted = Xyzz::<C>::identity();
        let mut suffix = Xyzz::<C>::identity();
        for j in (1..segs).rev() {
            suffix = suffix.add_xyzz(&run.bucket(j));
            weighted = weighted.add_xyzz(&suffix);
        }
        for _ in 0..len.trailing_zeros() {
            weighted = weighted.double();
        }
        for j in 0..segs {
            weighted = weighted.add_xyzz(&tot.bucket(j));
        }
        Some(weighted)
    }

    /// Clears every bucket for reuse.
    pub fn reset(&mut self) {
        self.finish();
        self.state.fill(EMPTY);
        // Every slot is empty now, so whatever form they hold no longer matters.
        self.slots_standard = false;
        if !self.overflow.is_empty() {
            self.overflow.fill(Xyzz::identity());
        }
    }
}
