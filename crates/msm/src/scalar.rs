//! Scalars as plain integers: canonical limbs, the fast fixed-width GLV split, and the
//! window/digit helpers every engine shares.

use fastzk_curve::{Affine, CurveConfig};
use num_bigint::{BigInt, Sign};
use rayon::prelude::*;

use num_traits::{Signed, Zero};

/// GLV data in 256-bit two's-complement form: `k = k1 + k2·λ (mod r)` computed with
/// two 256×256 high products and four low products, no big-integer allocation.
///
/// Correctness does not depend on the rounding: for any integers `c1, c2`,
/// `k1 = k − c1·a1 − c2·a2` and `k2 = −c1·b1 − c2·b2` satisfy the congruence because
/// `(a_i, b_i)` are lattice vectors; the rounding only keeps `|k1|, |k2|` near `√r`.
#[derive(Clone, Debug)]
pub struct GlvFast<C: CurveConfig> {
    pub beta: C::Base,
    a1: [u64; 4],
    b1: [u64; 4],
    a2: [u64; 4],
    b2: [u64; 4],
    g1: [u64; 4],
    g1_neg: bool,
    g2: [u64; 4],
    g2_neg: bool,
}

fn twos(v: &BigInt) -> [u64; 4] {
    let mag = v.magnitude().to_u64_digits();
    let mut out = [0u64; 4];
    for (o, m) in out.iter_mut().zip(mag.iter()) {
        *o = *m;
    }
    if v.sign() == Sign::Minus {
        neg256(&out)
    } else {
        out
    }
}

fn mag4(v: &BigInt) -> [u64; 4] {
    let mut out = [0u64; 4];
    for (o, m) in out.iter_mut().zip(v.magnitude().to_u64_digits()) {
        *o = m;
    }
    out
}

#[inline]
pub(crate) fn neg256(a: &[u64; 4]) -> [u64; 4] {
    let mut out = [0u64; 4];
    let mut carry = 1u128;
    for i in 0..4 {
        let v = (!a[i]) as u128 + carry;
        out[i] = v as u64;
        carry = v >> 64;
    }
    out
}

#[inline]
fn sub256(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let mut out = [0u64; 4];
    let mut borrow = 0u64;
    for i in 0..4 {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(borrow);
        out[i] = d;
        borrow = (b1 | b2) as u64;
    }
    out
}

/// Low 256 bits of `a·b`.
#[inline]
fn mul_lo(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let mut out = [0u64; 4];
    for i in 0..4 {
        let mut carry = 0u128;
        for j in 0..4 - i {
            let t = out[i + j] as u128 + a[i] as u128 * b[j] as u128 + carry;
            out[i + j] = t as u64;
            carry = t >> 64;
        }
    }
    out
}

/// High 256 bits of `a·b`.
#[inline]
fn mul_hi(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let mut t = [0u64; 8];
    for i in 0..4 {
        let mut carry = 0u128;
        for j in 0..4 {
            let v = t[i + j] as u128 + a[i] as u128 * b[j] as u128 + carry;
            t[i + j] = v as u64;
            carry = v >> 64;
        }
        t[i + 4] = carry as u64;
    }
    [t[4], t[5], t[6], t[7]]
}

impl<C: CurveConfig> GlvFast<C> {
    /// The fixed-width form of the curve's GLV data, if it has any.
    pub(crate) fn derive() -> Option<Self> {
        let glv = C::glv()?;
        let (a1, b1) = &glv.v1;
        let (a2, b2) = &glv.v2;
        let det = a1 * b2 - a2 * b1;
        if det.is_zero() {
            return None;
        }
        let two256 = BigInt::from(1u8) << 256;
        // round(2^256·x/det) for the two rows of the inverse basis.
        let round = |num: BigInt| -> BigInt {
            let d = det.abs();
            let n = if det.is_negative() { -num } else { num };
            let twice = n * 2 + &d;
            num_integer_floor(&twice, &(d * 2))
        };
        let g1 = round(&two256 * b2);
        let g2: BigInt = round(-(BigInt::clone(&two256) * b1));
        Some(Self {
            beta: glv.beta,
            a1: twos(a1),
            b1: twos(b1),
            a2: twos(a2),
            b2: twos(b2),
            g1_neg: g1.is_negative(),
            g1: mag4(&g1),
            g2_neg: g2.is_negative(),
            g2: mag4(&g2),
        })
    }

    /// `φ(P) = (β·x, y)`.
    #[inline]
    pub fn endo(&self, p: &Affine<C>) -> Affine<C> {
        if p.infinity {
            *p
        } else {
            Affine::new_unchecked(p.x * self.beta, p.y)
        }
    }

    /// Splits a canonical scalar `k < r` into `(neg1, |k1|, neg2, |k2|)`.
    #[inline]
    pub fn decompose(&self, k: &[u64; 4]) -> (bool, [u64; 4], bool, [u64; 4]) {
        let mut c1 = mul_hi(k, &self.g1);
        if self.g1_neg {
            c1 = neg256(&c1);
        }
        let mut c2 = mul_hi(k, &self.g2);
        if self.g2_neg {
            c2 = neg256(&c2);
        }
        let k1 = sub256(&sub256(k, &mul_lo(&c1, &self.a1)), &mul_lo(&c2, &self.a2));
        let k2 = sub256(&neg256(&mul_lo(&c1, &self.b1)), &mul_lo(&c2, &self.b2));
        let n1 = k1[3] >> 63 == 1;
        let n2 = k2[3] >> 63 == 1;
        (
            n1,
            if n1 { neg256(&k1) } else { k1 },
            n2,
            if n2 { neg256(&k2) } else { k2 },
        )
    }
}

