//! Radix-2 evaluation domains with cached twiddles.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use fastzk_field::{packed, Goldilocks, PrimeField};
use rayon::prelude::*;

use crate::ntt;
use crate::PolyError;

/// Element order of a vector of coefficients or evaluations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Index `i` holds coefficient `i` / the evaluation at `ω^i` (times the coset shift).
    Natural,
    /// Index `i` holds what natural order puts at `bit_reverse(i)`.
    BitReversed,
}

/// The subgroup `H = ⟨ω⟩` of size `n = 2^k` and its coset `g·H`, with twiddle tables
/// computed once. Cloning shares the tables.
#[derive(Clone)]
pub struct Radix2Domain<F: PrimeField> {
    log_n: u32,
    n: usize,
    omega: F,
    omega_inv: F,
    n_inv: F,
    coset: F,
    coset_inv: F,
    /// `w[i] = ω^brv(i)`, `i < max(n/2, 1)`.
    tw: Arc<Vec<F>>,
    tw_inv: Arc<Vec<F>>,
    /// `g^j` and `n⁻¹·g^{−j}`, built on first coset use.
    coset_powers: Arc<OnceLock<(Vec<F>, Vec<F>)>>,
}

impl<F: PrimeField> core::fmt::Debug for Radix2Domain<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Radix2Domain")
            .field("log_n", &self.log_n)
            .field("omega", &self.omega)
            .field("coset", &self.coset)
            .finish()
    }
}

/// `[x^0, x^1, …, x^(len−1)]`, in parallel chunks.
fn powers<F: PrimeField>(x: F, len: usize) -> Vec<F> {
    let mut out = vec![F::ZERO; len];
    const CHUNK: usize = 1 << 12;
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut acc = x.pow_u64((c * CHUNK) as u64);
            for o in chunk {
                *o = acc;
                acc *= x;
            }
        });
    out
}

impl<F: PrimeField> Radix2Domain<F> {
    /// The domain of size `2^log_n`; an error past the field's two-adicity. The coset
    /// shift is the field's multiplicative generator.
    pub fn new(log_n: u32) -> Result<Self, PolyError> {
        let too_large = PolyError::TooLarge {
            log_size: log_n,
            two_adicity: F::TWO_ADICITY,
        };
        let omega = F::root_of_unity(log_n).ok_or(too_large.clone())?;
        if log_n >= usize::BITS - 1 {
            return Err(too_large);
        }
        let n = 1usize << log_n;
        let half = (n / 2).max(1);
        let mut tw = powers(omega, half);
        ntt::bit_reverse(&mut tw, true);
        let omega_inv = omega.inverse().expect("root of unity is non-zero");
        let mut tw_inv = powers(omega_inv, half);
        ntt::bit_reverse(&mut tw_inv, true);
        let n_inv = F::from_u64(n as u64).inverse().expect("n < p");
        let coset = F::multiplicative_generator();
        Ok(Self {
            log_n,
            n,
            omega,
            omega_inv,
            n_inv,
            coset,
            coset_inv: coset.inverse().expect("generator is non-zero"),
            tw: Arc::new(tw),
            tw_inv: Arc::new(tw_inv),
            coset_powers: Arc::new(OnceLock::new()),
        })
    }

    /// The smallest domain with at least `len` points.
    pub fn for_len(len: usize) -> Result<Self, PolyError> {
        let n = len
            .max(1)
            .checked_next_power_of_two()
            .ok_or(PolyError::TooLarge {
                log_size: usize::BITS,
                two_adicity: F::TWO_ADICITY,
            })?;
        Self::new(n.trailing_zeros())
    }

