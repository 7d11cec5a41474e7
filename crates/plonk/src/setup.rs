//! `plonk setup`, as snarkjs 0.7.6 does it, so the key is byte-identical to snarkjs'
//! for the same `.r1cs` and `.ptau`.
//!
//! 1. **Gates** ([`PlonkCircuit::from_r1cs`]): one gate `[s, 0, 0]` with `qL = 1` per
//!    public input, then each R1CS constraint `A·B = C` becomes one gate, after long
//!    linear combinations are cut down by "additions" (an internal wire
//!    `w = c₁·x + c₂·y` and its gate), exactly in snarkjs' order. snarkjs decides what a
//!    linear combination is by the signals present, not by the coefficients' values
//!    (its `== 0n` tests compare field buffers with a BigInt and never hold), and so
//!    does this code: a zero coefficient stays a term.
//! 2. **Permutation**: each wire's positions (column A, then B, then C, gate by gate,
//!    padding gates on wire 0) form a cycle; `σ` maps a position to the previous one of
//!    its wire (the first to the last), labelled `ωⁱ`, `k₁ωⁱ`, `k₂ωⁱ` with `k₁ = 2`,
//!    `k₂ = 3`.
//! 3. **Polynomials**: the five selectors, three `σ`s and `max(nPublic, 1)` Lagrange
//!    polynomials, each as `n` coefficients and `4n` evaluations; the selectors' and
//!    `σ`s' commitments are MSMs of their values over the Lagrange basis of the powers
//!    of tau.
//!
//! The powers come from a prepared `.ptau` ([`Powers::from_ptau`]) or, for development
//! and benchmarks only, from a `τ` drawn here and forgotten ([`Powers::random`]).

use std::collections::{BTreeMap, VecDeque};

use fastzk_curve::{Affine, FixedBase};
use fastzk_field::{batch_inverse, Field};
use fastzk_formats::Ptau;
use fastzk_msm::msm;
use fastzk_poly::{Order, Radix2Domain, TwoAdicTransform};
use fastzk_r1cs::R1cs;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

use crate::keys::{Addition, ExtendedStore, ProvingKey, VerifyingKey};
use crate::{root_of_unity, Fr, PairingCurve, G1, G2};

/// Why a setup failed.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("the circuit needs 2^{needed} gates, the powers of tau go up to 2^{available}")]
    PtauTooSmall { needed: u32, available: u32 },
    #[error("the powers of tau are not prepared for phase 2 (no Lagrange section)")]
    PtauNotPrepared,
    #[error("{0} wires do not fit snarkjs' 32-bit wire indices")]
    TooManyWires(usize),
    #[error(transparent)]
    Format(#[from] fastzk_formats::FormatError),
    #[error(transparent)]
    Msm(#[from] fastzk_msm::MsmError),
    #[error(transparent)]
    Poly(#[from] fastzk_poly::PolyError),
}

/// One Plonk gate: `qM·a·b + qL·a + qR·b + qO·c + qC = 0` on the wires `[a, b, c]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gate<F> {
    pub wires: [u32; 3],
    /// `[qM, qL, qR, qO, qC]`.
    pub q: [F; 5],
}

/// A circuit as Plonk gates, with the additions that define its internal wires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlonkCircuit<F> {
    pub gates: Vec<Gate<F>>,
    pub additions: Vec<Addition<F>>,
    /// The R1CS signals and then one wire per addition.
    pub n_vars: usize,
    pub n_public: usize,
    /// For each R1CS constraint, its gate (the additions it needed come just before).
    pub constraint_gate: Vec<usize>,
}

/// A linear combination as snarkjs holds it: one term per signal, in signal order.
type Lc<F> = BTreeMap<u32, F>;

/// What a linear combination holds, by the signals present.
#[derive(PartialEq, Eq)]
enum LcType {
    Empty,
    Constant,
    Signals,
}

fn lc_type<F>(lc: &Lc<F>) -> LcType {
    if lc.keys().any(|&s| s != 0) {
        LcType::Signals
    } else if lc.contains_key(&0) {
        LcType::Constant
    } else {
        LcType::Empty
    }
}

/// `k·lc₁ − lc₂`.
fn join<F: Field>(lc1: &Lc<F>, k: F, lc2: &Lc<F>) -> Lc<F> {
    let mut res: Lc<F> = lc1.iter().map(|(&s, &v)| (s, k * v)).collect();
    for (&s, &v) in lc2 {
        let e = res.entry(s).or_insert(F::ZERO);
        *e -= v;
    }
    res
}

