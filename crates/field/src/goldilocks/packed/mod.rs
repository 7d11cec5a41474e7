//! Packed (SIMD) Goldilocks arithmetic over slices, with run-time dispatch.
//!
//! The API works on slices of [`Goldilocks`] so that one dispatch decision covers many
//! elements: AVX-512F (8 lanes) when the CPU has it, AVX2 (4 lanes) otherwise, and a
//! portable scalar loop everywhere else. No `-C target-cpu` flag is needed; the vector
//! code is compiled with `#[target_feature]` and chosen at run time from [`crate::cpu`]
//! ([`Backend::detect`]; `FASTZK_GOLDILOCKS_BACKEND=scalar|avx2|avx512` caps the choice).
//!
//! Every function keeps elements canonical (`< p`), exactly like scalar [`Goldilocks`],
//! so results are bit-identical to the scalar field.

use crate::cpu::Capability;
use crate::goldilocks::Goldilocks;
use crate::ntt::{check_last3, same_len};
pub use crate::LengthMismatch;

#[cfg(target_arch = "x86_64")]
#[macro_use]
mod slices;
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod scalar;

/// Calls the kernel `$f` of the backend `$be.effective()` picks.
macro_rules! dispatch {
    ($be:expr, $f:ident($($arg:expr),*)) => {
        match $be.effective() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `effective` returns a vector backend only when the CPU has it.
            Backend::Avx512 => unsafe { avx512::$f($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Backend::Avx2 => unsafe { avx2::$f($($arg),*) },
            _ => scalar::$f($($arg),*),
        }
    };
}

/// A way to execute packed Goldilocks arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Backend {
    /// Portable Rust, one element at a time.
    Scalar,
    /// AVX2, 4 lanes.
    Avx2,
    /// AVX-512F, 8 lanes.
    Avx512,
}

impl Backend {
    /// The widest backend [`crate::cpu`] enables (the CPU has it and
    /// `FASTZK_GOLDILOCKS_BACKEND` does not cap it).
    pub fn detect() -> Backend {
        if Capability::Avx512.enabled() {
            Backend::Avx512
        } else if Capability::Avx2.enabled() {
            Backend::Avx2
        } else {
            Backend::Scalar
        }
    }

    /// All backends, supported here or not.
    pub fn all() -> [Backend; 3] {
        [Backend::Scalar, Backend::Avx2, Backend::Avx512]
    }

    /// Whether this CPU can run the backend (switches aside).
    pub fn is_supported(self) -> bool {
        match self {
            Backend::Scalar => true,
            Backend::Avx2 => Capability::Avx2.in_hardware(),
            Backend::Avx512 => Capability::Avx512.in_hardware(),
        }
    }

    /// Lanes per vector (1 for scalar).
    pub fn lanes(self) -> usize {
        match self {
            Backend::Scalar => 1,
            Backend::Avx2 => 4,
            Backend::Avx512 => 8,
        }
    }

    /// `self` if the CPU supports it, otherwise the scalar backend.
    fn effective(self) -> Backend {
        if self.is_supported() {
            self
        } else {
            Backend::Scalar
        }
    }

    /// `a[i] += b[i]`.
    pub fn add_assign(self, a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
        same_len(a.len(), b.len())?;
        let (a, b) = (as_u64_mut(a), as_u64(b));
        dispatch!(self, add_assign(a, b));
        Ok(())
    }

    /// `a[i] -= b[i]`.
    pub fn sub_assign(self, a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
        same_len(a.len(), b.len())?;
        let (a, b) = (as_u64_mut(a), as_u64(b));
        dispatch!(self, sub_assign(a, b));
        Ok(())
    }

    /// `a[i] *= b[i]`.
    pub fn mul_assign(self, a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
        same_len(a.len(), b.len())?;
        let (a, b) = (as_u64_mut(a), as_u64(b));
        dispatch!(self, mul_assign(a, b));
        Ok(())
    }

    /// `a[i] *= s`.
    pub fn scale(self, a: &mut [Goldilocks], s: Goldilocks) {
        let a = as_u64_mut(a);
        dispatch!(self, scale(a, s.value()));
    }

