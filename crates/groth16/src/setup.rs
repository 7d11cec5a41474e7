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

use crate::{Fr, PairingCurve, ProvingKey, VerifyingKey};

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
}

/// `L_j(τ)` for the size-`n` subgroup `⟨ω⟩`, all `j`: `(τⁿ − 1)/n · ωʲ/(τ − ωʲ)`.
/// `τ` must be outside the subgroup.
fn lagrange_at<F: PrimeField>(tau: F, log_n: u32, omega: F) -> Vec<F> {
    let n = 1usize << log_n;
    let mut powers = vec![F::ONE; n];
    for j in 1..n {
        powers[j] = powers[j - 1] * omega;
    }
    let mut denom: Vec<F> = powers.par_iter().map(|w| tau - *w).collect();
    batch_inverse(&mut denom);
    let n_inv = F::from_u64(n as u64).inverse().expect("n < p");
    let z = (tau.pow_u64(n as u64) - F::ONE) * n_inv;
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

/// A local random setup for `r1cs`. **Not for production** (see the module docs).
pub fn setup_random<E: PairingCurve>(
    r1cs: &R1cs<Fr<E>>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<ProvingKey<E>, SetupError> {
    let n_pub = r1cs.n_public();
    let log_n = domain_log_size(r1cs.n_constraints(), n_pub);
    if log_n + 1 > Fr::<E>::TWO_ADICITY {
        return Err(SetupError::TooLarge {
            constraints: r1cs.n_constraints(),
            public: n_pub,
            log_n,
            two_adicity: Fr::<E>::TWO_ADICITY,
        });
    }
    let (a_matrix, b_matrix) = key_matrices(r1cs, log_n)?;
    // snarkjs' domain (checked against the two-adicity above).
    let omega_2n: Fr<E> = snarkjs::root_of_unity(log_n + 1).ok_or(SetupError::TooLarge {
        constraints: r1cs.n_constraints(),
        public: n_pub,
        log_n,
        two_adicity: Fr::<E>::TWO_ADICITY,
    })?;
    // τ outside both domains (else a Lagrange denominator vanishes).
    let tau = loop {
        let t: Fr<E> = nonzero(rng);
        if !t.pow_u64(2u64 << log_n).is_one() {
            break t;
        }
    };
    let [alpha, beta, gamma, delta]: [Fr<E>; 4] = std::array::from_fn(|_| nonzero(rng));

    // A_i(τ), B_i(τ), C_i(τ) for every variable i, from the rows' Lagrange weights.
    let lag = lagrange_at(tau, log_n, omega_2n.square());
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

    let gamma_inv = gamma.inverse().expect("non-zero");
    let delta_inv = delta.inverse().expect("non-zero");
    let combined = |i: usize, inv: Fr<E>| (beta * at[i] + alpha * bt[i] + ct[i]) * inv;
    let ic_scalars: Vec<Fr<E>> = (0..=n_pub).map(|i| combined(i, gamma_inv)).collect();
    let c_scalars: Vec<Fr<E>> = (n_pub + 1..n_vars)
        .into_par_iter()
        .map(|i| combined(i, delta_inv))
        .collect();
    // H query: L_{2i+1}(τ)/δ over the size-2n domain (snarkjs' odd-coset form).
    let lag2 = lagrange_at(tau, log_n + 1, omega_2n);
    let h_scalars: Vec<Fr<E>> = lag2
        .par_iter()
        .skip(1)
        .step_by(2)
        .map(|l| *l * delta_inv)
        .collect();

    let g1 = FixedBase::<E::G1>::new(&Affine::generator());
    let g2 = FixedBase::<E::G2>::new(&Affine::generator());
    let one_g1 = |k: &Fr<E>| Affine::from(g1.mul(k));
    let one_g2 = |k: &Fr<E>| Affine::from(g2.mul(k));

    Ok(ProvingKey {
        vk: VerifyingKey {
            alpha_g1: one_g1(&alpha),
            beta_g2: one_g2(&beta),
            gamma_g2: one_g2(&gamma),
            delta_g2: one_g2(&delta),
            ic: g1.mul_many(&ic_scalars),
        },
        beta_g1: one_g1(&beta),
        delta_g1: one_g1(&delta),
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