/// A linear combination reduced to at most `max` terms: `(constant, [(signal, coef)])`,
/// padded with `(0, 0)`.
struct Reduced<F> {
    k: F,
    terms: Vec<(u32, F)>,
}

impl<F: fastzk_field::PrimeField> PlonkCircuit<F> {
    /// snarkjs' `reduceCoefs`: pairs of terms from the front become an addition wire
    /// appended at the back, until at most `max` remain.
    fn reduce(&mut self, lc: &Lc<F>, max: usize) -> Reduced<F> {
        let mut k = F::ZERO;
        let mut cs: VecDeque<(u32, F)> = VecDeque::new();
        for (&s, &v) in lc {
            if s == 0 {
                k += v;
            } else {
                cs.push_back((s, v));
            }
        }
        while cs.len() > max {
            let (s1, c1) = cs.pop_front().expect("more than max");
            let (s2, c2) = cs.pop_front().expect("more than max");
            let out = self.n_vars as u32;
            self.n_vars += 1;
            self.gates.push(Gate {
                wires: [s1, s2, out],
                q: [F::ZERO, -c1, -c2, F::ONE, F::ZERO],
            });
            self.additions.push(Addition {
                a: s1,
                b: s2,
                factor_a: c1,
                factor_b: c2,
            });
            cs.push_back((out, F::ONE));
        }
        let mut terms: Vec<(u32, F)> = cs.into_iter().collect();
        terms.resize(max, (0, F::ZERO));
        Reduced { k, terms }
    }

    fn add_sum(&mut self, lc: &Lc<F>) {
        let c = self.reduce(lc, 3);
        let [(sa, ca), (sb, cb), (sc, cc)] = [c.terms[0], c.terms[1], c.terms[2]];
        self.gates.push(Gate {
            wires: [sa, sb, sc],
            q: [F::ZERO, ca, cb, cc, c.k],
        });
    }

    fn add_mul(&mut self, a: &Lc<F>, b: &Lc<F>, c: &Lc<F>) {
        let a = self.reduce(a, 1);
        let b = self.reduce(b, 1);
        let c = self.reduce(c, 1);
        let ((sa, ca), (sb, cb), (sc, cc)) = (a.terms[0], b.terms[0], c.terms[0]);
        self.gates.push(Gate {
            wires: [sa, sb, sc],
            q: [ca * cb, ca * b.k, a.k * cb, -cc, a.k * b.k - c.k],
        });
    }

    /// The gates of an R1CS in snarkjs' order (public-input gates first).
    pub fn from_r1cs(r1cs: &R1cs<F>) -> Self {
        let n_public = r1cs.n_public();
        let mut c = PlonkCircuit {
            gates: Vec::with_capacity(n_public + r1cs.n_constraints()),
            additions: Vec::new(),
            n_vars: r1cs.n_vars(),
            n_public,
            constraint_gate: Vec::with_capacity(r1cs.n_constraints()),
        };
        for s in 1..=n_public as u32 {
            c.gates.push(Gate {
                wires: [s, 0, 0],
                q: [F::ZERO, F::ONE, F::ZERO, F::ZERO, F::ZERO],
            });
        }
        // Duplicate signals in a row: the last one wins, as in snarkjs' object.
        let lc = |m: &fastzk_r1cs::Csr<F>, i: usize| -> Lc<F> {
            let (cols, vals) = m.row(i);
            cols.iter().copied().zip(vals.iter().copied()).collect()
        };
        for i in 0..r1cs.n_constraints() {
            let (a, b, cc) = (lc(r1cs.a(), i), lc(r1cs.b(), i), lc(r1cs.c(), i));
            let (ta, tb) = (lc_type(&a), lc_type(&b));
            if ta == LcType::Empty || tb == LcType::Empty {
                c.add_sum(&cc);
            } else if ta == LcType::Constant {
                c.add_sum(&join(&b, a[&0], &cc));
            } else if tb == LcType::Constant {
                c.add_sum(&join(&a, b[&0], &cc));
            } else {
                c.add_mul(&a, &b, &cc);
            }
            c.constraint_gate.push(c.gates.len() - 1);
        }
        c
    }

    /// snarkjs' domain: `2^(⌊log₂(gates − 1)⌋ + 1)`, at least `2³` (the quotient's
    /// degree `3n + 5` must fit the `4n` domain).
    pub fn log_domain(&self) -> u32 {
        let m = self.gates.len().saturating_sub(1) as u64;
        let floor_log = if m == 0 { 0 } else { 63 - m.leading_zeros() };
        (floor_log + 1).max(3)
    }
}

