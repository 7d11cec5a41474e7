//! Kernels on eight lanes: the CPU loop runs a kernel's body on eight consecutive
//! indices at once, its field values packed in SIMD vectors where the field has them
//! (Goldilocks and its cubic extension, on AVX-512F or AVX2), and falls back to the plain
//! body, index by index, for a group whose lanes would part ways.
//!
//! `#[kernel]` writes the lane version of every body beside the body itself (the same
//! source with its types mapped: a field element becomes [`KernelField::Lanes`], a `usize`
//! a [`LaneIdx`], a `bool` a [`LaneMask`]). Its reads gather eight elements; an `if`, a
//! loop's bounds and an index into a local array must agree on all eight lanes, and
//! anything a lane would fault on (a read past an end, a division by zero) gives up on
//! the group — each time the group is run again by the plain body, which decides and
//! faults exactly as it always does. So the lanes change how fast a kernel runs, never
//! what it gives: field arithmetic is exact, and every backend's lanes stay canonical.
//!
//! Everything here is called by macro-generated code and the runtime's loop: it is not
//! an interface of its own.

use std::ops::{Add, AddAssign, BitAnd, BitOr, BitXor, Mul, MulAssign, Neg, Not, Sub, SubAssign};

use fastzk_field::{Field, Goldilocks, GoldilocksExt3};

use crate::{Fault, KernelField};

/// Indices run together.
pub const LANES: usize = 8;

/// An index in each lane: what a kernel's `usize` values become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneIdx(pub [usize; LANES]);

impl LaneIdx {
    #[inline(always)]
    pub fn splat(x: usize) -> Self {
        Self([x; LANES])
    }
    /// `i0, i0 + 1, …, i0 + 7`: a group's loop index.
    #[inline(always)]
    pub fn from_start(i0: usize) -> Self {
        // Loops, not `array::from_fn`, here and below: `from_fn` is not always inlined
        // into a large lane body, and a call per operation costs more than the operation.
        let mut x = [i0; LANES];
        for (l, x) in x.iter_mut().enumerate() {
            *x = x.wrapping_add(l);
        }
        Self(x)
    }
    /// The value when every lane has it.
    #[inline(always)]
    pub fn uniform(self) -> Option<usize> {
        let x = self.0[0];
        self.0.iter().all(|&y| y == x).then_some(x)
    }
    #[inline(always)]
    fn zip(self, o: Self, f: impl Fn(usize, usize) -> usize) -> Self {
        let mut x = self.0;
        for (x, o) in x.iter_mut().zip(o.0) {
            *x = f(*x, o);
        }
        Self(x)
    }
    /// Whether the lanes hold `i0, i0 + 1, …, i0 + 7`.
    #[inline(always)]
    fn consecutive(self) -> bool {
        let i0 = self.0[0];
        let mut yes = true;
        for (l, &x) in self.0.iter().enumerate() {
            yes &= x == i0.wrapping_add(l);
        }
        yes
    }
}

macro_rules! idx_ops {
    ($($tr:ident $f:ident $op:expr),*) => {$(
        impl $tr for LaneIdx {
            type Output = LaneIdx;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                self.zip(o, $op)
            }
        }
    )*};
}
// Wrapping, as the plain body's `usize` arithmetic is in a release build.
idx_ops!(
    Add add usize::wrapping_add,
    Sub sub usize::wrapping_sub,
    Mul mul usize::wrapping_mul,
    BitAnd bitand |a, b| a & b,
    BitOr bitor |a, b| a | b,
    BitXor bitxor |a, b| a ^ b
);

/// A truth value in each lane (bit `l` for lane `l`): what a kernel's `bool` values become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneMask(pub u8);

impl LaneMask {
    #[inline(always)]
    pub fn splat(b: bool) -> Self {
        Self(if b { 0xff } else { 0 })
    }
    /// The value when every lane has it.
    #[inline(always)]
    pub fn uniform(self) -> Option<bool> {
        match self.0 {
            0 => Some(false),
            0xff => Some(true),
            _ => None,
        }
    }
    #[inline(always)]
    fn from_fn(f: impl Fn(usize) -> bool) -> Self {
        Self((0..LANES).fold(0, |m, l| m | (u8::from(f(l)) << l)))
    }
}

