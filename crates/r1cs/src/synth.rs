//! Synthetic satisfiable R1CS instances of a chosen size.
//!
//! The shape follows the synthetic instances Spartan's and ZERA's evaluations use: each
//! constraint reads a few random variables in A and B with random coefficients, and C
//! has one term whose coefficient makes the constraint hold for a random witness. The
//! witness is dense (full-size random values), the hardest case for the MSMs; circuits
//! compiled by circom are mostly bits and are easier.
//!
//! Sizes count the constraints *including* the `n_public + 1` rows Groth16 adds for the
//! public variables, so `log_size = k` gives a Groth16 evaluation domain of exactly `2^k`.
//! [`SynthParams::plonk`] instead makes one term per A, B, C row and `2^k − n_public`
//! constraints: snarkjs' Plonk conversion turns each into exactly one gate (no
//! additions), and with the public-input gates that is `2^k` gates, a Plonk domain of
//! exactly `2^k` — so Plonk and Groth16 can be compared on the same domain size.

use fastzk_field::{batch_inverse, PrimeField};
use rand_core::RngCore;

use crate::{Csr, R1cs, R1csError};

/// What [`synthesize`] builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SynthParams {
    /// `2^log_size = constraints + n_public + 1`.
    pub log_size: u32,
    /// Number of variables, the constant one included; `None` = `2^log_size`.
    pub n_vars: Option<usize>,
    /// Public variables (the constant one excluded).
    pub n_public: usize,
    /// Terms in each row of A and of B.
    pub terms: usize,
    /// Count the constraints for a Plonk domain of `2^log_size` gates (see the module).
    pub plonk_gates: bool,
}

impl SynthParams {
    pub fn new(log_size: u32) -> Self {
        Self {
            log_size,
            n_vars: None,
            n_public: 1,
            terms: 2,
            plonk_gates: false,
        }
    }

    /// One term per row and `2^log_size − n_public` constraints: `2^log_size` Plonk gates.
    pub fn plonk(log_size: u32) -> Self {
        Self {
            terms: 1,
            plonk_gates: true,
            ..Self::new(log_size)
        }
    }

    /// Number of constraints the instance will have.
    pub fn n_constraints(&self) -> usize {
        let extra = if self.plonk_gates {
            self.n_public
        } else {
            self.n_public + 1
        };
        (1usize << self.log_size).saturating_sub(extra)
    }
}

/// The largest synthetic instance: 2^30 rows (beyond what a key for it could hold in
/// memory here, and beyond snarkjs' powers of tau at 2^28).
pub const MAX_LOG_SIZE: u32 = 30;

/// A satisfiable instance and its witness `z` (`z[0] = 1`).
pub fn synthesize<F: PrimeField>(
    params: &SynthParams,
    rng: &mut impl RngCore,
) -> Result<(R1cs<F>, Vec<F>), R1csError> {
    if params.log_size > MAX_LOG_SIZE {
        return Err(R1csError::OutOfRange {
            what: "the log2 size",
            got: params.log_size.into(),
            allowed: format!("0..={MAX_LOG_SIZE}"),
        });
    }
    if params.terms == 0 {
        return Err(R1csError::OutOfRange {
            what: "the number of terms per row",
            got: 0,
            allowed: "1..".into(),
        });
    }
    let n_vars = params.n_vars.unwrap_or(1usize << params.log_size);
    if n_vars < params.n_public + 2 {
        return Err(R1csError::TooManyPublic {
            n_public: params.n_public,
            n_vars,
        });
    }
    let n_cons = params.n_constraints();
    let pick = |rng: &mut dyn RngCore, n: usize| (rng.next_u64() % n as u64) as u32;

    // A random witness with no zeros, so every C coefficient can be solved for.
    let mut z = Vec::with_capacity(n_vars);
    z.push(F::ONE);
    while z.len() < n_vars {
        let v = F::random(rng);
        if !v.is_zero() {
            z.push(v);
        }
    }

    let mut z_inv = z.clone();
    batch_inverse(&mut z_inv);

    let mut a = Csr::zeros(0, n_vars).map_err(|source| R1csError::Matrix {
        matrix: 'A',
        source,
    })?;
    let mut b = a.clone();
    let mut c = a.clone();
    for i in 0..n_cons {
        let row = |rng: &mut dyn RngCore| {
            let mut terms = Vec::with_capacity(params.terms);
            let mut sum = F::ZERO;
            for t in 0..params.terms {
                // The first term walks the variables in order so every column is used.
                let col = if t == 0 {
                    (i % n_vars) as u32
                } else {
                    pick(rng, n_vars)
                };
                let coeff = F::random(rng);
                sum += coeff * z[col as usize];
                terms.push((col, coeff));
            }
            (terms, sum)
        };
        let (ra, sa) = row(rng);
        let (rb, sb) = row(rng);
        let out = 1 + pick(rng, n_vars - 1); // never the constant, so z[out] ≠ 0
        let coeff = sa * sb * z_inv[out as usize];
        let err = |m| move |source| R1csError::Matrix { matrix: m, source };
        a.push_row(ra).map_err(err('A'))?;
        b.push_row(rb).map_err(err('B'))?;
        c.push_row([(out, coeff)]).map_err(err('C'))?;
    }
    Ok((R1cs::new(params.n_public, a, b, c)?, z))
}