/// The powers of `τ` a key is built from.
pub struct Powers<E: PairingCurve> {
    /// `[τⁱ]₁`, `i < n + 6`.
    pub tau_g1: Vec<G1<E>>,
    /// `[Lᵢ(τ)]₁` for the domain of size `n`.
    pub lagrange_g1: Vec<G1<E>>,
    /// `[τ]₂`.
    pub tau_g2: G2<E>,
}

impl<E: PairingCurve> Powers<E> {
    /// From a phase-2-prepared powers-of-tau file, for a domain of `2^log_n`.
    pub fn from_ptau(ptau: &Ptau<E>, log_n: u32) -> Result<Self, SetupError> {
        if log_n > ptau.power() {
            return Err(SetupError::PtauTooSmall {
                needed: log_n,
                available: ptau.power(),
            });
        }
        if !ptau.is_prepared() {
            return Err(SetupError::PtauNotPrepared);
        }
        let n = 1u64 << log_n;
        Ok(Self {
            tau_g1: ptau.tau_g1(n + 6)?,
            lagrange_g1: ptau.lagrange_g1(log_n)?,
            tau_g2: ptau.tau_g2(2)?[1],
        })
    }

    /// From a `τ` drawn from `rng` and then forgotten: DEVELOPMENT ONLY (whoever
    /// watches the process could forge proofs); keys from it are what snarkjs' setup
    /// would make from a one-contribution ceremony with that `τ`.
    pub fn random(log_n: u32, rng: &mut (impl RngCore + CryptoRng)) -> Self {
        let n = 1usize << log_n;
        let tau = Fr::<E>::random(rng);
        let mut powers = Vec::with_capacity(n + 6);
        let mut x = Fr::<E>::ONE;
        for _ in 0..n + 6 {
            powers.push(x);
            x *= tau;
        }
        // Lᵢ(τ) = ωⁱ(τⁿ − 1) / (n(τ − ωⁱ)).
        let omega = root_of_unity::<E>(log_n);
        let mut w = Vec::with_capacity(n);
        let mut acc = Fr::<E>::ONE;
        for _ in 0..n {
            w.push(acc);
            acc *= omega;
        }
        let mut den: Vec<Fr<E>> = w
            .par_iter()
            .map(|wi| Fr::<E>::from_u64(n as u64) * (tau - *wi))
            .collect();
        batch_inverse(&mut den);
        let zh = powers[n] - Fr::<E>::ONE;
        let lagrange: Vec<Fr<E>> = w
            .par_iter()
            .zip(&den)
            .map(|(wi, d)| *wi * zh * *d)
            .collect();
        let g1 = FixedBase::<E::G1>::new(&Affine::generator());
        Self {
            tau_g1: g1.mul_many(&powers),
            lagrange_g1: g1.mul_many(&lagrange),
            tau_g2: Affine::<E::G2>::generator().mul(&tau).to_affine(),
        }
    }
}

/// A polynomial's `n` coefficients and its `4n` evaluations, as a key stores it.
pub(crate) type CoefsAndExtended<F> = (Vec<F>, Vec<F>);

/// `n` coefficients and `4n` evaluations of the polynomial with values `evals` on `H`.
fn coefficients_and_extended<F: fastzk_field::NttField>(
    evals: &[F],
    dom_n: &Radix2Domain<F>,
    dom_4n: &Radix2Domain<F>,
) -> Result<CoefsAndExtended<F>, fastzk_poly::PolyError> {
    let mut c = evals.to_vec();
    dom_n.inverse(&mut c, Order::Natural, Order::Natural)?;
    let mut e = c.clone();
    e.resize(4 * c.len(), F::ZERO);
    dom_4n.forward(&mut e, Order::Natural, Order::Natural)?;
    Ok((c, e))
}

/// `L_{i+1}` of the domain of `2^log_n` as snarkjs stores it: `n` coefficients and the
/// `4n` evaluations.
pub(crate) fn lagrange_polynomial<E: PairingCurve>(
    log_n: u32,
    i: usize,
) -> Result<CoefsAndExtended<Fr<E>>, fastzk_poly::PolyError> {
    let n = 1usize << log_n;
    let dom_n = Radix2Domain::cached_with_root(log_n, root_of_unity::<E>(log_n))?;
    let dom_4n = Radix2Domain::cached_with_root(log_n + 2, root_of_unity::<E>(log_n + 2))?;
    let mut v = vec![Fr::<E>::ZERO; n];
    v[i] = Fr::<E>::ONE;
    coefficients_and_extended(&v, &dom_n, &dom_4n)
}