impl Not for LaneMask {
    type Output = LaneMask;
    #[inline(always)]
    fn not(self) -> Self {
        Self(!self.0)
    }
}

/// Equality lane by lane.
pub trait LaneEq: Copy {
    fn lane_eq(self, o: Self) -> LaneMask;
}

impl LaneEq for LaneIdx {
    #[inline(always)]
    fn lane_eq(self, o: Self) -> LaneMask {
        LaneMask::from_fn(|l| self.0[l] == o.0[l])
    }
}

impl LaneEq for LaneMask {
    #[inline(always)]
    fn lane_eq(self, o: Self) -> LaneMask {
        LaneMask(!(self.0 ^ o.0))
    }
}

/// A way to run lanes: its Goldilocks vector type (the fields without one run their
/// lanes as eight plain elements, [`Splayed`]).
pub trait LaneBackend: Copy + Send + Sync + 'static {
    type Goldilocks: LaneField<Goldilocks, Self>;
    /// Eight cubic-extension elements as their coefficients' lanes.
    #[inline(always)]
    fn ext3_from(x: &[GoldilocksExt3; LANES]) -> [Self::Goldilocks; 3] {
        std::array::from_fn(|k| Self::Goldilocks::from_lanes(std::array::from_fn(|l| x[l].c[k])))
    }
    /// The inverse of [`ext3_from`](Self::ext3_from).
    #[inline(always)]
    fn ext3_to(c: [Self::Goldilocks; 3]) -> [GoldilocksExt3; LANES] {
        let c = c.map(Self::Goldilocks::to_lanes);
        std::array::from_fn(|l| GoldilocksExt3 {
            c: [c[0][l], c[1][l], c[2][l]],
        })
    }
}

/// Lanes as eight plain elements: every CPU, and a check of the lane code itself.
#[derive(Clone, Copy, Debug)]
pub struct Portable;
impl LaneBackend for Portable {
    type Goldilocks = Splayed<Goldilocks>;
}

#[cfg(target_arch = "x86_64")]
pub use x86::{Avx2, Avx512};

/// Eight field elements as what a kernel's field values become.
pub trait LaneField<F: KernelField, B: LaneBackend>:
    LaneEq
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
{
    fn splat(x: F) -> Self;
    fn from_lanes(x: [F; LANES]) -> Self;
    fn to_lanes(self) -> [F; LANES];
    fn lift(b: <F::Base as KernelField>::Lanes<B>) -> Self;
    fn mul_by_base(self, b: <F::Base as KernelField>::Lanes<B>) -> Self;
    #[inline(always)]
    fn square(self) -> Self {
        self * self
    }
    #[inline(always)]
    fn double(self) -> Self {
        self + self
    }
    #[inline(always)]
    fn is_zero(self) -> LaneMask {
        self.lane_eq(Self::splat(F::ZERO))
    }
}

/// `+=`, `-=` and `*=` from a lane type's `+`, `-` and `*`.
macro_rules! assign_ops {
    ([$($g:tt)*] $t:ty) => {
        impl<$($g)*> AddAssign for $t {
            #[inline(always)]
            fn add_assign(&mut self, o: Self) {
                *self = *self + o;
            }
        }
        impl<$($g)*> SubAssign for $t {
            #[inline(always)]
            fn sub_assign(&mut self, o: Self) {
                *self = *self - o;
            }
        }
        impl<$($g)*> MulAssign for $t {
            #[inline(always)]
            fn mul_assign(&mut self, o: Self) {
                *self = *self * o;
            }
        }
    };
}

/// Eight elements, each with its own arithmetic.
#[derive(Clone, Copy, Debug)]
pub struct Splayed<F>(pub [F; LANES]);