fn num_integer_floor(n: &BigInt, d: &BigInt) -> BigInt {
    // d > 0
    let q = n / d;
    if (n % d).is_negative() {
        q - 1
    } else {
        q
    }
}

/// Bit length of a little-endian integer.
#[inline]
pub fn bit_len(k: &[u64]) -> u32 {
    for i in (0..k.len()).rev() {
        if k[i] != 0 {
            return 64 * i as u32 + 64 - k[i].leading_zeros();
        }
    }
    0
}

/// `c` bits of a little-endian integer starting at bit `off` (bits past the end are 0).
#[inline(always)]
pub fn window_bits(k: &[u64], off: u32, c: u32) -> u64 {
    let limb = (off / 64) as usize;
    let shift = off % 64;
    if limb >= k.len() {
        return 0;
    }
    let mut v = k[limb] >> shift;
    if shift + c > 64 && limb + 1 < k.len() {
        v |= k[limb + 1] << (64 - shift);
    }
    v & ((1u64 << c) - 1)
}

/// Scalars recoded for signed `c`-bit windows: each stored value is `k + H` where
/// `H = Σ_w 2^(c−1)·2^(w·c)`, so window `w` of the stored value minus `2^(c−1)` is the
/// signed digit in `[−2^(c−1), 2^(c−1))`, and no carry crosses windows at read time.
pub struct SignedScalars {
    pub limbs: Vec<u64>,
    pub stride: usize,
    pub c: u32,
    pub windows: u32,
    /// First bit and width of each window (`w·c` and `c` unless balanced).
    pub offsets: Vec<u32>,
    pub widths: Vec<u32>,
}

impl SignedScalars {
    /// Number of signed `c`-bit windows for scalars of at most `bits` bits
    /// (`k < 2^(m·c−1)` keeps every digit within `±2^(c−1)`).
    pub fn windows_for(bits: u32, c: u32) -> u32 {
        (bits + 1).div_ceil(c).max(1)
    }

    pub fn new(scalars: &[[u64; 4]], bits: u32, c: u32) -> Self {
        let windows = Self::windows_for(bits, c);
        Self::with_widths(scalars, c, vec![c; windows as usize])
    }

    /// The same number of windows as [`new`](Self::new), but the `bits + 1` digit bits
    /// spread evenly (widths `c` and `c − 1` or so), so no window is left with only a
    /// few bits. A narrow top window sends every point into a handful of buckets, where
    /// batch-affine accumulation degenerates into conflicts (at 2^18, BLS12-381 with
    /// c = 14 has a 4-bit top window: 93 % of its additions went through the projective
    /// overflow path, each several times the batch-affine price).
    pub fn new_balanced(scalars: &[[u64; 4]], bits: u32, c: u32) -> Self {
        Self::with_widths(scalars, c, Self::balanced_widths(bits, c))
    }

    /// The window widths [`new_balanced`](Self::new_balanced) uses.
    pub fn balanced_widths(bits: u32, c: u32) -> Vec<u32> {
        let windows = Self::windows_for(bits, c);
        let total = bits + 1;
        let (base, extra) = (total / windows, total % windows);
        (0..windows).map(|w| base + u32::from(w < extra)).collect()
    }

    fn with_widths(scalars: &[[u64; 4]], c: u32, widths: Vec<u32>) -> Self {
        let windows = widths.len() as u32;
        let mut offsets = Vec::with_capacity(widths.len());
        let mut at = 0;
        for &wd in &widths {
            offsets.push(at);
            at += wd;
        }
        // One spare bit: the top window may read `2^width` (digit `+2^(width−1)`).
        let total = at + 1;
        let stride = total.div_ceil(64) as usize;
        let mut h = vec![0u64; stride];
        for (off, wd) in offsets.iter().zip(&widths) {
            let bit = off + wd - 1;
            h[(bit / 64) as usize] |= 1u64 << (bit % 64);
        }
        let mut limbs = vec![0u64; stride * scalars.len()];
        limbs
            .par_chunks_mut(stride)
            .zip(scalars.par_iter())
            .with_min_len(4096)
            .for_each(|(out, k)| {
                let mut carry = 0u128;
                for i in 0..stride {
                    let ki = if i < 4 { k[i] } else { 0 };
                    let v = ki as u128 + h[i] as u128 + carry;
                    out[i] = v as u64;
                    carry = v >> 64;
                }
            });
        Self {
            limbs,
            stride,
            c,
            windows,
            offsets,
            widths,
        }
    }

    /// Signed digit of scalar `i` in window `w`, in `[−2^(c−1), 2^(c−1)]`.
    #[inline(always)]
    pub fn digit(&self, i: usize, w: u32) -> i64 {
        let (off, width) = (self.offsets[w as usize], self.widths[w as usize]);
        self.digit_at(i, off, width, w + 1 == self.windows)
    }

    /// [`digit`](Self::digit) with the window's offset and width looked up once.
    #[inline(always)]
    pub fn digit_at(&self, i: usize, off: u32, width: u32, top: bool) -> i64 {
        let k = &self.limbs[i * self.stride..(i + 1) * self.stride];
        let read = if top { width + 1 } else { width };
        window_bits(k, off, read) as i64 - (1i64 << (width - 1))
    }

    pub fn len(&self) -> usize {
        self.limbs.len() / self.stride.max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.limbs.is_empty()
    }
}
