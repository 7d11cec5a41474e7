//! Development setup from a prepared powers of tau, as snarkjs does it: `groth16 setup`
//! (`zkey new`) followed by one random contribution to δ.
//!
//! The input is plain points ([`PtauSetupInput`]), which [`input_from_ptau`] reads from
//! a `.ptau` file. With `δ = 1` the key is exactly what `snarkjs zkey new` writes for the
//! same `.r1cs` and `.ptau`.
//!
//! With `L_c` the Lagrange basis of the size-`n` domain at τ and `m` constraints:
//!
//! * `A_i = Σ_c A[c][i]·L_c` (+ `L_{m+i}` for the public signals `i ≤ nPublic`),
//!   `B_i = Σ_c B[c][i]·L_c` in G1 and G2;
//! * `K_i = Σ_c (A[c][i]·βL_c + B[c][i]·αL_c + C[c][i]·L_c)` (+ `βL_{m+i}` for public
//!   `i`); `IC_i = K_i` for public `i` (γ = 1), `C_i = K_i / δ` for the others;
//! * `H_i = L'_{2i+1} / δ` with `L'` the Lagrange basis of the size-`2n` domain.
//!
//! **Not for production**: one party knows δ. Use a real phase-2 ceremony.

use fastzk_curve::{batch_normalize, Affine, CurveConfig, Jacobian};
use fastzk_field::Field;
use fastzk_r1cs::{Csr, R1cs};
use rayon::prelude::*;

use fastzk_formats::snarkjs::{self, domain_log_size};
use fastzk_formats::{FormatError, Ptau};

use crate::{Fr, PairingCurve, ProvingKey, VerifyingKey, G1, G2};

/// Why a setup from powers of tau could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PtauSetupError {
    /// The inputs disagree on sizes, or the circuit does not fit the domain.
    #[error("setup from powers of tau: {0}")]
    Shape(String),
    /// The `.ptau` file could not be read.
    #[error(transparent)]
    Ptau(#[from] FormatError),
    /// The `.ptau` file is too small for the circuit.
    #[error(
        "{file}: the circuit needs a domain of 2^{log_n} ({constraints} constraints + \
         {public_rows} public rows) but the ptau has power {power}"
    )]
    TooSmall {
        file: String,
        log_n: u32,
        constraints: usize,
        public_rows: usize,
        power: u32,
    },
}

/// The points of a phase-2-prepared powers of tau that a setup for domain size `n`
/// reads: the first points of `alphaTauG1`, `betaTauG1` and `betaG2`, and the Lagrange
/// sections (12–15 of a `.ptau` file) at size `n` (and `2n` for τ in G1).
#[derive(Clone, Debug)]
pub struct PtauSetupInput<E: PairingCurve> {
    /// `[α]₁`.
    pub alpha_g1: G1<E>,
    /// `[β]₁`.
    pub beta_g1: G1<E>,
    /// `[β]₂`.
    pub beta_g2: G2<E>,
    /// `[L_c(τ)]₁`, `n` points.
    pub lagrange_g1: Vec<G1<E>>,
    /// `[L_c(τ)]₂`, `n` points.
    pub lagrange_g2: Vec<G2<E>>,
    /// `[α·L_c(τ)]₁`, `n` points.
    pub alpha_lagrange_g1: Vec<G1<E>>,
    /// `[β·L_c(τ)]₁`, `n` points.
    pub beta_lagrange_g1: Vec<G1<E>>,
    /// `[L'_j(τ)]₁` for the size-`2n` domain, `2n` points (only the odd ones are used).
    pub lagrange_g1_2n: Vec<G1<E>>,
}

/// Everything a setup for domain size `2^log_n` reads from a phase-2-prepared `.ptau`
/// (`log_n ≤ power`).
pub fn input_from_ptau<E: PairingCurve>(
    ptau: &Ptau<E>,
    log_n: u32,
) -> Result<PtauSetupInput<E>, FormatError> {
    Ok(PtauSetupInput {
        alpha_g1: ptau.alpha_g1()?,
        beta_g1: ptau.beta_g1()?,
        beta_g2: ptau.beta_g2()?,
        lagrange_g1: ptau.lagrange_g1(log_n)?,
        lagrange_g2: ptau.lagrange_g2(log_n)?,
        alpha_lagrange_g1: ptau.alpha_lagrange_g1(log_n)?,
        beta_lagrange_g1: ptau.beta_lagrange_g1(log_n)?,
        lagrange_g1_2n: ptau.lagrange_g1(log_n + 1)?,
    })
}

