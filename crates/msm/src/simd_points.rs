//! Eight independent XYZZ point operations per call (SimdMSM §4, Table 1): mixed
//! addition (XYZZ + affine), full addition (XYZZ + XYZZ) and doubling, on the lane
//! fields of [`crate::simd`], every exceptional case (identity on either side, equal
//! points, opposite points) resolved per lane with masks.
//!
//! The MSM's bucket accumulation uses the affine batch form in [`crate::simd`] (cheaper
//! per addition: about 6 products against 8–14 here); these are the building blocks for
//! work without a batch to share an inversion, with results equal to the scalar
//! [`fastzk_curve::Xyzz`] formulas (tests below).
//!
//! Every value stays below `2p` (per coefficient) between operations: sums and
//! differences are brought back with [`LaneField::shrink`].

use core::arch::x86_64::*;

use crate::simd::{Consts, LaneField};

/// Eight points `(X, Y, ZZ, ZZZ)` with `x = X/ZZ`, `y = Y/ZZZ`; `ZZ = 0` is the identity.
#[derive(Clone, Copy)]
pub(crate) struct XyzzLanes<V> {
    pub x: V,
    pub y: V,
    pub zz: V,
    pub zzz: V,
}

/// Eight affine points; lanes in `infinity` are the identity.
#[derive(Clone, Copy)]
pub(crate) struct AffineLanes<V> {
    pub x: V,
    pub y: V,
    pub infinity: __mmask8,
}

/// Safety for every function here: the CPU supports AVX-512F and IFMA.
impl<V: LaneField> XyzzLanes<V> {
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub unsafe fn identity(k: &Consts<V>) -> Self {
        Self {
            x: k.one,
            y: k.one,
            zz: k.zero,
            zzz: k.zero,
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    pub unsafe fn from_affine(p: &AffineLanes<V>, k: &Consts<V>) -> Self {
        let z = V::blend(p.infinity, &k.one, &k.zero);
        Self {
            x: V::blend(p.infinity, &p.x, &k.one),
            y: V::blend(p.infinity, &p.y, &k.one),
            zz: z,
            zzz: z,
        }
    }

    /// Lanes holding the identity.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub unsafe fn is_identity(&self, k: &Consts<V>) -> __mmask8 {
        self.zz.is_zero(k)
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn select(mask: __mmask8, a: &Self, b: &Self) -> Self {
        Self {
            x: V::blend(mask, &a.x, &b.x),
            y: V::blend(mask, &a.y, &b.y),
            zz: V::blend(mask, &a.zz, &b.zz),
            zzz: V::blend(mask, &a.zzz, &b.zzz),
        }
    }

    /// `2P` (dbl-2008-s-1, `a = 0`); the identity stays the identity (`ZZ` stays 0).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub unsafe fn double(&self, k: &Consts<V>) -> Self {
        let u = V::add(&self.y, &self.y).shrink(k);
        let v = V::square(&u, k);
        let w = V::mul(&u, &v, k);
        let s = V::mul(&self.x, &v, k);
        let x2 = V::square(&self.x, k);
        let m = V::add(&V::add(&x2, &x2), &x2).shrink(k);
        let s2 = V::add(&s, &s).shrink(k);
        let x3 = V::sub(&V::square(&m, k), &s2, &k.two_p).shrink(k);
        let t = V::mul(&m, &V::sub(&s, &x3, &k.two_p).shrink(k), k);
        let y3 = V::sub(&t, &V::mul(&w, &self.y, k), &k.two_p).shrink(k);
        Self {
            x: x3,
            y: y3,
            zz: V::mul(&v, &self.zz, k),
            zzz: V::mul(&w, &self.zzz, k),
        }
    }

    /// `X3`, `Y3` of the addition formulas from `P = U2 − U1`, `R = S2 − S1`, `U1`, `S1`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn finish_add(p: &V, r: &V, u1: &V, s1: &V, k: &Consts<V>) -> (V, V, V, V) {
        let pp = V::square(p, k);
        let ppp = V::mul(p, &pp, k);
        let q = V::mul(u1, &pp, k);
        let q2 = V::add(&q, &q).shrink(k);
        let x3 = V::sub2(&V::square(r, k), &ppp, &q2, &k.four_p).shrink(k);
        let t = V::mul(r, &V::sub(&q, &x3, &k.two_p).shrink(k), k);
        let y3 = V::sub(&t, &V::mul(s1, &ppp, k), &k.two_p).shrink(k);
        (x3, y3, pp, ppp)
    }

