//! The prover, step for step as snarkjs' `plonk prove` (0.7.6), so its keys and its
//! verifier work unchanged.
//!
//! 1. Wires: the witness (wire 0 set to zero, as snarkjs does: it only ever appears
//!    with a zero coefficient), then the key's additions in order; `a, b, c` on `H` from
//!    the wire maps. Each is interpolated, evaluated on the `4n` subgroup (before
//!    blinding), blinded with `(b₂ + b₁X)(Xⁿ − 1)` etc., and committed.
//! 2. `β, γ`; `z` on `H` as the running product of the permutation ratios (one batch
//!    inversion); interpolated, evaluated on the `4n` subgroup, blinded with a degree-2
//!    multiple of `Xⁿ − 1`, committed.
//! 3. `α`; the quotient on the `4n` subgroup in snarkjs' two parts: the numerator of
//!    the unblinded polynomials, which vanishes on `H` and is divided by `Xⁿ − 1` in
//!    coefficient form, plus the blinding terms already divided (`Z_H` takes four
//!    values on the `4n` subgroup); split into `T1, T2, T3` with `b₁₀, b₁₁`, committed.
//!    The gate identity is checked at every point of `H` on the way, so a witness that
//!    breaks a gate is refused, naming it.
//! 4. `ξ`; the six evaluations.
//! 5. `v`; the linearisation `r`, the openings `Wξ = (r + Σvᵢpᵢ − …)/(X − ξ)` and
//!    `Wξω = (z − z̄ω)/(X − ξω)`, committed.
//!
//! Commitments are MSMs over the key's powers of tau; those of one round run
//! concurrently. The proof is verified before it is returned.

use std::time::{Duration, Instant};

use fastzk_field::{batch_inverse, Field};
use fastzk_formats::FormatError;
use fastzk_msm::{MsmError, PreparedBases};
use fastzk_poly::{Order, PolyError, Radix2Domain, TwoAdicTransform};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;

use crate::keys::Extended;
use crate::transcript;
use crate::{root_of_unity, verify, Fr, PairingCurve, Proof, ProvingKey, G1};

/// Why proving failed.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    #[error("witness has {got} values, the proving key has {expected} signals")]
    WitnessLength { expected: usize, got: usize },
    #[error("the proving key is inconsistent: {0}")]
    Key(String),
    #[error(
        "witness does not satisfy gate {gate} of {gates} (wires a = {a}, b = {b}, c = {c}){}",
        if *gate < *n_public { " — a public-input gate" } else { "" }
    )]
    GateUnsatisfied {
        gate: usize,
        gates: usize,
        n_public: usize,
        a: u32,
        b: u32,
        c: u32,
    },
    #[error("the copy constraints do not hold (the grand product is not one)")]
    CopyConstraints,
    #[error("the proof does not verify against the key's own verification key")]
    SelfCheckFailed,
    #[error(transparent)]
    KeyFile(#[from] FormatError),
    #[error(transparent)]
    Msm(#[from] MsmError),
    #[error(transparent)]
    Poly(#[from] PolyError),
}

/// Knobs for [`prove_with`].
pub struct ProveOptions<'a> {
    /// Verify the proof before returning it (default `true`; one pairing check).
    pub self_check: bool,
    /// Called with each phase's name as it starts (for progress displays).
    pub on_phase: Option<&'a (dyn Fn(&'static str) + Sync)>,
}

impl Default for ProveOptions<'_> {
    fn default() -> Self {
        Self {
            self_check: true,
            on_phase: None,
        }
    }
}

/// Wall-clock time per phase, in the order they ran.
#[derive(Clone, Debug, Default)]
pub struct ProveTimings {
    pub phases: Vec<(&'static str, Duration)>,
    /// Parts of a phase that ran concurrently: `(phase, part, its own wall time)`.
    pub overlapping: Vec<(&'static str, &'static str, Duration)>,
}

struct Clock<'a> {
    timings: ProveTimings,
    on_phase: Option<&'a (dyn Fn(&'static str) + Sync)>,
}