    /// Cooley–Tukey butterflies with one twiddle:
    /// `(lo[i], hi[i]) ← (lo[i] + s·hi[i], lo[i] − s·hi[i])`.
    pub fn butterfly_ct(
        self,
        lo: &mut [Goldilocks],
        hi: &mut [Goldilocks],
        s: Goldilocks,
    ) -> Result<(), LengthMismatch> {
        same_len(lo.len(), hi.len())?;
        let (lo, hi) = (as_u64_mut(lo), as_u64_mut(hi));
        dispatch!(self, butterfly_ct(lo, hi, s.value()));
        Ok(())
    }

    /// Gentleman–Sande butterflies with one twiddle and an optional common factor `c`:
    /// `(lo[i], hi[i]) ← (c·(lo[i] + hi[i]), c·s·(lo[i] − hi[i]))`.
    pub fn butterfly_gs(
        self,
        lo: &mut [Goldilocks],
        hi: &mut [Goldilocks],
        s: Goldilocks,
        c: Option<Goldilocks>,
    ) -> Result<(), LengthMismatch> {
        same_len(lo.len(), hi.len())?;
        let (lo, hi) = (as_u64_mut(lo), as_u64_mut(hi));
        match c {
            None => dispatch!(self, butterfly_gs(lo, hi, s.value())),
            Some(c) => dispatch!(
                self,
                butterfly_gs_scaled(lo, hi, (s * c).value(), c.value())
            ),
        }
        Ok(())
    }

    /// The last three levels of a Cooley–Tukey NTT with bit-reversed output, on every
    /// 8-element group of `x`. Group `q` is block `g0 + q` of its level, so the levels use
    /// twiddles `w[g0+q]` (pairs at distance 4), `w[2(g0+q)+{0,1}]` (distance 2) and
    /// `w[4(g0+q)+{0..3}]` (distance 1): `w` is the bit-reversed twiddle table
    /// `w[i] = ω^brv(i)` of the transform. Requires `x.len()` to be a multiple of 16 and
    /// `w` to reach index `4(g0 + x.len()/8) − 1`.
    pub fn ntt_ct_last3(
        self,
        x: &mut [Goldilocks],
        w: &[Goldilocks],
        g0: usize,
    ) -> Result<(), LengthMismatch> {
        check_last3(x.len(), w.len(), g0)?;
        let (x, w) = (as_u64_mut(x), as_u64(w));
        match self.effective() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `effective` checked the CPU feature; `check_last3` the bounds.
            Backend::Avx512 => unsafe { avx512::ntt_ct_last3(x, w, g0) },
            _ => scalar::ntt_ct_last3(x, w, g0),
        }
        Ok(())
    }

    /// The inverse of [`Backend::ntt_ct_last3`] up to the factor 8: the first three levels
    /// of a Gentleman–Sande NTT with bit-reversed input, with inverse twiddles `w_inv`.
    pub fn ntt_gs_first3(
        self,
        x: &mut [Goldilocks],
        w_inv: &[Goldilocks],
        g0: usize,
    ) -> Result<(), LengthMismatch> {
        check_last3(x.len(), w_inv.len(), g0)?;
        let (x, w) = (as_u64_mut(x), as_u64(w_inv));
        match self.effective() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `effective` checked the CPU feature; `check_last3` the bounds.
            Backend::Avx512 => unsafe { avx512::ntt_gs_first3(x, w, g0) },
            _ => scalar::ntt_gs_first3(x, w, g0),
        }
        Ok(())
    }
}

// `Goldilocks` is `#[repr(transparent)]` over a canonical `u64`; every routine here writes
// canonical values back, so the invariant holds.
fn as_u64(a: &[Goldilocks]) -> &[u64] {
    // SAFETY: same size, alignment and validity (repr(transparent)).
    unsafe { core::slice::from_raw_parts(a.as_ptr().cast::<u64>(), a.len()) }
}
fn as_u64_mut(a: &mut [Goldilocks]) -> &mut [u64] {
    // SAFETY: as above; the callers only store canonical values.
    unsafe { core::slice::from_raw_parts_mut(a.as_mut_ptr().cast::<u64>(), a.len()) }
}