    /// `P + Q` for affine `Q` (madd-2008-s).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub unsafe fn add_affine(&self, q: &AffineLanes<V>, k: &Consts<V>) -> Self {
        let u2 = V::mul(&q.x, &self.zz, k);
        let s2 = V::mul(&q.y, &self.zzz, k);
        let p = V::sub(&u2, &self.x, &k.two_p).shrink(k);
        let r = V::sub(&s2, &self.y, &k.two_p).shrink(k);
        let (x3, y3, pp, ppp) = Self::finish_add(&p, &r, &self.x, &self.y, k);
        let sum = Self {
            x: x3,
            y: y3,
            zz: V::mul(&self.zz, &pp, k),
            zzz: V::mul(&self.zzz, &ppp, k),
        };
        let lhs_inf = self.is_identity(k);
        let same_x = p.is_zero(k) & !lhs_inf & !q.infinity;
        let mut out = sum;
        if same_x != 0 {
            // P = Q doubles; P = −Q gives the identity.
            let doubled = Self::from_affine(q, k).double(k);
            let equal = same_x & r.is_zero(k);
            out = Self::select(equal, &out, &doubled);
            out = Self::select(same_x & !equal, &out, &Self::identity(k));
        }
        out = Self::select(lhs_inf, &out, &Self::from_affine(q, k));
        Self::select(q.infinity & !lhs_inf, &out, self)
    }

    /// `P + Q` (add-2008-s).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub unsafe fn add(&self, q: &Self, k: &Consts<V>) -> Self {
        let u1 = V::mul(&self.x, &q.zz, k);
        let u2 = V::mul(&q.x, &self.zz, k);
        let s1 = V::mul(&self.y, &q.zzz, k);
        let s2 = V::mul(&q.y, &self.zzz, k);
        let p = V::sub(&u2, &u1, &k.two_p).shrink(k);
        let r = V::sub(&s2, &s1, &k.two_p).shrink(k);
        let (x3, y3, pp, ppp) = Self::finish_add(&p, &r, &u1, &s1, k);
        let sum = Self {
            x: x3,
            y: y3,
            zz: V::mul(&V::mul(&self.zz, &q.zz, k), &pp, k),
            zzz: V::mul(&V::mul(&self.zzz, &q.zzz, k), &ppp, k),
        };
        let lhs_inf = self.is_identity(k);
        let rhs_inf = q.is_identity(k);
        let same_x = p.is_zero(k) & !lhs_inf & !rhs_inf;
        let mut out = sum;
        if same_x != 0 {
            let doubled = self.double(k);
            let equal = same_x & r.is_zero(k);
            out = Self::select(equal, &out, &doubled);
            out = Self::select(same_x & !equal, &out, &Self::identity(k));
        }
        out = Self::select(lhs_inf, &out, q);
        Self::select(rhs_inf & !lhs_inf, &out, self)
    }
}

#[cfg(test)]
mod tests {
    //! Lane by lane against the scalar XYZZ formulas on all four groups, with the
    //! identity, equal points and opposite points mixed into the lanes.
    use super::*;
    use crate::scalar::MsmCurve;
    use crate::simd::{Fq2x8, Fq8};
    use core::mem::size_of;
    use fastzk_curve::{bls12_381, bn254, Affine, Jacobian, Xyzz};
    use fastzk_field::ifma;
    use fastzk_field::Field;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    unsafe fn lanes<V: LaneField>(xs: &[V::Elem; 8]) -> V {
        let offs: [u64; 8] = core::array::from_fn(|l| (l * size_of::<V::Elem>()) as u64);
        let offs = _mm512_loadu_si512(offs.as_ptr() as *const _);
        V::gather(xs.as_ptr() as *const u8, offs, 0, 0xff)
    }

    unsafe fn back<V: LaneField>(v: &V, k: &Consts<V>) -> [V::Elem; 8] {
        let mut out = [V::Elem::ZERO; 8];
        let offs: [u64; 8] = core::array::from_fn(|l| (l * size_of::<V::Elem>()) as u64);
        let offs = _mm512_loadu_si512(offs.as_ptr() as *const _);
        v.scatter(k, out.as_mut_ptr() as *mut u8, offs, 0, 0xff);
        out
    }