impl Clock<'_> {
    fn run<T>(&mut self, name: &'static str, f: impl FnOnce() -> T) -> T {
        if let Some(cb) = self.on_phase {
            cb(name);
        }
        let t = Instant::now();
        let out = f();
        self.timings.phases.push((name, t.elapsed()));
        out
    }

    /// Commits to several polynomials at once, keeping each MSM's own time.
    fn commit<E: PairingCurve, const K: usize>(
        &mut self,
        name: &'static str,
        parts: [(&'static str, &[Fr<E>]); K],
        ptau: &PreparedBases<'_, E::G1>,
    ) -> Result<[G1<E>; K], ProveError> {
        let results: Vec<Result<(G1<E>, Duration), MsmError>> = self.run(name, || {
            parts
                .par_iter()
                .map(|(_, coefs)| {
                    let t = Instant::now();
                    let p = ptau.msm(coefs)?;
                    Ok((p.to_affine(), t.elapsed()))
                })
                .collect()
        });
        let mut out = [G1::<E>::identity(); K];
        for (k, r) in results.into_iter().enumerate() {
            let (p, t) = r?;
            out[k] = p;
            self.timings.overlapping.push((name, parts[k].0, t));
        }
        Ok(out)
    }
}

/// A proof, the public signals it proves, and the time each phase took.
pub type Proved<E> = (Proof<E>, Vec<Fr<E>>, ProveTimings);

/// Proves with blinding from the OS CSPRNG and the default options; returns the
/// proof and the public signals.
pub fn prove<E: PairingCurve>(
    pk: &ProvingKey<E>,
    witness: &[Fr<E>],
) -> Result<(Proof<E>, Vec<Fr<E>>), ProveError> {
    prove_with(pk, witness, &ProveOptions::default()).map(|(p, public, _)| (p, public))
}

/// [`prove`] with options, reporting per-phase timings.
pub fn prove_with<E: PairingCurve>(
    pk: &ProvingKey<E>,
    witness: &[Fr<E>],
    opts: &ProveOptions<'_>,
) -> Result<Proved<E>, ProveError> {
    prove_with_rng(pk, witness, opts, &mut OsRng)
}

/// `(b₀ + b₁X + …)(Xⁿ − 1)` added to the coefficients `c` (length `n`), as snarkjs'
/// `blindCoefficients([b₀, b₁, …])`: the result has `n + k` coefficients.
fn blind<F: Field>(mut c: Vec<F>, factors: &[F]) -> Vec<F> {
    let n = c.len();
    c.resize(n + factors.len(), F::ZERO);
    for (i, f) in factors.iter().enumerate() {
        c[i] -= *f;
        c[n + i] += *f;
    }
    c
}

/// `p(x)` by Horner's rule on blocks in parallel.
fn evaluate<F: Field>(p: &[F], x: F) -> F {
    const BLOCK: usize = 1 << 14;
    let x_block = x.pow_u64(BLOCK as u64);
    let parts: Vec<F> = p
        .par_chunks(BLOCK)
        .map(|c| c.iter().rev().fold(F::ZERO, |acc, v| acc * x + *v))
        .collect();
    parts
        .iter()
        .rev()
        .fold(F::ZERO, |acc, v| acc * x_block + *v)
}

/// `p / (X − β)` when it divides exactly (coefficients, same length, top one zero);
/// `None` if there is a remainder.
fn divide_by_linear<F: Field>(p: &[F], beta: F) -> Option<Vec<F>> {
    let mut q = vec![F::ZERO; p.len()];
    let mut carry = F::ZERO;
    for i in (1..p.len()).rev() {
        carry = p[i] + beta * carry;
        q[i - 1] = carry;
    }
    let remainder = p.first().map_or(F::ZERO, |p0| *p0 + beta * carry);
    remainder.is_zero().then_some(q)
}

/// [`prove_with`] drawing the blinding scalars from `rng` (deterministic generators
/// belong in tests only: reused blinding leaks the witness).
pub fn prove_with_rng<E: PairingCurve>(
    pk: &ProvingKey<E>,
    witness: &[Fr<E>],
    opts: &ProveOptions<'_>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<Proved<E>, ProveError> {
    pk.check_shape().map_err(ProveError::Key)?;
    if witness.len() != pk.n_signals() {
        return Err(ProveError::WitnessLength {
            expected: pk.n_signals(),
            got: witness.len(),
        });
    }
    let mut clock = Clock {
        timings: ProveTimings::default(),
        on_phase: opts.on_phase,
    };
    let n = pk.domain_size();
    let power = pk.vk.power;
    let n_public = pk.n_public();
    let public: Vec<Fr<E>> = witness[1..=n_public].to_vec();
    let omega = root_of_unity::<E>(power);
    let dom_n = Radix2Domain::cached_with_root(power, omega)?;
    let omega4n = root_of_unity::<E>(power + 2);

    // The nine commitments share the powers of tau: prepared for the MSMs once.
    let ptau = clock.run("prepare the powers of tau", || PreparedBases::new(&pk.ptau));

    // Round 1: wires, a(X), b(X), c(X).
    let b: Vec<Fr<E>> = (0..=11).map(|_| Fr::<E>::random(rng)).collect();
    let wires = clock.run("wires (additions)", || {
        let mut wires = Vec::with_capacity(pk.n_vars);
        wires.extend_from_slice(witness);
        wires[0] = Fr::<E>::ZERO;
        for ad in &pk.additions {
            let v = ad.factor_a * wires[ad.a as usize] + ad.factor_b * wires[ad.b as usize];
            wires.push(v);
        }
        wires
    });
    let abc_h: [Vec<Fr<E>>; 3] = clock.run("wire values on H", || {
        pk.maps.clone().map(|m| {
            let mut v: Vec<Fr<E>> = m.par_iter().map(|&w| wires[w as usize]).collect();
            v.resize(n, Fr::<E>::ZERO);
            v
        })
    });
    drop(wires);
    let (abc_coef, abc_4n) = clock.run("ntt a, b, c (n → 4n)", || -> Result<_, PolyError> {
        let mut coefs = Vec::with_capacity(3);
        let mut ext = Vec::with_capacity(3);
        for v in &abc_h {
            let mut c = with_room(v);
            dom_n.inverse(&mut c, Order::Natural, Order::Natural)?;
            ext.push(extend_to_4n(&c, with_room(v), &dom_n, omega4n)?);
            coefs.push(c);
        }
        Ok((coefs, ext))
    })?;
    let [a_coef, b_coef, c_coef]: [Vec<Fr<E>>; 3] = abc_coef.try_into().expect("three wires");
    let abc_4n: [Quarters<Fr<E>>; 3] = abc_4n.try_into().expect("three wires");
    let a_bl = blind(a_coef, &[b[2], b[1]]);
    let b_bl = blind(b_coef, &[b[4], b[3]]);
    let c_bl = blind(c_coef, &[b[6], b[5]]);
    let [cm_a, cm_b, cm_c] = clock.commit::<E, 3>(
        "commit a, b, c",
        [("msm a", &a_bl), ("msm b", &b_bl), ("msm c", &c_bl)],
        &ptau,
    )?;

    // Round 2: the permutation polynomial z(X).
    let (beta, gamma) =
        transcript::beta_gamma(&pk.vk, &abc_h[0][..n_public], [&cm_a, &cm_b, &cm_c]);
    let z_h = clock.run("z on H", || -> Result<Vec<Fr<E>>, ProveError> {
        let (k1, k2) = (pk.vk.k1, pk.vk.k2);
        const BLOCK: usize = 1 << 12;
        // Ratios num/den per point, each block with its own batch inversion; σ on H is
        // every fourth of the key's 4n evaluations.
        let mut ratio = vec![Fr::<E>::ZERO; n];
        ratio.par_chunks_mut(BLOCK).enumerate().try_for_each(
            |(blk, out)| -> Result<(), FormatError> {
                let start = blk * BLOCK;
                let mut sigma = [0; 3].map(|_| vec![Fr::<E>::ZERO; out.len()]);
                for (k, s) in sigma.iter_mut().enumerate() {
                    pk.extended.read_on_h(Extended::Sigma(k), start, s)?;
                }
                let mut w = omega.pow_u64(start as u64);
                let mut den = Vec::with_capacity(out.len());
                for (j, o) in out.iter_mut().enumerate() {
                    let i = start + j;
                    let (a, bb, c) = (abc_h[0][i], abc_h[1][i], abc_h[2][i]);
                    let bw = beta * w;
                    *o = (a + bw + gamma) * (bb + k1 * bw + gamma) * (c + k2 * bw + gamma);
                    den.push(
                        (a + beta * sigma[0][j] + gamma)
                            * (bb + beta * sigma[1][j] + gamma)
                            * (c + beta * sigma[2][j] + gamma),
                    );
                    w *= omega;
                }
                batch_inverse(&mut den);
                out.iter_mut().zip(&den).for_each(|(o, d)| *o *= *d);
                Ok(())
            },
        )?;
        // z(ω⁰) = 1, z(ω^{i+1}) = z(ωⁱ)·ratioᵢ; the product of all ratios must be one.
        let mut z = Vec::with_capacity(n + ROOM);
        let mut acc = Fr::<E>::ONE;
        for r in &ratio {
            z.push(acc);
            acc *= *r;
        }
        if !acc.is_one() {
            return Err(ProveError::CopyConstraints);
        }
        Ok(z)
    })?;
    let (z_coef, z_4n) = clock.run("ntt z (n → 4n)", || -> Result<_, PolyError> {
        let mut c = with_room(&z_h);
        dom_n.inverse(&mut c, Order::Natural, Order::Natural)?;
        let e = extend_to_4n(&c, z_h, &dom_n, omega4n)?;
        Ok((c, e))
    })?;
    let z_bl = blind(z_coef, &[b[9], b[8], b[7]]);
    let [cm_z] = clock.commit::<E, 1>("commit z", [("msm z", &z_bl)], &ptau)?;

    // Round 3: the quotient t(X).
    let alpha = transcript::alpha::<E>(&beta, &gamma, &cm_z);
    let [t, tz] = clock.run("quotient on the 4n subgroup", || {
        quotient_evaluations(pk, &public, abc_4n, &z_4n, &b, [alpha, beta, gamma])
    })?;
    drop(z_4n);
    let t_coef = clock.run(
        "ntt t (4n → coefficients)",
        || -> Result<_, ProveError> {
            // Blocks of n coefficients: t = Σ Xˡⁿ·t[l].
            let mut t = quarters_to_coefficients(t, &dom_n, omega4n)?;
            let tz = quarters_to_coefficients(tz, &dom_n, omega4n)?;
            // t / (Xⁿ − 1) by blocks: q₀ = −t₀, q_l = q_{l−1} − t_l.
            t[0].par_iter_mut().for_each(|x| *x = -*x);
            for l in 1..4 {
                let (lo, hi) = t.split_at_mut(l);
                hi[0]
                    .par_iter_mut()
                    .zip(&lo[l - 1])
                    .for_each(|(x, q)| *x = *q - *x);
            }
            if t[2][n - 3..].iter().chain(&t[3]).any(|x| !x.is_zero()) {
                return Err(ProveError::Key(
                    "the quotient's numerator does not vanish on H although every gate holds"
                        .into(),
                ));
            }
            for (x, y) in t.iter_mut().zip(&tz) {
                x.par_iter_mut().zip(y).for_each(|(x, y)| *x += *y);
            }
            if t[3][6..].iter().any(|x| !x.is_zero()) {
                return Err(ProveError::Key(
                    "the quotient has degree 3n + 6 or more".into(),
                ));
            }
            Ok(t)
        },
    )?;
    let [mut t1, mut t2, mut t3, t_top] = t_coef;
    t1.push(b[10]);
    t2[0] -= b[10];
    t2.push(b[11]);
    t3[0] -= b[11];
    t3.extend_from_slice(&t_top[..6]);
    drop(t_top);
    let [cm_t1, cm_t2, cm_t3] = clock.commit::<E, 3>(
        "commit t1, t2, t3",
        [("msm t1", &t1), ("msm t2", &t2), ("msm t3", &t3)],
        &ptau,
    )?;

    // Round 4: evaluations at ξ.
    let xi = transcript::xi::<E>(&alpha, [&cm_t1, &cm_t2, &cm_t3]);
    let xiw = xi * omega;
    let evals = clock.run("evaluations at xi", || {
        [
            evaluate(&a_bl, xi),
            evaluate(&b_bl, xi),
            evaluate(&c_bl, xi),
            evaluate(&pk.sigma[0], xi),
            evaluate(&pk.sigma[1], xi),
            evaluate(&z_bl, xiw),
        ]
    });
    let [eval_a, eval_b, eval_c, eval_s1, eval_s2, eval_zw] = evals;

    // Round 5: linearisation and openings.
    let v1 = transcript::v::<E>(
        &xi,
        [&eval_a, &eval_b, &eval_c, &eval_s1, &eval_s2, &eval_zw],
    );
    let mut v = [v1; 5];
    for i in 1..5 {
        v[i] = v[i - 1] * v1;
    }
    let (wxi, wxiw) = clock.run("linearisation and openings", || -> Result<_, ProveError> {
        let crate::verifier::AtXi { l, zh, xin } = crate::verifier::lagrange_at(&pk.vk, xi)
            .ok_or_else(|| ProveError::Key("ξ fell in the domain (probability ~2⁻²⁵⁰)".into()))?;
        let pi = public
            .iter()
            .zip(&l)
            .fold(Fr::<E>::ZERO, |acc, (w, li)| acc - *w * *li);
        let alpha2 = alpha.square();
        let coef_ab = eval_a * eval_b;
        let betaxi = beta * xi;
        let e2 = (eval_a + betaxi + gamma)
            * (eval_b + betaxi * pk.vk.k1 + gamma)
            * (eval_c + betaxi * pk.vk.k2 + gamma)
            * alpha;
        let e3 =
            (eval_a + beta * eval_s1 + gamma) * (eval_b + beta * eval_s2 + gamma) * eval_zw * alpha;
        let e4 = l[0] * alpha2;
        let xin2 = xin.square();
        // r(X) and then Wξ's numerator, coefficient by coefficient.
        let len = n + 6;
        let at = |p: &[Fr<E>], i: usize| p.get(i).copied().unwrap_or(Fr::<E>::ZERO);
        let mut w: Vec<Fr<E>> = (0..len)
            .into_par_iter()
            .map(|i| {
                let [qm, ql, qr, qo, qc] = [0, 1, 2, 3, 4].map(|k| at(&pk.q[k], i));
                let r = qm * coef_ab
                    + ql * eval_a
                    + qr * eval_b
                    + qo * eval_c
                    + qc
                    + at(&z_bl, i) * (e2 + e4)
                    - at(&pk.sigma[2], i) * (e3 * beta)
                    - (at(&t1, i) + at(&t2, i) * xin + at(&t3, i) * xin2) * zh;
                r + v[0] * at(&a_bl, i)
                    + v[1] * at(&b_bl, i)
                    + v[2] * at(&c_bl, i)
                    + v[3] * at(&pk.sigma[0], i)
                    + v[4] * at(&pk.sigma[1], i)
            })
            .collect();
        let r0 = pi - e3 * (eval_c + gamma) - e4;
        w[0] +=
            r0 - v[0] * eval_a - v[1] * eval_b - v[2] * eval_c - v[3] * eval_s1 - v[4] * eval_s2;
        let wxi = divide_by_linear(&w, xi)
            .ok_or_else(|| ProveError::Key("r(X) + Σvᵢpᵢ(X) does not vanish at ξ".into()))?;
        let mut zw = z_bl.clone();
        zw[0] -= eval_zw;
        let wxiw = divide_by_linear(&zw, xiw)
            .ok_or_else(|| ProveError::Key("z(X) − z̄ω does not vanish at ξω".into()))?;
        Ok((wxi, wxiw))
    })?;
    let [cm_wxi, cm_wxiw] = clock.commit::<E, 2>(
        "commit wxi, wxiw",
        [("msm wxi", &wxi), ("msm wxiw", &wxiw)],
        &ptau,
    )?;

    let proof = Proof {
        a: cm_a,
        b: cm_b,
        c: cm_c,
        z: cm_z,
        t1: cm_t1,
        t2: cm_t2,
        t3: cm_t3,
        wxi: cm_wxi,
        wxiw: cm_wxiw,
        eval_a,
        eval_b,
        eval_c,
        eval_s1,
        eval_s2,
        eval_zw,
    };
    if opts.self_check {
        let ok = clock.run("self-check", || verify(&pk.vk, &public, &proof));
        if !ok.unwrap_or(false) {
            return Err(ProveError::SelfCheckFailed);
        }
    }
    Ok((proof, public, clock.timings))
}

/// A polynomial's values on the `4n` subgroup as its four cosets `ω₄ₙʲ·H`:
/// `q[j][m] = p(ω₄ₙʲ·ωᵐ)`, the value at point `i = j + 4m`. The same four vectors later
/// hold the quotient's coefficients as four blocks of `n` ([`quarters_to_coefficients`]).
type Quarters<F> = [Vec<F>; 4];

/// Room past `n` for what is appended to these vectors later (blinding coefficients, the
/// quotient's top block), so that appending never reallocates.
const ROOM: usize = 8;

/// A copy of `v` with [`ROOM`] spare capacity.
fn with_room<F: Copy>(v: &[F]) -> Vec<F> {
    let mut out = Vec::with_capacity(v.len() + ROOM);
    out.extend_from_slice(v);
    out
}

/// [`Quarters`] of a polynomial of degree `< n` from its coefficients and its values on
/// `H` (coset 0, kept as the first quarter): three size-`n` coset NTTs, cheaper than one
/// `4n` NTT.
fn extend_to_4n<F: fastzk_field::NttField>(
    coefs: &[F],
    mut on_h: Vec<F>,
    dom_n: &Radix2Domain<F>,
    omega4n: F,
) -> Result<Quarters<F>, PolyError> {
    const BLOCK: usize = 1 << 12;
    on_h.reserve_exact(ROOM);
    let mut out: Quarters<F> = [on_h, Vec::new(), Vec::new(), Vec::new()];
    for (j, q) in out.iter_mut().enumerate().skip(1) {
        let g = omega4n.pow_u64(j as u64);
        let mut v = Vec::with_capacity(coefs.len() + ROOM);
        v.resize(coefs.len(), F::ZERO);
        v.par_chunks_mut(BLOCK)
            .zip(coefs.par_chunks(BLOCK))
            .enumerate()
            .for_each(|(blk, (o, c))| {
                let mut gk = g.pow_u64((blk * BLOCK) as u64);
                for (o, c) in o.iter_mut().zip(c) {
                    *o = *c * gk;
                    gk *= g;
                }
            });
        dom_n.forward(&mut v, Order::Natural, Order::Natural)?;
        *q = v;
    }
    Ok(out)
}

/// The inverse of [`extend_to_4n`] for a polynomial of degree `< 4n`: its coefficients
/// as four blocks, `p = Σₗ Xˡⁿ·pₗ`, in the same four vectors. On coset `j` (where
/// `Xⁿ = ω₄ʲ`) the values are those of `rⱼ = Σₗ ω₄ʲˡ·pₗ`, so a size-`n` inverse coset
/// NTT per coset gives the `rⱼ`, and a 4-point inverse DFT per coefficient the `pₗ`:
/// the same work as one `4n` inverse NTT, without its twiddles or a natural-order copy.
fn quarters_to_coefficients<F: fastzk_field::NttField>(
    mut q: Quarters<F>,
    dom_n: &Radix2Domain<F>,
    omega4n: F,
) -> Result<Quarters<F>, PolyError> {
    const BLOCK: usize = 1 << 12;
    for v in q.iter_mut() {
        dom_n.inverse(v, Order::Natural, Order::Natural)?;
    }
    let n = q[0].len() as u64;
    let quarter = F::from_u64(4).inverse().expect("4 < r");
    let g_inv = omega4n.inverse().expect("a root of unity");
    let i_inv = omega4n.pow_u64(3 * n); // ω₄⁻¹
    let [q0, q1, q2, q3] = &mut q;
    (
        q0.par_chunks_mut(BLOCK),
        q1.par_chunks_mut(BLOCK),
        q2.par_chunks_mut(BLOCK),
        q3.par_chunks_mut(BLOCK),
    )
        .into_par_iter()
        .enumerate()
        .for_each(|(blk, (r0, r1, r2, r3))| {
            // Coset j's coefficients come out scaled by ω₄ₙ^{jk}: undo that (and the 4-point
            // DFT's 1/4), then the 4-point inverse DFT across the cosets.
            let mut u = g_inv.pow_u64((blk * BLOCK) as u64);
            for k in 0..r0.len() {
                let u1 = u * quarter;
                let u2 = u1 * u;
                let u3 = u2 * u;
                let (x0, x1, x2, x3) = (r0[k] * quarter, r1[k] * u1, r2[k] * u2, r3[k] * u3);
                let (e0, e1) = (x0 + x2, x0 - x2);
                let (o0, o1) = (x1 + x3, (x1 - x3) * i_inv);
                r0[k] = e0 + o0;
                r1[k] = e1 + o1;
                r2[k] = e0 - o0;
                r3[k] = e1 - o1;
                u *= g_inv;
            }
        });
    Ok(q)
}

/// `(r, rz)` for `Π(fₖ + yₖ·Z)` with `Z = Z_H(x)`: `r = Πfₖ` (divided by `Z_H` later, in
/// coefficient form) and `rz = (Π(fₖ + yₖZ) − r)/Z`, which at `Z = 0` (the points of
/// `H`) is the first-order coefficient `Σₖ yₖ·Π_{j≠k} fⱼ`. snarkjs expands every order
/// (its `MulZ`); this costs 7 products where that costs about twice as many. `yz` are
/// the `yₖ·Z`, shared between the products of one point (unused on `H`).
#[inline(always)]
fn blinded_product4<F: Field>(f: [F; 4], y: [F; 4], yz: [F; 4], z: F, z_inv: F) -> (F, F) {
    let p12 = f[0] * f[1];
    let p34 = f[2] * f[3];
    let r = p12 * p34;
    if z.is_zero() {
        let rz = (y[0] * f[1] + f[0] * y[1]) * p34 + p12 * (y[2] * f[3] + f[2] * y[3]);
        (r, rz)
    } else {
        let full = (f[0] + yz[0]) * (f[1] + yz[1]) * ((f[2] + yz[2]) * (f[3] + yz[3]));
        (r, (full - r) * z_inv)
    }
}

/// [`blinded_product4`] for two factors.
#[inline(always)]
fn blinded_product2<F: Field>(f: [F; 2], y: [F; 2], yz: [F; 2], z: F, z_inv: F) -> (F, F) {
    let r = f[0] * f[1];
    if z.is_zero() {
        (r, y[0] * f[1] + f[0] * y[1])
    } else {
        let full = (f[0] + yz[0]) * (f[1] + yz[1]);
        (r, (full - r) * z_inv)
    }
}

/// Public inputs up to this many are folded into the quotient point by point (one more
/// inverse per point each); more are interpolated once ([`public_input_on_4n`]: four
/// size-`n` NTTs and `4n` values held).
const PI_DIRECT_MAX: usize = 4;

/// `PI(X) = −Σⱼ pubⱼ·L_{j+1}(X)` on the `4n` subgroup, interpolated from its values on
/// `H` (`−pubⱼ` at `ωʲ`). snarkjs reads one Lagrange polynomial per public input from the
/// key instead, `5n` values each: circuits with hundreds of public outputs made that
/// most of its reading.
fn public_input_on_4n<E: PairingCurve>(
    pk: &ProvingKey<E>,
    public: &[Fr<E>],
) -> Result<Quarters<Fr<E>>, PolyError> {
    let n = pk.domain_size();
    let power = pk.vk.power;
    let omega = root_of_unity::<E>(power);
    let omega4n = root_of_unity::<E>(power + 2);
    let dom_n = Radix2Domain::cached_with_root(power, omega)?;
    let mut pi_h = vec![Fr::<E>::ZERO; n];
    for (p, x) in pi_h.iter_mut().zip(public) {
        *p = -*x;
    }
    let mut coefs = pi_h.clone();
    dom_n.inverse(&mut coefs, Order::Natural, Order::Natural)?;
    extend_to_4n(&coefs, pi_h, &dom_n, omega4n)
}

/// The quotient's two parts on the `4n` subgroup (snarkjs' `T` and `Tz`), as
/// [`Quarters`] written over the storage of `a` and `b` (each point reads its own values
/// before writing), block by block with the key's `4n` evaluations read as needed; checks
/// every gate on the way. `L₁` and (for a few public inputs) `PI` are evaluated per
/// point: off `H`, `Lₖ(x) = ωᵏ·Z_H(x)/(n·(x − ωᵏ))`, one batch inversion per block.
fn quotient_evaluations<E: PairingCurve>(
    pk: &ProvingKey<E>,
    public: &[Fr<E>],
    abc_4n: [Quarters<Fr<E>>; 3],
    z_4n: &Quarters<Fr<E>>,
    b: &[Fr<E>],
    [alpha, beta, gamma]: [Fr<E>; 3],
) -> Result<[Quarters<Fr<E>>; 2], ProveError> {
    let n = pk.domain_size();
    let n_public = public.len();
    let omega = root_of_unity::<E>(pk.vk.power);
    let omega4n = root_of_unity::<E>(pk.vk.power + 2);
    let omega4 = root_of_unity::<E>(2);
    // Z_H(x) = xⁿ − 1 at x = ω₄ₙⁱ depends on i mod 4 only.
    let zh_values: [Fr<E>; 4] = [0u64, 1, 2, 3].map(|p| omega4.pow_u64(p) - Fr::<E>::ONE);
    let zh_inv: [Fr<E>; 4] = zh_values.map(|z| z.inverse().unwrap_or(Fr::<E>::ZERO));
    let n_inv = Fr::<E>::from_u64(n as u64).inverse().expect("n < r");
    let zh_over_n = zh_values.map(|z| z * n_inv);
    let alpha2 = alpha.square();
    let (k1b, k2b) = (pk.vk.k1 * beta, pk.vk.k2 * beta);
    let pi_4n = if n_public > PI_DIRECT_MAX {
        Some(public_input_on_4n::<E>(pk, public)?)
    } else {
        None
    };
    // The roots ωᵏ each point off H needs 1/(x − ωᵏ) for: L₁'s, and the public inputs'.
    let n_roots = if pi_4n.is_some() { 1 } else { n_public.max(1) };
    let roots: Vec<Fr<E>> = (0..n_roots).map(|k| omega.pow_u64(k as u64)).collect();
    let pub_roots: Vec<Fr<E>> = match pi_4n {
        Some(_) => Vec::new(),
        None => public.iter().zip(&roots).map(|(p, r)| *p * *r).collect(),
    };

    // Points per coset in a block (4× that many points).
    const MB: usize = 1 << 10;
    let [mut t, mut tz, c_4n] = abc_4n;
    let [t0, t1, t2, t3] = &mut t;
    let [u0, u1, u2, u3] = &mut tz;
    (
        t0.par_chunks_mut(MB),
        t1.par_chunks_mut(MB),
        t2.par_chunks_mut(MB),
        t3.par_chunks_mut(MB),
        u0.par_chunks_mut(MB),
        u1.par_chunks_mut(MB),
        u2.par_chunks_mut(MB),
        u3.par_chunks_mut(MB),
    )
        .into_par_iter()
        .enumerate()
        .try_for_each(
            |(blk, (t0, t1, t2, t3, u0, u1, u2, u3))| -> Result<(), ProveError> {
                // t over a's values, tz over b's.
                let t_out = [t0, t1, t2, t3];
                let tz_out = [u0, u1, u2, u3];
                let m0 = blk * MB;
                let len = t_out[0].len();
                let start = 4 * m0;
                let range = start..start + 4 * len;
                let read = |which: Extended| -> Result<Vec<Fr<E>>, FormatError> {
                    let mut v = vec![Fr::<E>::ZERO; range.len()];
                    pk.extended.read(which, range.clone(), &mut v)?;
                    Ok(v)
                };
                let q: Vec<Vec<Fr<E>>> = (0..5)
                    .map(|k| read(Extended::Q(k)))
                    .collect::<Result<_, _>>()?;
                let s: Vec<Vec<Fr<E>>> = (0..3)
                    .map(|k| read(Extended::Sigma(k)))
                    .collect::<Result<_, _>>()?;
                let mut inv = Vec::with_capacity(3 * len * n_roots);
                let mut w = omega4n.pow_u64(start as u64);
                for p in 0..range.len() {
                    if p % 4 != 0 {
                        inv.extend(roots.iter().map(|r| w - *r));
                    }
                    w *= omega4n;
                }
                batch_inverse(&mut inv);
                let mut inv_rows = inv.chunks_exact(n_roots);

                let mut w = omega4n.pow_u64(start as u64);
                // The z blinding at xω is the next point's z blinding in the same coset.
                let mut zp_next = [Fr::<E>::ZERO; 4];
                for m in 0..len {
                    let mm = m0 + m;
                    for j in 0..4 {
                        let p = 4 * m + j;
                        let (zh, zh_inv) = (zh_values[j], zh_inv[j]);
                        let (l1, pi) = if j == 0 {
                            let l1 = if mm == 0 { Fr::<E>::ONE } else { Fr::<E>::ZERO };
                            let pi = match &pi_4n {
                                Some(v) => v[0][mm],
                                None => public.get(mm).map_or(Fr::<E>::ZERO, |x| -*x),
                            };
                            (l1, pi)
                        } else {
                            let row = inv_rows.next().expect("one row per point off H");
                            let pi = match &pi_4n {
                                Some(v) => v[j][mm],
                                None => {
                                    let sum = pub_roots
                                        .iter()
                                        .zip(row)
                                        .fold(Fr::<E>::ZERO, |acc, (a, r)| acc + *a * *r);
                                    -(zh_over_n[j] * sum)
                                }
                            };
                            (zh_over_n[j] * row[0], pi)
                        };
                        let (a, bb, c) = (t_out[j][m], tz_out[j][m], c_4n[j][mm]);
                        let z = z_4n[j][mm];
                        // z(xω): the next point of the same coset.
                        let zw = z_4n[j][(mm + 1) % n];
                        let ap = b[2] + b[1] * w;
                        let bp = b[4] + b[3] * w;
                        let cp = b[6] + b[5] * w;
                        let zp = if m == 0 {
                            (b[7] * w + b[8]) * w + b[9]
                        } else {
                            zp_next[j]
                        };
                        let ww = w * omega;
                        let zwp = (b[7] * ww + b[8]) * ww + b[9];
                        zp_next[j] = zwp;
                        // The blindings times Z_H(x), 0 on H where they are not used.
                        let [apz, bpz, cpz, zpz, zwpz] = if j == 0 {
                            [Fr::<E>::ZERO; 5]
                        } else {
                            [ap, bp, cp, zp, zwp].map(|y| y * zh)
                        };
                        let [qm, ql, qr, qo, qc] = [0, 1, 2, 3, 4].map(|k| q[k][p]);

                        // e1: the gate, a·b·qm + a·ql + b·qr + c·qo + PI + qc.
                        let (ab, abz) = blinded_product2([a, bb], [ap, bp], [apz, bpz], zh, zh_inv);
                        let e1 = ab * qm + a * ql + bb * qr + c * qo + pi + qc;
                        let e1z = abz * qm + ap * ql + bp * qr + cp * qo;
                        if j == 0 && !e1.is_zero() {
                            let wire = |k: usize| pk.maps[k].get(mm).copied().unwrap_or(0);
                            return Err(ProveError::GateUnsatisfied {
                                gate: mm,
                                gates: pk.n_constraints,
                                n_public,
                                a: wire(0),
                                b: wire(1),
                                c: wire(2),
                            });
                        }
                        // e2: α(a + βX + γ)(b + βk1X + γ)(c + βk2X + γ)z.
                        let bw = beta * w;
                        let (e2, e2z) = blinded_product4(
                            [a + bw + gamma, bb + k1b * w + gamma, c + k2b * w + gamma, z],
                            [ap, bp, cp, zp],
                            [apz, bpz, cpz, zpz],
                            zh,
                            zh_inv,
                        );
                        // e3: α(a + βS1 + γ)(b + βS2 + γ)(c + βS3 + γ)z(Xω).
                        let (e3, e3z) = blinded_product4(
                            [
                                a + beta * s[0][p] + gamma,
                                bb + beta * s[1][p] + gamma,
                                c + beta * s[2][p] + gamma,
                                zw,
                            ],
                            [ap, bp, cp, zwp],
                            [apz, bpz, cpz, zwpz],
                            zh,
                            zh_inv,
                        );
                        // e4: α²(z − 1)L1.
                        let l1a = l1 * alpha2;
                        let e4 = (z - Fr::<E>::ONE) * l1a;
                        let e4z = zp * l1a;
                        t_out[j][m] = e1 + (e2 - e3) * alpha + e4;
                        tz_out[j][m] = e1z + (e2z - e3z) * alpha + e4z;
                        w *= omega4n;
                    }
                }
                Ok(())
            },
        )?;
    Ok([t, tz])
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastzk_pairing::Bn254;

    type F = Fr<Bn254>;

    /// `Π(xₖ + yₖZ)` as coefficients in `Z`, the plain expansion.
    fn expand(factors: &[(F, F)]) -> Vec<F> {
        let mut c = vec![F::ONE];
        for (x, y) in factors {
            let mut next = vec![F::ZERO; c.len() + 1];
            for (d, v) in c.iter().enumerate() {
                next[d] += *v * *x;
                next[d + 1] += *v * *y;
            }
            c = next;
        }
        c
    }

    #[test]
    fn blinded_products_match_the_expansion() {
        let mut rng = rand::thread_rng();
        for zh in [F::ZERO, F::ONE, F::random(&mut rng), -F::from_u64(2)] {
            let zh_inv = zh.inverse().unwrap_or(F::ZERO);
            let f: [F; 4] = core::array::from_fn(|_| F::random(&mut rng));
            let y: [F; 4] = core::array::from_fn(|_| F::random(&mut rng));
            let c = expand(&[(f[0], y[0]), (f[1], y[1]), (f[2], y[2]), (f[3], y[3])]);
            let rz = c[1..].iter().rev().fold(F::ZERO, |acc, v| acc * zh + *v);
            let yz = y.map(|v| v * zh);
            assert_eq!(blinded_product4(f, y, yz, zh, zh_inv), (c[0], rz));
            let c = expand(&[(f[0], y[0]), (f[1], y[1])]);
            let rz = c[1..].iter().rev().fold(F::ZERO, |acc, v| acc * zh + *v);
            assert_eq!(
                blinded_product2([f[0], f[1]], [y[0], y[1]], [yz[0], yz[1]], zh, zh_inv),
                (c[0], rz)
            );
        }
    }

    #[test]
    fn division_by_a_linear_factor() {
        let f = |k: u64| F::from_u64(k);
        // (X − 4)(2X² + 3X + 5) = 2X³ − 5X² − 7X − 20, padded with a zero.
        let p = [-f(20), -f(7), -f(5), f(2), F::ZERO];
        assert_eq!(
            divide_by_linear(&p, f(4)),
            Some(vec![f(5), f(3), f(2), F::ZERO, F::ZERO])
        );
        assert_eq!(divide_by_linear(&p, f(3)), None);
        assert_eq!(evaluate(&p, f(4)), F::ZERO);
        assert_eq!(evaluate(&p, f(1)), f(2) - f(5) - f(7) - f(20));
    }
}