    /// A shared domain from a process-wide cache keyed by field and size, so that twiddles
    /// are computed once per process.
    pub fn cached(log_n: u32) -> Result<Arc<Self>, PolyError> {
        type Cache = Mutex<HashMap<(TypeId, u32), Arc<dyn Any + Send + Sync>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let key = (TypeId::of::<F>(), log_n);
        if let Some(d) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            if let Ok(d) = d.clone().downcast::<Self>() {
                return Ok(d);
            }
        }
        let d = Arc::new(Self::new(log_n)?);
        cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, d.clone());
        Ok(d)
    }

    /// The same domain with coset shift `g` (non-zero, outside `H`: `g^n ≠ 1`).
    pub fn with_coset(mut self, g: F) -> Result<Self, PolyError> {
        if g.is_zero() || g.pow_u64(self.n as u64).is_one() {
            return Err(PolyError::BadCoset);
        }
        self.coset = g;
        self.coset_inv = g.inverse().ok_or(PolyError::BadCoset)?;
        self.coset_powers = Arc::new(OnceLock::new());
        Ok(self)
    }

    pub fn size(&self) -> usize {
        self.n
    }
    pub fn log_size(&self) -> u32 {
        self.log_n
    }
    /// The generator `ω` of `H`.
    pub fn generator(&self) -> F {
        self.omega
    }
    pub fn generator_inv(&self) -> F {
        self.omega_inv
    }
    /// `1/n`.
    pub fn size_inv(&self) -> F {
        self.n_inv
    }
    /// The coset shift `g`.
    pub fn coset_shift(&self) -> F {
        self.coset
    }
    /// `ω^i`.
    pub fn element(&self, i: usize) -> F {
        self.omega.pow_u64(i as u64)
    }
    /// `[1, ω, …, ω^(n−1)]`.
    pub fn elements(&self) -> Vec<F> {
        powers(self.omega, self.n)
    }
    /// `Z_H(x) = x^n − 1`.
    pub fn evaluate_vanishing(&self, x: F) -> F {
        x.pow_u64(self.n as u64) - F::ONE
    }

    fn check(&self, a: &[F]) -> Result<(), PolyError> {
        if a.len() != self.n {
            return Err(PolyError::LengthMismatch {
                expected: self.n,
                got: a.len(),
            });
        }
        Ok(())
    }

    fn check_batch(&self, a: &[F]) -> Result<(), PolyError> {
        if !a.len().is_multiple_of(self.n) {
            return Err(PolyError::LengthMismatch {
                expected: a.len().next_multiple_of(self.n),
                got: a.len(),
            });
        }
        Ok(())
    }

    fn coset_tables(&self) -> &(Vec<F>, Vec<F>) {
        self.coset_powers.get_or_init(|| {
            let fwd = powers(self.coset, self.n);
            let mut inv = powers(self.coset_inv, self.n);
            mul_pointwise_scalar(&mut inv, self.n_inv);
            (fwd, inv)
        })
    }

    fn forward_impl(&self, a: &mut [F], coset: bool, input: Order, output: Order, par: bool) {
        if input == Order::BitReversed {
            ntt::bit_reverse(a, par);
        }
        if coset {
            mul_pointwise(a, &self.coset_tables().0, par);
        }
        ntt::ct(a, &self.tw, 0, par);
        if output == Order::Natural {
            ntt::bit_reverse(a, par);
        }
    }

    fn inverse_impl(&self, a: &mut [F], coset: bool, input: Order, output: Order, par: bool) {
        if input == Order::Natural {
            ntt::bit_reverse(a, par);
        }
        if coset {
            ntt::gs(a, &self.tw_inv, 0, par, None);
            mul_pointwise(a, &self.coset_tables().1, par);
        } else {
            ntt::gs(a, &self.tw_inv, 0, par, Some(self.n_inv));
        }
        if output == Order::BitReversed {
            ntt::bit_reverse(a, par);
        }
    }

    /// Coefficients → evaluations on `H`: `a_j ↦ Σ_i a_i ω^{ij}`, in place and in parallel.
    /// `input` is the order of the coefficients, `output` that of the evaluations.
    pub fn forward(&self, a: &mut [F], input: Order, output: Order) -> Result<(), PolyError> {
        self.check(a)?;
        self.forward_impl(a, false, input, output, true);
        Ok(())
    }
    /// Evaluations on `H` → coefficients (the exact inverse of [`Self::forward`]).
    pub fn inverse(&self, a: &mut [F], input: Order, output: Order) -> Result<(), PolyError> {
        self.check(a)?;
        self.inverse_impl(a, false, input, output, true);
        Ok(())
    }
    /// Coefficients → evaluations on the coset `g·H`.
    pub fn coset_forward(&self, a: &mut [F], input: Order, output: Order) -> Result<(), PolyError> {
        self.check(a)?;
        self.forward_impl(a, true, input, output, true);
        Ok(())
    }
    /// Evaluations on `g·H` → coefficients.
    pub fn coset_inverse(&self, a: &mut [F], input: Order, output: Order) -> Result<(), PolyError> {
        self.check(a)?;
        self.inverse_impl(a, true, input, output, true);
        Ok(())
    }

    /// Natural order in and out (the usual FFT).
    pub fn fft_in_place(&self, a: &mut [F]) -> Result<(), PolyError> {
        self.forward(a, Order::Natural, Order::Natural)
    }
    pub fn ifft_in_place(&self, a: &mut [F]) -> Result<(), PolyError> {
        self.inverse(a, Order::Natural, Order::Natural)
    }
    pub fn coset_fft_in_place(&self, a: &mut [F]) -> Result<(), PolyError> {
        self.coset_forward(a, Order::Natural, Order::Natural)
    }
    pub fn coset_ifft_in_place(&self, a: &mut [F]) -> Result<(), PolyError> {
        self.coset_inverse(a, Order::Natural, Order::Natural)
    }

    fn batch(&self, rows: &mut [F], f: impl Fn(&mut [F], bool) + Sync) -> Result<(), PolyError> {
        self.check_batch(rows)?;
        if rows.len() == self.n {
            f(rows, true);
        } else if !rows.is_empty() {
            rows.par_chunks_mut(self.n).for_each(|r| f(r, false));
        }
        Ok(())
    }

    /// [`Self::forward`] on every row of a row-major `R × n` matrix (`rows.len() = R·n`);
    /// rows run in parallel, each on one thread.
    pub fn forward_batch(
        &self,
        rows: &mut [F],
        input: Order,
        output: Order,
    ) -> Result<(), PolyError> {
        self.batch(rows, |r, par| {
            self.forward_impl(r, false, input, output, par)
        })
    }
    /// [`Self::inverse`] on every row.
    pub fn inverse_batch(
        &self,
        rows: &mut [F],
        input: Order,
        output: Order,
    ) -> Result<(), PolyError> {
        self.batch(rows, |r, par| {
            self.inverse_impl(r, false, input, output, par)
        })
    }
    /// [`Self::coset_forward`] on every row.
    pub fn coset_forward_batch(
        &self,
        rows: &mut [F],
        input: Order,
        output: Order,
    ) -> Result<(), PolyError> {
        self.batch(rows, |r, par| {
            self.forward_impl(r, true, input, output, par)
        })
    }
    /// [`Self::coset_inverse`] on every row.
    pub fn coset_inverse_batch(
        &self,
        rows: &mut [F],
        input: Order,
        output: Order,
    ) -> Result<(), PolyError> {
        self.batch(rows, |r, par| {
            self.inverse_impl(r, true, input, output, par)
        })
    }
}