/// The input for `r1cs`'s domain, or an error naming the sizes when the `.ptau` is too
/// small.
fn input_for<E: PairingCurve>(
    ptau: &Ptau<E>,
    r1cs: &R1cs<Fr<E>>,
) -> Result<PtauSetupInput<E>, PtauSetupError> {
    let log_n = domain_log_size(r1cs.n_constraints(), r1cs.n_public());
    if log_n > ptau.power() {
        return Err(PtauSetupError::TooSmall {
            file: ptau.file().to_owned(),
            log_n,
            constraints: r1cs.n_constraints(),
            public_rows: r1cs.n_public() + 1,
            power: ptau.power(),
        });
    }
    Ok(input_from_ptau(ptau, log_n)?)
}

/// A development key for `r1cs` from a `.ptau` file, like `snarkjs groth16 setup`
/// followed by one contribution with δ from the OS CSPRNG. **Not for production.**
pub fn setup_from_ptau_file<E: PairingCurve>(
    ptau: &Ptau<E>,
    r1cs: &R1cs<Fr<E>>,
) -> Result<ProvingKey<E>, PtauSetupError> {
    setup_from_ptau(r1cs, &input_for(ptau, r1cs)?)
}

/// The key `snarkjs zkey new` writes from a `.ptau` file (δ = γ = 1): for comparisons
/// with snarkjs.
pub fn setup_from_ptau_file_without_contribution<E: PairingCurve>(
    ptau: &Ptau<E>,
    r1cs: &R1cs<Fr<E>>,
) -> Result<ProvingKey<E>, PtauSetupError> {
    setup_from_ptau_with_delta(r1cs, &input_for(ptau, r1cs)?, Fr::<E>::ONE)
}

/// A setup with δ drawn from the OS CSPRNG. **Not for production**, see the module docs.
pub fn setup_from_ptau<E: PairingCurve>(
    r1cs: &R1cs<Fr<E>>,
    input: &PtauSetupInput<E>,
) -> Result<ProvingKey<E>, PtauSetupError> {
    let mut rng = rand_core::OsRng;
    let delta = loop {
        let d = Fr::<E>::random(&mut rng);
        if !d.is_zero() {
            break d;
        }
    };
    setup_from_ptau_with_delta(r1cs, input, delta)
}