impl<F: Field> LaneEq for Splayed<F> {
    #[inline(always)]
    fn lane_eq(self, o: Self) -> LaneMask {
        LaneMask::from_fn(|l| self.0[l] == o.0[l])
    }
}

macro_rules! splayed_ops {
    ($($tr:ident $f:ident $atr:ident $af:ident),*) => {$(
        impl<F: Field> $tr for Splayed<F> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                Self(std::array::from_fn(|l| self.0[l].$f(o.0[l])))
            }
        }
        impl<F: Field> $atr for Splayed<F> {
            #[inline(always)]
            fn $af(&mut self, o: Self) {
                *self = (*self).$f(o);
            }
        }
    )*};
}
splayed_ops!(Add add AddAssign add_assign, Sub sub SubAssign sub_assign, Mul mul MulAssign mul_assign);

impl<F: Field> Neg for Splayed<F> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self(self.0.map(|x| -x))
    }
}

impl<F: KernelField, B: LaneBackend> LaneField<F, B> for Splayed<F> {
    #[inline(always)]
    fn splat(x: F) -> Self {
        Self([x; LANES])
    }
    #[inline(always)]
    fn from_lanes(x: [F; LANES]) -> Self {
        Self(x)
    }
    #[inline(always)]
    fn to_lanes(self) -> [F; LANES] {
        self.0
    }
    #[inline(always)]
    fn lift(b: <F::Base as KernelField>::Lanes<B>) -> Self {
        Self(b.to_lanes().map(F::lift))
    }
    #[inline(always)]
    fn mul_by_base(self, b: <F::Base as KernelField>::Lanes<B>) -> Self {
        let b = b.to_lanes();
        Self(std::array::from_fn(|l| self.0[l].mul_by_base(b[l])))
    }
    #[inline(always)]
    fn square(self) -> Self {
        Self(self.0.map(|x| x.square()))
    }
    #[inline(always)]
    fn double(self) -> Self {
        Self(self.0.map(|x| x.double()))
    }
    #[inline(always)]
    fn is_zero(self) -> LaneMask {
        LaneMask::from_fn(|l| self.0[l].is_zero())
    }
}

/// `GoldilocksExt3` (`F[x]/(x³ − 7)`) on a backend's Goldilocks lanes, a vector per
/// coefficient.
#[derive(Clone, Copy, Debug)]
pub struct Ext3Lanes<B: LaneBackend>(pub [B::Goldilocks; 3]);

impl<B: LaneBackend> Ext3Lanes<B> {
    /// `7·a` by additions, as the scalar field does it.
    #[inline(always)]
    fn times_w(a: B::Goldilocks) -> B::Goldilocks {
        let a2 = a + a;
        let a4 = a2 + a2;
        a4 + a2 + a
    }
}

impl<B: LaneBackend> LaneEq for Ext3Lanes<B> {
    #[inline(always)]
    fn lane_eq(self, o: Self) -> LaneMask {
        let ([a0, a1, a2], [b0, b1, b2]) = (self.0, o.0);
        LaneMask(a0.lane_eq(b0).0 & a1.lane_eq(b1).0 & a2.lane_eq(b2).0)
    }
}

impl<B: LaneBackend> Add for Ext3Lanes<B> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        let ([a0, a1, a2], [b0, b1, b2]) = (self.0, o.0);
        Self([a0 + b0, a1 + b1, a2 + b2])
    }
}
impl<B: LaneBackend> Sub for Ext3Lanes<B> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        let ([a0, a1, a2], [b0, b1, b2]) = (self.0, o.0);
        Self([a0 - b0, a1 - b1, a2 - b2])
    }
}
impl<B: LaneBackend> Neg for Ext3Lanes<B> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        let [a0, a1, a2] = self.0;
        Self([-a0, -a1, -a2])
    }
}
impl<B: LaneBackend> Mul for Ext3Lanes<B> {
    type Output = Self;
    /// Schoolbook with `x³ = 7`: nine products on the lanes.
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        let ([a0, a1, a2], [b0, b1, b2]) = (self.0, o.0);
        Self([
            a0 * b0 + Self::times_w(a1 * b2 + a2 * b1),
            a0 * b1 + a1 * b0 + Self::times_w(a2 * b2),
            a0 * b2 + a1 * b1 + a2 * b0,
        ])
    }
}
assign_ops!([B: LaneBackend] Ext3Lanes<B>);