    fn check<C: MsmCurve, V: LaneField<Elem = C::Base>>(seed: u64) {
        let Some(kernel) = C::simd_kernel() else {
            eprintln!("skipped: no IFMA kernel for {} on this CPU", C::NAME);
            return;
        };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for round in 0..150 {
            // Lanes: random, identity, equal, opposite.
            let mut ps = [Affine::<C>::identity(); 8];
            let mut qs = [Affine::<C>::identity(); 8];
            for l in 0..8 {
                let p = Affine::<C>::random(&mut rng);
                let q = Affine::<C>::random(&mut rng);
                (ps[l], qs[l]) = match (round + l + rng.gen_range(0..2)) % 6 {
                    0 => (Affine::identity(), q),
                    1 => (p, Affine::identity()),
                    2 => (p, p),
                    3 => (p, -p),
                    _ => (p, q),
                };
            }
            // A projective left side with a random Z, so ZZ ≠ 1.
            let pj: [Xyzz<C>; 8] = core::array::from_fn(|l| {
                let z = C::Base::random(&mut rng);
                let x = Xyzz::from(ps[l]);
                if x.is_zero() {
                    x
                } else {
                    let (z2, z3) = (z.square(), z.square() * z);
                    Xyzz::new_unchecked(x.x * z2, x.y * z3, x.zz * z2, x.zzz * z3)
                }
            });
            let qj: [Xyzz<C>; 8] = core::array::from_fn(|l| Xyzz::from(qs[l]));
            unsafe {
                let k = V::consts();
                let to = |e: C::Base| kernel.point_to_ifma(&Affine::new_unchecked(e, e)).x;
                let from = |e: C::Base| kernel.coord_from_ifma(e);
                let xyzz = |v: &[Xyzz<C>; 8]| XyzzLanes {
                    x: lanes::<V>(&v.map(|p| to(p.x))),
                    y: lanes::<V>(&v.map(|p| to(p.y))),
                    zz: lanes::<V>(&v.map(|p| to(p.zz))),
                    zzz: lanes::<V>(&v.map(|p| to(p.zzz))),
                };
                let out = |v: &XyzzLanes<V>| -> [Jacobian<C>; 8] {
                    let (x, y) = (back(&v.x, &k), back(&v.y, &k));
                    let (zz, zzz) = (back(&v.zz, &k), back(&v.zzz, &k));
                    core::array::from_fn(|l| {
                        Xyzz::new_unchecked(from(x[l]), from(y[l]), from(zz[l]), from(zzz[l]))
                            .to_jacobian()
                    })
                };
                let p = xyzz(&pj);
                let q = xyzz(&qj);
                let qa = AffineLanes {
                    x: lanes::<V>(&qs.map(|p| to(p.x))),
                    y: lanes::<V>(&qs.map(|p| to(p.y))),
                    infinity: (0..8).fold(0u8, |m, l| m | ((qs[l].infinity as u8) << l)),
                };
                let mixed = out(&p.add_affine(&qa, &k));
                let full = out(&p.add(&q, &k));
                let dbl = out(&p.double(&k));
                for l in 0..8 {
                    let want = pj[l].add_affine(&qs[l]).to_jacobian();
                    assert_eq!(mixed[l], want, "{} mixed lane {l} round {round}", C::NAME);
                    assert_eq!(full[l], want, "{} full lane {l} round {round}", C::NAME);
                    assert_eq!(
                        dbl[l],
                        pj[l].double().to_jacobian(),
                        "{} double lane {l}",
                        C::NAME
                    );
                }
            }
        }
    }

    fn have_ifma() -> bool {
        let ok = ifma::is_supported();
        if !ok {
            eprintln!("skipped: this CPU has no AVX-512 IFMA");
        }
        ok
    }

    #[test]
    fn bn254_g1_point_lanes() {
        if have_ifma() {
            check::<bn254::G1Config, Fq8<fastzk_field::bn254::Fq, 4, 5>>(1);
        }
    }

    #[test]
    fn bls12_381_g1_point_lanes() {
        if have_ifma() {
            check::<bls12_381::G1Config, Fq8<fastzk_field::bls12_381::Fq, 6, 8>>(2);
        }
    }

    #[test]
    fn bn254_g2_point_lanes() {
        if have_ifma() {
            check::<bn254::G2Config, Fq2x8<fastzk_field::bn254::Fq2Config, 4, 5>>(3);
        }
    }

    #[test]
    fn bls12_381_g2_point_lanes() {
        if have_ifma() {
            check::<bls12_381::G2Config, Fq2x8<fastzk_field::bls12_381::Fq2Config, 6, 8>>(4);
        }
    }
}
