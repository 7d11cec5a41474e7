//! Keys and proofs.

use fastzk_r1cs::Csr;

use fastzk_field::Field;

use crate::{Fr, PairingCurve, G1, G2};

/// What the verifier needs: `e(A, B) = e(α, β) · e(Σ xᵢ·ICᵢ, γ) · e(C, δ)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey<E: PairingCurve> {
    pub alpha_g1: G1<E>,
    pub beta_g2: G2<E>,
    pub gamma_g2: G2<E>,
    pub delta_g2: G2<E>,
    /// `n_public + 1` points: the constant one, then each public input.
    pub ic: Vec<G1<E>>,
}

impl<E: PairingCurve> VerifyingKey<E> {
    /// Number of public inputs the key expects.
    pub fn n_public(&self) -> usize {
        self.ic.len().saturating_sub(1)
    }
}

/// A snarkjs-shaped Groth16 proving key (the content of a `.zkey`).
///
/// Variables are numbered as circom numbers signals: `0` is the constant one,
/// `1..=n_public` the public signals, the rest private.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvingKey<E: PairingCurve> {
    pub vk: VerifyingKey<E>,
    pub beta_g1: G1<E>,
    pub delta_g1: G1<E>,
    /// `log2` of the evaluation domain size `n`.
    pub log_domain: u32,
    /// `ω₂ₙ`, the primitive `2n`-th root of unity the key was built on: the H query is
    /// the Lagrange basis of `⟨ω₂ₙ⟩` at its odd powers, and `ω₂ₙ²` generates the
    /// size-`n` domain of the A and B polynomials. Keys for snarkjs use snarkjs' root
    /// ([`fastzk_formats::snarkjs::root_of_unity`]); the prover takes it from here.
    pub omega_2n: Fr<E>,
    /// `[A_i(τ)]₁` for every variable.
    pub a_query: Vec<G1<E>>,
    /// `[B_i(τ)]₁` for every variable.
    pub b_g1_query: Vec<G1<E>>,
    /// `[B_i(τ)]₂` for every variable.
    pub b_g2_query: Vec<G2<E>>,
    /// `[(β·A_i(τ) + α·B_i(τ) + C_i(τ))/δ]₁` for the private variables (`n_public + 1..`).
    pub c_query: Vec<G1<E>>,
    /// `[L_{2i+1}(τ)/δ]₁` for `i < n`, where `L_j` is the Lagrange basis of the size-`2n`
    /// domain: the coefficients of `A·B − C` evaluated on the odd coset.
    pub h_query: Vec<G1<E>>,
    /// The A matrix, `n` rows (constraints, then the `n_public + 1` public-input rows
    /// `A[m + i][i] = 1`, then empty rows), one column per variable.
    pub a_matrix: Csr<Fr<E>>,
    /// The B matrix, same shape.
    pub b_matrix: Csr<Fr<E>>,
}

impl<E: PairingCurve> ProvingKey<E> {
    /// Number of variables, the constant one included.
    pub fn n_vars(&self) -> usize {
        self.a_query.len()
    }
    pub fn n_public(&self) -> usize {
        self.vk.n_public()
    }
    pub fn domain_size(&self) -> usize {
        1usize << self.log_domain
    }

    /// Checks that every length agrees with `n_vars`, `n_public` and the domain, and
    /// that `omega_2n` has order exactly `2n`.
    pub fn check_shape(&self) -> Result<(), String> {
        let mut w = self.omega_2n;
        for _ in 0..=self.log_domain {
            if w.is_one() {
                return Err(format!(
                    "the domain generator has order below 2^{}",
                    self.log_domain + 1
                ));
            }
            w = w.square();
        }
        if !w.is_one() {
            return Err(format!(
                "the domain generator is not a 2^{}-th root of unity",
                self.log_domain + 1
            ));
        }
        let n_vars = self.n_vars();
        let n = self.domain_size();
        let n_pub = self.n_public();
        let checks = [
            ("B1 query", self.b_g1_query.len(), n_vars),
            ("B2 query", self.b_g2_query.len(), n_vars),
            (
                "C query",
                self.c_query.len(),
                n_vars.saturating_sub(n_pub + 1),
            ),
            ("H query", self.h_query.len(), n),
            ("A matrix rows", self.a_matrix.n_rows(), n),
            ("B matrix rows", self.b_matrix.n_rows(), n),
            ("A matrix columns", self.a_matrix.n_cols(), n_vars),
            ("B matrix columns", self.b_matrix.n_cols(), n_vars),
        ];
        for (what, got, expected) in checks {
            if got != expected {
                return Err(format!("{what}: {got} entries, expected {expected}"));
            }
        }
        if n_vars < n_pub + 1 {
            return Err(format!("{n_pub} public inputs but only {n_vars} variables"));
        }
        Ok(())
    }
}

/// A Groth16 proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof<E: PairingCurve> {
    pub a: G1<E>,
    pub b: G2<E>,
    pub c: G1<E>,
}