impl<B: LaneBackend> LaneField<GoldilocksExt3, B> for Ext3Lanes<B> {
    #[inline(always)]
    fn splat(x: GoldilocksExt3) -> Self {
        let [a0, a1, a2] = x.c;
        let s = B::Goldilocks::splat;
        Self([s(a0), s(a1), s(a2)])
    }
    #[inline(always)]
    fn from_lanes(x: [GoldilocksExt3; LANES]) -> Self {
        Self(B::ext3_from(&x))
    }
    #[inline(always)]
    fn to_lanes(self) -> [GoldilocksExt3; LANES] {
        B::ext3_to(self.0)
    }
    #[inline(always)]
    fn lift(b: B::Goldilocks) -> Self {
        let z = B::Goldilocks::splat(Goldilocks::ZERO);
        Self([b, z, z])
    }
    #[inline(always)]
    fn mul_by_base(self, b: B::Goldilocks) -> Self {
        let [a0, a1, a2] = self.0;
        Self([a0 * b, a1 * b, a2 * b])
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use fastzk_field::goldilocks::packed::{Avx2Lanes8, Avx512Lanes8};

    /// Goldilocks lanes in AVX-512F vectors.
    #[derive(Clone, Copy, Debug)]
    pub struct Avx512;
    /// Goldilocks lanes in AVX2 vectors.
    #[derive(Clone, Copy, Debug)]
    pub struct Avx2;

    /// A backend's Goldilocks vectors as lanes. Its values are made only by the
    /// runtime's loop for its backend, which it runs only where the CPU has the backend's
    /// feature: that is what makes the calls below sound.
    #[derive(Clone, Copy, Debug)]
    pub struct Packed<V>(V);

    impl LaneBackend for Avx512 {
        type Goldilocks = Packed<Avx512Lanes8>;
        #[inline(always)]
        fn ext3_from(x: &[GoldilocksExt3; LANES]) -> [Self::Goldilocks; 3] {
            // SAFETY: see `Packed`.
            let [a0, a1, a2] = unsafe { Avx512Lanes8::load_ext3(x) };
            [Packed(a0), Packed(a1), Packed(a2)]
        }
        #[inline(always)]
        fn ext3_to(c: [Self::Goldilocks; 3]) -> [GoldilocksExt3; LANES] {
            let mut x = [GoldilocksExt3::ZERO; LANES];
            // SAFETY: see `Packed`.
            unsafe { Avx512Lanes8::store_ext3([c[0].0, c[1].0, c[2].0], &mut x) };
            x
        }
    }
    impl LaneBackend for Avx2 {
        type Goldilocks = Packed<Avx2Lanes8>;
    }

    macro_rules! packed {
        ($backend:ty, $v:ty) => {
            impl LaneEq for Packed<$v> {
                #[inline(always)]
                fn lane_eq(self, o: Self) -> LaneMask {
                    // SAFETY: see `Packed`.
                    LaneMask(unsafe { self.0.eq(o.0) })
                }
            }
            impl Add for Packed<$v> {
                type Output = Self;
                #[inline(always)]
                fn add(self, o: Self) -> Self {
                    // SAFETY: see `Packed`.
                    Self(unsafe { self.0.add(o.0) })
                }
            }
            impl Sub for Packed<$v> {
                type Output = Self;
                #[inline(always)]
                fn sub(self, o: Self) -> Self {
                    // SAFETY: see `Packed`.
                    Self(unsafe { self.0.sub(o.0) })
                }
            }
            impl Mul for Packed<$v> {
                type Output = Self;
                #[inline(always)]
                fn mul(self, o: Self) -> Self {
                    // SAFETY: see `Packed`.
                    Self(unsafe { self.0.mul(o.0) })
                }
            }
            impl Neg for Packed<$v> {
                type Output = Self;
                #[inline(always)]
                fn neg(self) -> Self {
                    // SAFETY: see `Packed`.
                    Self(unsafe { <$v>::splat(Goldilocks::ZERO).sub(self.0) })
                }
            }
            assign_ops!([] Packed<$v>);
            impl LaneField<Goldilocks, $backend> for Packed<$v> {
                #[inline(always)]
                fn splat(x: Goldilocks) -> Self {
                    // SAFETY: see `Packed`.
                    Self(unsafe { <$v>::splat(x) })
                }
                #[inline(always)]
                fn from_lanes(x: [Goldilocks; LANES]) -> Self {
                    // SAFETY: see `Packed`.
                    Self(unsafe { <$v>::load(&x) })
                }
                #[inline(always)]
                fn to_lanes(self) -> [Goldilocks; LANES] {
                    let mut x = [Goldilocks::ZERO; LANES];
                    // SAFETY: see `Packed`.
                    unsafe { self.0.store(&mut x) };
                    x
                }
                #[inline(always)]
                fn lift(b: Self) -> Self {
                    b
                }
                #[inline(always)]
                fn mul_by_base(self, b: Self) -> Self {
                    self * b
                }
            }
        };
    }
    packed!(Avx512, Avx512Lanes8);
    packed!(Avx2, Avx2Lanes8);
}

// What the lane bodies `#[kernel]` writes call.

/// `x` in every lane.
#[inline(always)]
pub fn splat<F: KernelField, B: LaneBackend>(x: F) -> F::Lanes<B> {
    <F::Lanes<B> as LaneField<F, B>>::splat(x)
}

/// `F::lift(b)` lane by lane.
#[inline(always)]
pub fn lift<F: KernelField, B: LaneBackend>(b: <F::Base as KernelField>::Lanes<B>) -> F::Lanes<B> {
    <F::Lanes<B> as LaneField<F, B>>::lift(b)
}

/// An array a lane body reads: an input slice (a gather) or a local array (one element
/// for all lanes).
pub trait LaneRead<B: LaneBackend> {
    type Out;
    fn read(&self, i: LaneIdx) -> Option<Self::Out>;
}

impl<X: KernelField, B: LaneBackend> LaneRead<B> for &[X] {
    type Out = X::Lanes<B>;
    #[inline(always)]
    fn read(&self, i: LaneIdx) -> Option<X::Lanes<B>> {
        let i0 = i.0[0];
        // Consecutive indices, the common case, as one slice.
        let x: [X; LANES] = if i.consecutive() {
            *self.get(i0..i0.checked_add(LANES)?)?.first_chunk()?
        } else {
            let mut x = [X::ZERO; LANES];
            for (x, &k) in x.iter_mut().zip(&i.0) {
                *x = *self.get(k)?;
            }
            x
        };
        Some(<X::Lanes<B> as LaneField<X, B>>::from_lanes(x))
    }
}

impl<L: Copy, const K: usize, B: LaneBackend> LaneRead<B> for [L; K] {
    type Out = L;
    #[inline(always)]
    fn read(&self, i: LaneIdx) -> Option<L> {
        self.get(i.uniform()?).copied()
    }
}

#[inline(always)]
pub fn at<B: LaneBackend, A: LaneRead<B>>(a: &A, i: LaneIdx, _: &Fault) -> Option<A::Out> {
    a.read(i)
}

#[inline(always)]
pub fn at_mut<'a, L, const K: usize>(
    a: &'a mut [L; K],
    i: LaneIdx,
    _: &Fault,
) -> Option<&'a mut L> {
    a.get_mut(i.uniform()?)
}