/// The same with a chosen δ; `δ = 1` gives `snarkjs zkey new`'s key exactly.
pub fn setup_from_ptau_with_delta<E: PairingCurve>(
    r1cs: &R1cs<Fr<E>>,
    input: &PtauSetupInput<E>,
    delta: Fr<E>,
) -> Result<ProvingKey<E>, PtauSetupError> {
    let shape = |m: String| PtauSetupError::Shape(m);
    let n = input.lagrange_g1.len();
    if !n.is_power_of_two() {
        return Err(shape(format!("{n} Lagrange points: not a power of two")));
    }
    let log_domain = n.trailing_zeros();
    for (what, got, expected) in [
        ("lagrange_g2", input.lagrange_g2.len(), n),
        ("alpha_lagrange_g1", input.alpha_lagrange_g1.len(), n),
        ("beta_lagrange_g1", input.beta_lagrange_g1.len(), n),
        ("lagrange_g1_2n", input.lagrange_g1_2n.len(), 2 * n),
    ] {
        if got != expected {
            return Err(shape(format!("{what}: {got} points, expected {expected}")));
        }
    }
    let m = r1cs.n_constraints();
    let n_pub = r1cs.n_public();
    let n_vars = r1cs.n_vars();
    if m + n_pub + 1 > n {
        return Err(shape(format!(
            "{m} constraints + {} public rows do not fit a domain of {n}",
            n_pub + 1
        )));
    }
    let delta_inv = delta
        .inverse()
        .ok_or_else(|| shape("delta must not be zero".into()))?;

    // Columns of A, B and C: the entries each variable appears in.
    let transpose = |mat: &Csr<Fr<E>>| {
        let t: Vec<(u32, u32, Fr<E>)> = mat.triplets().map(|(r, c, v)| (c, r as u32, v)).collect();
        Csr::from_triplets(n_vars, m, &t).map_err(|e| shape(e.to_string()))
    };
    let (at, bt, ct) = (
        transpose(r1cs.a())?,
        transpose(r1cs.b())?,
        transpose(r1cs.c())?,
    );

    // The public rows A[m + i][i] = 1 add L_{m+i} to A_i and βL_{m+i} to IC_i.
    let public_row = |i: usize| (i <= n_pub).then_some(m + i);

    let a_query: Vec<Jacobian<E::G1>> = (0..n_vars)
        .into_par_iter()
        .map(|i| {
            let mut acc = combine(&at, i, &input.lagrange_g1);
            if let Some(r) = public_row(i) {
                acc += &input.lagrange_g1[r];
            }
            acc
        })
        .collect();
    let b_g1_query: Vec<Jacobian<E::G1>> = (0..n_vars)
        .into_par_iter()
        .map(|i| combine(&bt, i, &input.lagrange_g1))
        .collect();
    let b_g2_query: Vec<Jacobian<E::G2>> = (0..n_vars)
        .into_par_iter()
        .map(|i| combine(&bt, i, &input.lagrange_g2))
        .collect();
    let k: Vec<Jacobian<E::G1>> = (0..n_vars)
        .into_par_iter()
        .map(|i| {
            let mut acc = combine(&at, i, &input.beta_lagrange_g1);
            acc += &combine(&bt, i, &input.alpha_lagrange_g1);
            acc += &combine(&ct, i, &input.lagrange_g1);
            if let Some(r) = public_row(i) {
                acc += &input.beta_lagrange_g1[r];
            }
            if i > n_pub && !delta.is_one() {
                acc = acc.mul(&delta_inv);
            }
            acc
        })
        .collect();
    let h: Vec<Jacobian<E::G1>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let p = input.lagrange_g1_2n[2 * i + 1].to_jacobian();
            if delta.is_one() {
                p
            } else {
                p.mul(&delta_inv)
            }
        })
        .collect();

    let k = batch_normalize(&k);
    let (ic, c_query) = k.split_at(n_pub + 1);

    let a_matrix = Csr::from_rows(
        n_vars,
        (0..m)
            .map(|r| {
                let (c, v) = r1cs.a().row(r);
                c.iter().copied().zip(v.iter().copied()).collect::<Vec<_>>()
            })
            .chain((0..=n_pub).map(|i| vec![(i as u32, Fr::<E>::ONE)])),
    )
    .map_err(|e| shape(e.to_string()))?
    .with_empty_rows(n - m - n_pub - 1);
    let b_matrix = r1cs.b().clone().with_empty_rows(n - m);

    let pk = ProvingKey {
        vk: VerifyingKey {
            alpha_g1: input.alpha_g1,
            beta_g2: input.beta_g2,
            gamma_g2: G2::<E>::generator(),
            delta_g2: G2::<E>::generator().mul(&delta).to_affine(),
            ic: ic.to_vec(),
        },
        beta_g1: input.beta_g1,
        delta_g1: G1::<E>::generator().mul(&delta).to_affine(),
        log_domain,
        // The ptau's Lagrange bases are on snarkjs' roots.
        omega_2n: snarkjs::root_of_unity(log_domain + 1)
            .ok_or_else(|| shape(format!("a domain of 2^{} is too large", log_domain + 1)))?,
        a_query: batch_normalize(&a_query),
        b_g1_query: batch_normalize(&b_g1_query),
        b_g2_query: batch_normalize(&b_g2_query),
        c_query: c_query.to_vec(),
        h_query: batch_normalize(&h),
        a_matrix,
        b_matrix,
    };
    pk.check_shape().map_err(shape)?;
    Ok(pk)
}

/// `Σ coef·bases[row]` over column `i` of a transposed matrix; ±1 coefficients (most
/// of circom's) cost one addition.
fn combine<C: CurveConfig>(t: &Csr<C::Scalar>, i: usize, bases: &[Affine<C>]) -> Jacobian<C> {
    let (rows, vals) = t.row(i);
    let mut acc = Jacobian::<C>::from(Affine::identity());
    for (&r, v) in rows.iter().zip(vals) {
        let p = &bases[r as usize];
        if v.is_one() {
            acc += p;
        } else if (-*v).is_one() {
            acc -= p;
        } else if !v.is_zero() {
            acc += &p.mul(v);
        }
    }
    acc
}