/// `a[i] *= b[i]` (equal lengths), Goldilocks through the packed backend.
pub(crate) fn mul_pointwise<F: PrimeField>(a: &mut [F], b: &[F], par: bool) {
    const CHUNK: usize = 1 << 12;
    let f = |(x, y): (&mut [F], &[F])| {
        if TypeId::of::<F>() == TypeId::of::<Goldilocks>() {
            // SAFETY: F is Goldilocks.
            let (x, y) = unsafe {
                (
                    core::slice::from_raw_parts_mut(x.as_mut_ptr().cast::<Goldilocks>(), x.len()),
                    core::slice::from_raw_parts(y.as_ptr().cast::<Goldilocks>(), y.len()),
                )
            };
            let _ = packed::mul_assign(x, y);
        } else {
            for (x, y) in x.iter_mut().zip(y) {
                *x *= *y;
            }
        }
    };
    if par {
        a.par_chunks_mut(CHUNK).zip(b.par_chunks(CHUNK)).for_each(f);
    } else {
        a.chunks_mut(CHUNK).zip(b.chunks(CHUNK)).for_each(f);
    }
}

fn mul_pointwise_scalar<F: PrimeField>(a: &mut [F], s: F) {
    a.par_iter_mut().for_each(|x| *x *= s);
}