/// `a[i] += b[i]` with the detected backend.
pub fn add_assign(a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
    Backend::detect().add_assign(a, b)
}
/// `a[i] -= b[i]` with the detected backend.
pub fn sub_assign(a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
    Backend::detect().sub_assign(a, b)
}
/// `a[i] *= b[i]` with the detected backend.
pub fn mul_assign(a: &mut [Goldilocks], b: &[Goldilocks]) -> Result<(), LengthMismatch> {
    Backend::detect().mul_assign(a, b)
}
/// `a[i] *= s` with the detected backend.
pub fn scale(a: &mut [Goldilocks], s: Goldilocks) {
    Backend::detect().scale(a, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Field;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    fn vecs(rng: &mut ChaCha20Rng, n: usize) -> Vec<Goldilocks> {
        (0..n)
            .map(|i| match i % 5 {
                // Edge values: 0, 1, p−1, 2^32 boundaries.
                0 => Goldilocks::new(
                    [0, 1, Goldilocks::MODULUS - 1, 0xffff_ffff, 1 << 32][rng.gen_range(0..5)],
                )
                .unwrap(),
                _ => Goldilocks::random(rng),
            })
            .collect()
    }

    fn supported() -> Vec<Backend> {
        Backend::all()
            .into_iter()
            .filter(|b| b.is_supported())
            .collect()
    }

    #[test]
    fn elementwise_ops_match_scalar_lane_by_lane() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        for n in [0usize, 1, 3, 4, 7, 8, 9, 15, 16, 33, 100] {
            for _ in 0..20 {
                let a = vecs(&mut rng, n);
                let b = vecs(&mut rng, n);
                let s = vecs(&mut rng, 1)[0];
                for be in supported() {
                    let mut x = a.clone();
                    be.add_assign(&mut x, &b).unwrap();
                    assert!(
                        x.iter()
                            .zip(a.iter().zip(&b))
                            .all(|(x, (a, b))| *x == *a + *b),
                        "{be:?} add"
                    );
                    let mut x = a.clone();
                    be.sub_assign(&mut x, &b).unwrap();
                    assert!(
                        x.iter()
                            .zip(a.iter().zip(&b))
                            .all(|(x, (a, b))| *x == *a - *b),
                        "{be:?} sub"
                    );
                    let mut x = a.clone();
                    be.mul_assign(&mut x, &b).unwrap();
                    assert!(
                        x.iter()
                            .zip(a.iter().zip(&b))
                            .all(|(x, (a, b))| *x == *a * *b),
                        "{be:?} mul"
                    );
                    let mut x = a.clone();
                    be.scale(&mut x, s);
                    assert!(x.iter().zip(&a).all(|(x, a)| *x == *a * s), "{be:?} scale");
                    let (mut lo, mut hi) = (a.clone(), b.clone());
                    be.butterfly_ct(&mut lo, &mut hi, s).unwrap();
                    for i in 0..n {
                        assert_eq!(lo[i], a[i] + s * b[i], "{be:?} ct lo");
                        assert_eq!(hi[i], a[i] - s * b[i], "{be:?} ct hi");
                    }
                    let (mut lo, mut hi) = (a.clone(), b.clone());
                    be.butterfly_gs(&mut lo, &mut hi, s, None).unwrap();
                    for i in 0..n {
                        assert_eq!(lo[i], a[i] + b[i], "{be:?} gs lo");
                        assert_eq!(hi[i], (a[i] - b[i]) * s, "{be:?} gs hi");
                    }
                    let c = vecs(&mut rng, 1)[0];
                    let (mut lo, mut hi) = (a.clone(), b.clone());
                    be.butterfly_gs(&mut lo, &mut hi, s, Some(c)).unwrap();
                    for i in 0..n {
                        assert_eq!(lo[i], (a[i] + b[i]) * c, "{be:?} gs scaled lo");
                        assert_eq!(hi[i], (a[i] - b[i]) * s * c, "{be:?} gs scaled hi");
                    }
                }
            }
        }
    }

    #[test]
    fn extreme_products_reduce_canonically() {
        let p = Goldilocks::MODULUS;
        let edge = [
            0,
            1,
            2,
            p - 1,
            p - 2,
            0xffff_ffff,
            1 << 32,
            (1 << 32) + 1,
            p >> 1,
            u64::MAX % p,
        ];
        let a: Vec<Goldilocks> = edge
            .iter()
            .flat_map(|&x| edge.iter().map(move |_| Goldilocks::new(x).unwrap()))
            .collect();
        let b: Vec<Goldilocks> = edge
            .iter()
            .flat_map(|_| edge.iter().map(|&y| Goldilocks::new(y).unwrap()))
            .collect();
        for be in supported() {
            for op in 0..3 {
                let mut x = a.clone();
                match op {
                    0 => be.add_assign(&mut x, &b).unwrap(),
                    1 => be.sub_assign(&mut x, &b).unwrap(),
                    _ => be.mul_assign(&mut x, &b).unwrap(),
                }
                for i in 0..a.len() {
                    let want = [a[i] + b[i], a[i] - b[i], a[i] * b[i]][op];
                    assert_eq!(x[i], want, "{be:?} op {op} on {} {}", a[i], b[i]);
                    assert!(x[i].value() < p);
                }
            }
        }
    }

    #[test]
    fn ntt_kernels_match_scalar() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let w: Vec<Goldilocks> = (0..512)
            .map(|_| loop {
                let x = Goldilocks::random(&mut rng);
                if !x.is_zero() {
                    break x;
                }
            })
            .collect();
        for len in [16usize, 32, 64] {
            for g0 in [0usize, 1, 5, 64 - len / 8] {
                let x = vecs(&mut rng, len);
                let mut want = x.clone();
                Backend::Scalar.ntt_ct_last3(&mut want, &w, g0).unwrap();
                // The scalar kernel against first principles.
                let mut r = x.clone();
                for (q, grp) in r.chunks_exact_mut(8).enumerate() {
                    let g = g0 + q;
                    for (h, tw) in [
                        (4usize, vec![w[g]]),
                        (2, vec![w[2 * g], w[2 * g + 1]]),
                        (1, w[4 * g..4 * g + 4].to_vec()),
                    ] {
                        for (bi, blk) in grp.chunks_exact_mut(2 * h).enumerate() {
                            for j in 0..h {
                                let (u, v) = (blk[j], blk[j + h] * tw[bi]);
                                blk[j] = u + v;
                                blk[j + h] = u - v;
                            }
                        }
                    }
                }
                assert_eq!(r, want);
                let mut back = want.clone();
                Backend::Scalar
                    .ntt_gs_first3(&mut back, &inv_all(&w), g0)
                    .unwrap();
                assert!(back
                    .iter()
                    .zip(&x)
                    .all(|(b, x)| *b == *x * Goldilocks::from_u64(8)));
                for be in supported() {
                    let mut y = x.clone();
                    be.ntt_ct_last3(&mut y, &w, g0).unwrap();
                    assert_eq!(y, want, "{be:?} ct_last3");
                    be.ntt_gs_first3(&mut y, &inv_all(&w), g0).unwrap();
                    assert_eq!(y, back, "{be:?} gs_first3");
                }
            }
        }
    }

    fn inv_all(w: &[Goldilocks]) -> Vec<Goldilocks> {
        w.iter()
            .map(|x| x.inverse().unwrap_or(Goldilocks::ZERO))
            .collect()
    }

    #[test]
    fn errors_instead_of_panics() {
        let mut a = vec![Goldilocks::ONE; 3];
        let b = vec![Goldilocks::ONE; 4];
        for be in Backend::all() {
            assert!(be.add_assign(&mut a, &b).is_err());
            assert!(be.ntt_ct_last3(&mut a, &b, 0).is_err());
            let mut x = vec![Goldilocks::ONE; 16];
            assert!(be.ntt_ct_last3(&mut x, &b, 0).is_err());
        }
    }
}