#[inline(always)]
pub fn div(a: LaneIdx, b: LaneIdx, _: &Fault) -> Option<LaneIdx> {
    b.0.iter().all(|&d| d != 0).then(|| a.zip(b, |x, d| x / d))
}

#[inline(always)]
pub fn rem(a: LaneIdx, b: LaneIdx, _: &Fault) -> Option<LaneIdx> {
    b.0.iter().all(|&d| d != 0).then(|| a.zip(b, |x, d| x % d))
}

#[inline(always)]
pub fn shl(a: LaneIdx, b: LaneIdx, f: &Fault) -> LaneIdx {
    a.zip(b, |x, s| crate::shl(x, s, f))
}

#[inline(always)]
pub fn shr(a: LaneIdx, b: LaneIdx, f: &Fault) -> LaneIdx {
    a.zip(b, |x, s| crate::shr(x, s, f))
}

#[inline(always)]
pub fn eq<T: LaneEq>(a: T, b: T) -> LaneMask {
    a.lane_eq(b)
}

#[inline(always)]
pub fn ne<T: LaneEq>(a: T, b: T) -> LaneMask {
    !a.lane_eq(b)
}

macro_rules! idx_cmp {
    ($($f:ident $op:tt),*) => {$(
        #[inline(always)]
        pub fn $f(a: LaneIdx, b: LaneIdx) -> LaneMask {
            LaneMask::from_fn(|l| a.0[l] $op b.0[l])
        }
    )*};
}
idx_cmp!(lt <, le <=, gt >, ge >=);

