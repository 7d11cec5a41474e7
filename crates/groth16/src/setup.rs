//! Development setups (not for production).
//!
//! [`setup_random`] draws the toxic waste `τ, α, β, γ, δ` itself and forgets it. Whoever
//! runs it could forge proofs if that randomness leaked, so keys from it are for tests,
//! benchmarks and development; production keys come from a ceremony (a `.ptau`, then
//! phase-2 contributions). The key has snarkjs' layout (see [`ProvingKey`]), so
//! snarkjs can prove with it too.

use fastzk_curve::Affine;
use fastzk_field::{batch_inverse, Field, PrimeField};
use fastzk_r1cs::{Csr, R1cs};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

use fastzk_curve::FixedBase;
use fastzk_formats::snarkjs::{self, domain_log_size};

use crate::{Fr, PairingCurve, ProvingKey, VerifyingKey, G1};

/// Why a setup could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(
        "{constraints} constraints + {public} public-input rows need a domain of 2^{log_n}, \
         and the H query needs 2^{}, past the scalar field's two-adicity 2^{two_adicity}",
        log_n + 1
    )]
    TooLarge {
        constraints: usize,
        public: usize,
        log_n: u32,
        two_adicity: u32,
    },
    #[error("matrix: {0}")]
    Matrix(#[from] fastzk_r1cs::CsrError),
    /// Reading the circuit or writing the key failed.
    #[error(transparent)]
    Format(#[from] fastzk_formats::error::FormatError),
    #[error("{0}")]
    Invalid(String),
}

/// `L_j(τ)` for `j = first + k·step`, `k < count`, where `L_j` is the Lagrange basis of
/// the size-`2^log_n` subgroup `⟨ω⟩`: `(τⁿ − 1)/n · ωʲ/(τ − ωʲ)`. `τ` must be outside
/// the subgroup. A range at a time, so the H query of a large key is made in chunks.
pub(crate) fn lagrange_range<F: PrimeField>(
    tau: F,
    log_n: u32,
    omega: F,
    first: usize,
    step: usize,
    count: usize,
) -> Vec<F> {
    let n = 1u64 << log_n;
    let stride = omega.pow_u64(step as u64);
    let mut powers = Vec::with_capacity(count);
    let mut w = omega.pow_u64(first as u64);
    for _ in 0..count {
        powers.push(w);
        w *= stride;
    }
    let mut denom: Vec<F> = powers.par_iter().map(|w| tau - *w).collect();
    batch_inverse(&mut denom);
    let n_inv = F::from_u64(n).inverse().expect("n < p");
    let z = (tau.pow_u64(n) - F::ONE) * n_inv;
    powers
        .par_iter()
        .zip(denom.par_iter())
        .map(|(w, d)| z * *w * *d)
        .collect()
}

fn nonzero<F: Field>(rng: &mut (impl RngCore + CryptoRng)) -> F {
    loop {
        let v = F::random(rng);
        if !v.is_zero() {
            return v;
        }
    }
}

/// The key's A and B matrices: the R1CS's rows, then snarkjs' public-input rows
/// `A[m + i][i] = 1` (`i ≤ n_public`), then empty rows up to `2^log_n`.
pub fn key_matrices<F: PrimeField>(
    r1cs: &R1cs<F>,
    log_n: u32,
) -> Result<(Csr<F>, Csr<F>), fastzk_r1cs::CsrError> {
    let n = 1usize << log_n;
    let m = r1cs.n_constraints();
    let mut a = r1cs.a().clone();
    for i in 0..=r1cs.n_public() {
        a.push_row([(i as u32, F::ONE)])?;
    }
    let a = a.with_empty_rows(n - m - r1cs.n_public() - 1);
    let b = r1cs.b().clone().with_empty_rows(n - m);
    Ok((a, b))
}

/// The evaluation domain `2^log_n` and snarkjs' `ω₂ₙ` for a circuit, or why it is too
/// large (the H query needs the size-`2n` domain).
pub(crate) fn domain<E: PairingCurve>(
    constraints: usize,
    public: usize,
) -> Result<(u32, Fr<E>), SetupError> {
    let log_n = domain_log_size(constraints, public);
    let too_large = SetupError::TooLarge {
        constraints,
        public,
        log_n,
        two_adicity: Fr::<E>::TWO_ADICITY,
    };
    if log_n + 1 > Fr::<E>::TWO_ADICITY {
        return Err(too_large);
    }
    let omega_2n = snarkjs::root_of_unity(log_n + 1).ok_or(too_large)?;
    Ok((log_n, omega_2n))
}

/// The toxic waste, drawn in this order from the generator.
pub(crate) struct Toxic<F> {
    pub tau: F,
    pub alpha: F,
    pub beta: F,
    pub gamma: F,
    pub delta: F,
}

impl<F: PrimeField> Toxic<F> {
    pub fn draw(rng: &mut (impl RngCore + CryptoRng), log_n: u32) -> Self {
        // τ outside both domains (else a Lagrange denominator vanishes).
        let tau = loop {
            let t: F = nonzero(rng);
            if !t.pow_u64(2u64 << log_n).is_one() {
                break t;
            }
        };
        let [alpha, beta, gamma, delta] = std::array::from_fn(|_| nonzero(rng));
        Self {
            tau,
            alpha,
            beta,
            gamma,
            delta,
        }
    }

    /// The IC scalars `(β·A_i + α·B_i + C_i)/γ` for `i ≤ n_public` and the C query's
    /// `(β·A_i + α·B_i + C_i)/δ` for the rest, from the columns' values at `τ`.
    pub fn combined(&self, at: &[F], bt: &[F], ct: &[F], n_public: usize) -> (Vec<F>, Vec<F>) {
        let gamma_inv = self.gamma.inverse().expect("non-zero");
        let delta_inv = self.delta.inverse().expect("non-zero");
        let combined = |i: usize, inv: F| (self.beta * at[i] + self.alpha * bt[i] + ct[i]) * inv;
        let ic = (0..=n_public).map(|i| combined(i, gamma_inv)).collect();
        let c = (n_public + 1..at.len())
            .into_par_iter()
            .map(|i| combined(i, delta_inv))
            .collect();
        (ic, c)
    }

    /// `L_{2i+1}(τ)/δ` for `i ∈ range` over the size-`2n` domain: the H query's scalars
    /// (snarkjs' odd-coset form).
    pub fn h_scalars(&self, log_n: u32, omega_2n: F, range: std::ops::Range<usize>) -> Vec<F> {
        let delta_inv = self.delta.inverse().expect("non-zero");
        let mut h = lagrange_range(
            self.tau,
            log_n + 1,
            omega_2n,
            2 * range.start + 1,
            2,
            range.len(),
        );
        h.par_iter_mut().for_each(|l| *l *= delta_inv);
        h
    }
}

/// The key's single points: the verifying key (with IC from its scalars), `[β]₁`, `[δ]₁`.
pub(crate) fn single_points<E: PairingCurve>(
    t: &Toxic<Fr<E>>,
    ic_scalars: &[Fr<E>],
    g1: &FixedBase<E::G1>,
    g2: &FixedBase<E::G2>,
) -> (VerifyingKey<E>, G1<E>, G1<E>) {
    let one_g1 = |k: &Fr<E>| Affine::from(g1.mul(k));
    let one_g2 = |k: &Fr<E>| Affine::from(g2.mul(k));
    let vk = VerifyingKey {
        alpha_g1: one_g1(&t.alpha),
        beta_g2: one_g2(&t.beta),
        gamma_g2: one_g2(&t.gamma),
        delta_g2: one_g2(&t.delta),
        ic: g1.mul_many(ic_scalars),
    };
    (vk, one_g1(&t.beta), one_g1(&t.delta))
}

/// A local random setup for `r1cs`. **Not for production** (see the module docs). For a
/// circuit too large to hold its key in memory, [`crate::setup_file::setup_random_to_file`]
/// writes the same key straight to a file.
pub fn setup_random<E: PairingCurve>(
    r1cs: &R1cs<Fr<E>>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<ProvingKey<E>, SetupError> {
    let n_pub = r1cs.n_public();
    let (log_n, omega_2n) = domain::<E>(r1cs.n_constraints(), n_pub)?;
    let (a_matrix, b_matrix) = key_matrices(r1cs, log_n)?;
    let t = Toxic::<Fr<E>>::draw(rng, log_n);

    // A_i(τ), B_i(τ), C_i(τ) for every variable i, from the rows' Lagrange weights.
    let n = 1usize << log_n;
    let lag = lagrange_range(t.tau, log_n, omega_2n.square(), 0, 1, n);
    let n_vars = r1cs.n_vars();
    let column_sums = |m: &Csr<Fr<E>>| {
        let mut out = vec![Fr::<E>::ZERO; n_vars];
        for (row, col, v) in m.triplets() {
            out[col as usize] += v * lag[row];
        }
        out
    };
    let (at, bt) = rayon::join(|| column_sums(&a_matrix), || column_sums(&b_matrix));
    let ct = column_sums(r1cs.c());
    drop(lag);
    let (ic_scalars, c_scalars) = t.combined(&at, &bt, &ct, n_pub);
    let h_scalars = t.h_scalars(log_n, omega_2n, 0..n);

    let g1 = FixedBase::<E::G1>::new(&Affine::generator());
    let g2 = FixedBase::<E::G2>::new(&Affine::generator());
    let (vk, beta_g1, delta_g1) = single_points(&t, &ic_scalars, &g1, &g2);
    Ok(ProvingKey {
        vk,
        beta_g1,
        delta_g1,
        log_domain: log_n,
        omega_2n,
        a_query: g1.mul_many(&at),
        b_g1_query: g1.mul_many(&bt),
        b_g2_query: g2.mul_many(&bt),
        c_query: g1.mul_many(&c_scalars),
        h_query: g1.mul_many(&h_scalars),
        a_matrix,
        b_matrix,
    })
}