/// snarkjs' `plonk setup` on a circuit's gates with the given powers.
pub fn setup<E: PairingCurve>(
    circuit: &PlonkCircuit<Fr<E>>,
    powers: &Powers<E>,
) -> Result<ProvingKey<E>, SetupError> {
    if u32::try_from(circuit.n_vars).is_err() {
        return Err(SetupError::TooManyWires(circuit.n_vars));
    }
    let log_n = circuit.log_domain();
    let n = 1usize << log_n;
    if powers.tau_g1.len() < n + 6 || powers.lagrange_g1.len() != n {
        return Err(SetupError::PtauTooSmall {
            needed: log_n,
            available: (powers.lagrange_g1.len().max(1)).trailing_zeros(),
        });
    }
    let omega = root_of_unity::<E>(log_n);
    let dom_n = Radix2Domain::cached_with_root(log_n, omega)?;
    let dom_4n = Radix2Domain::cached_with_root(log_n + 2, root_of_unity::<E>(log_n + 2))?;
    let (k1, k2) = (Fr::<E>::from_u64(2), Fr::<E>::from_u64(3));

    // Selectors on H.
    let mut q_h: [Vec<Fr<E>>; 5] = Default::default();
    for (k, q) in q_h.iter_mut().enumerate() {
        *q = vec![Fr::<E>::ZERO; n];
        for (i, g) in circuit.gates.iter().enumerate() {
            q[i] = g.q[k];
        }
    }

    // σ on H: each position points at the previous position of its wire.
    let mut sigma_h = vec![Fr::<E>::ZERO; 3 * n];
    {
        let mut last: Vec<Option<Fr<E>>> = vec![None; circuit.n_vars];
        let mut first: Vec<usize> = vec![usize::MAX; circuit.n_vars];
        let mut w = Fr::<E>::ONE;
        for i in 0..n {
            let wires = circuit.gates.get(i).map_or([0; 3], |g| g.wires);
            for (col, (&s, shift)) in wires.iter().zip([Fr::<E>::ONE, k1, k2]).enumerate() {
                let p = col * n + i;
                let s = s as usize;
                match last[s] {
                    None => first[s] = p,
                    Some(v) => sigma_h[p] = v,
                }
                last[s] = Some(w * shift);
            }
            w *= omega;
        }
        for s in 0..circuit.n_vars {
            if let (Some(v), p) = (last[s], first[s]) {
                sigma_h[p] = v;
            }
        }
    }

    let commit = |evals: &[Fr<E>]| -> Result<G1<E>, SetupError> {
        Ok(msm(&powers.lagrange_g1, evals)?.to_affine())
    };
    let mut q = Vec::with_capacity(5);
    let mut q_ext = Vec::with_capacity(5);
    let mut q_commit = Vec::with_capacity(5);
    for v in &q_h {
        let (c, e) = coefficients_and_extended(v, &dom_n, &dom_4n)?;
        q.push(c);
        q_ext.push(e);
        q_commit.push(commit(v)?);
    }
    let mut sigma = Vec::with_capacity(3);
    let mut sigma_ext = Vec::with_capacity(3);
    let mut s_commit = Vec::with_capacity(3);
    for v in sigma_h.chunks_exact(n) {
        let (c, e) = coefficients_and_extended(v, &dom_n, &dom_4n)?;
        sigma.push(c);
        sigma_ext.push(e);
        s_commit.push(commit(v)?);
    }

    let arr5 = |v: Vec<Vec<Fr<E>>>| -> [Vec<Fr<E>>; 5] { v.try_into().expect("five selectors") };
    let arr3 = |v: Vec<Vec<Fr<E>>>| -> [Vec<Fr<E>>; 3] { v.try_into().expect("three sigmas") };
    let map = |k: usize| {
        circuit
            .gates
            .iter()
            .map(|g| g.wires[k])
            .collect::<Vec<u32>>()
    };
    let pk = ProvingKey {
        vk: VerifyingKey {
            n_public: circuit.n_public,
            power: log_n,
            k1,
            k2,
            q: q_commit.try_into().expect("five commitments"),
            s: s_commit.try_into().expect("three commitments"),
            x_2: powers.tau_g2,
        },
        n_vars: circuit.n_vars,
        n_constraints: circuit.gates.len(),
        additions: circuit.additions.clone(),
        maps: [map(0), map(1), map(2)],
        q: arr5(q),
        sigma: arr3(sigma),
        extended: ExtendedStore::Memory {
            q: arr5(q_ext),
            sigma: arr3(sigma_ext),
        },
        ptau: powers.tau_g1[..n + 6].to_vec(),
        in_file: None,
    };
    Ok(pk)
}