/// `a && b` on every lane (both sides evaluated: a lane body has no effects to skip).
#[inline(always)]
pub fn and(a: LaneMask, b: LaneMask) -> LaneMask {
    LaneMask(a.0 & b.0)
}

#[inline(always)]
pub fn or(a: LaneMask, b: LaneMask) -> LaneMask {
    LaneMask(a.0 | b.0)
}

/// A branch's condition, when all lanes take the same branch.
#[inline(always)]
pub fn uniform(c: LaneMask) -> Option<bool> {
    c.uniform()
}

/// A loop's range, when all lanes run the same one.
#[inline(always)]
pub fn range(a: LaneIdx, b: LaneIdx) -> Option<impl Iterator<Item = LaneIdx>> {
    Some((a.uniform()?..b.uniform()?).map(LaneIdx::splat))
}

/// How the CPU loop runs kernels: plain, index by index, or on lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneChoice {
    /// The plain body, index by index.
    Off,
    /// Lanes as plain elements ([`Portable`]): on every CPU, for every field.
    Portable,
    /// AVX2 Goldilocks vectors.
    Avx2,
    /// AVX-512F Goldilocks vectors.
    Avx512,
}

impl LaneChoice {
    /// The lanes the CPU loop takes by default: AVX-512F's where the CPU has them and
    /// `FASTZK_GOLDILOCKS_BACKEND` allows them, unless `FASTZK_NO_KERNEL_LANES` turns the
    /// lanes off. Not AVX2's: without a 64-bit vector product they win on single kernels
    /// but left Spartan's proofs level with the plain loop (`BENCHMARKS.md`).
    pub fn detect() -> Self {
        use fastzk_field::goldilocks::packed::Backend;
        if fastzk_field::cpu::switched_off("FASTZK_NO_KERNEL_LANES") {
            return LaneChoice::Off;
        }
        match Backend::detect() {
            Backend::Avx512 => LaneChoice::Avx512,
            Backend::Avx2 | Backend::Scalar => LaneChoice::Off,
        }
    }

    /// Whether this CPU can run it.
    pub fn is_supported(self) -> bool {
        use fastzk_field::goldilocks::packed::Backend;
        match self {
            LaneChoice::Off | LaneChoice::Portable => true,
            LaneChoice::Avx2 => cfg!(target_arch = "x86_64") && Backend::Avx2.is_supported(),
            LaneChoice::Avx512 => cfg!(target_arch = "x86_64") && Backend::Avx512.is_supported(),
        }
    }
}

/// Groups of eight indices the CPU loop ran on lanes, and groups it gave up on (run again
/// by the plain body).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneGroups {
    pub ran: u64,
    pub gave_up: u64,
}

/// Where the CPU loop puts a kernel's outputs: index by index (a plain body's), or eight
/// indices at once (output component `k` of index `j + l` in `out[k][l]`); `j` counts
/// from the chunk's start.
pub(crate) trait Sink<F> {
    fn one(&mut self, j: usize, out: &[F]);
    fn eight(&mut self, j: usize, out: &[[F; LANES]]);
}

/// `K` on `start..end` into `sink`: groups of eight on `choice`'s lanes where the field's
/// lanes pay (`Portable` runs every field's, to check them), the rest and every group that
/// gives up by `body`.
pub(crate) fn fill<F: KernelField, K: crate::Kernel<F>, S: Fn(usize, &mut [F]), O: Sink<F>>(
    choice: LaneChoice,
    args: &[crate::CpuArg<'_, F>],
    fault: &Fault,
    body: &S,
    (start, end): (usize, usize),
    sink: &mut O,
) -> LaneGroups {
    let choice = match choice {
        LaneChoice::Avx2 | LaneChoice::Avx512 if !F::LANES_PAY || !choice.is_supported() => {
            LaneChoice::Off
        }
        c => c,
    };
    let range = (start, end);
    match choice {
        LaneChoice::Portable => groups::<F, K, Portable, S, O>(args, fault, body, range, sink),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX2 (checked above).
        LaneChoice::Avx2 => unsafe { groups_avx2::<F, K, S, O>(args, fault, body, range, sink) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX-512F (checked above).
        LaneChoice::Avx512 => unsafe {
            groups_avx512::<F, K, S, O>(args, fault, body, range, sink)
        },
        _ => {
            plain(body, range, start, K::OUTPUTS, sink);
            LaneGroups::default()
        }
    }
}

/// `body` at each index of `start..end`, its `k` outputs into `sink` (`j` from `chunk`).
#[inline(always)]
fn plain<F: KernelField, S: Fn(usize, &mut [F]), O: Sink<F>>(
    body: &S,
    (start, end): (usize, usize),
    chunk: usize,
    k: usize,
    sink: &mut O,
) {
    let mut out = vec![F::ZERO; k];
    for i in start..end {
        body(i, &mut out);
        sink.one(i - chunk, &out);
    }
}

#[inline(always)]
fn groups<
    F: KernelField,
    K: crate::Kernel<F>,
    B: LaneBackend,
    S: Fn(usize, &mut [F]),
    O: Sink<F>,
>(
    args: &[crate::CpuArg<'_, F>],
    fault: &Fault,
    body: &S,
    (start, end): (usize, usize),
    sink: &mut O,
) -> LaneGroups {
    let k = K::OUTPUTS;
    let mut out = vec![[F::ZERO; LANES]; k];
    let mut groups = LaneGroups::default();
    let mut i = start;
    while i + LANES <= end {
        if K::lanes::<B>(args, fault, i, &mut out) {
            sink.eight(i - start, &out);
            groups.ran += 1;
        } else {
            plain(body, (i, i + LANES), start, k, sink);
            groups.gave_up += 1;
        }
        i += LANES;
    }
    plain(body, (i, end), start, k, sink);
    groups
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn groups_avx2<F: KernelField, K: crate::Kernel<F>, S: Fn(usize, &mut [F]), O: Sink<F>>(
    args: &[crate::CpuArg<'_, F>],
    fault: &Fault,
    body: &S,
    range: (usize, usize),
    sink: &mut O,
) -> LaneGroups {
    groups::<F, K, Avx2, S, O>(args, fault, body, range, sink)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn groups_avx512<F: KernelField, K: crate::Kernel<F>, S: Fn(usize, &mut [F]), O: Sink<F>>(
    args: &[crate::CpuArg<'_, F>],
    fault: &Fault,
    body: &S,
    range: (usize, usize),
    sink: &mut O,
) -> LaneGroups {
    groups::<F, K, Avx512, S, O>(args, fault, body, range, sink)
}
