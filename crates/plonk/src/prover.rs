//! The prover, step for step as snarkjs' `plonk prove` (0.7.6), so its keys and its
//! verifier work unchanged.
//!
//! 1. Wires: the witness (wire 0 set to zero, as snarkjs does: it only ever appears
//!    with a zero coefficient), then the key's additions in order; `a, b, c` on `H` from
//!    the wire maps. The gate identity is checked at every point of `H` before anything
//!    is committed, so a witness that breaks a gate is refused, naming it. Each wire is
//!    interpolated, blinded with `(b₂ + b₁X)(Xⁿ − 1)` etc., and committed.
//! 2. `β, γ`; `z` on `H` as the running product of the permutation ratios (one batch
//!    inversion; the product of all of them must be one); interpolated, blinded with a
//!    degree-2 multiple of `Xⁿ − 1`, committed.
//! 3. `α`; the quotient `t = N/(Xⁿ − 1)` of the blinded numerator, the same polynomial
//!    snarkjs computes in two parts on the `4n` subgroup, here from three cosets of `H`
//!    and its top block (`quotient.rs`); split into `T1, T2, T3` with `b₁₀, b₁₁`,
//!    committed.
//! 4. `ξ`; the six evaluations.
//! 5. `v`; the linearisation `r`, the openings `Wξ = (r + Σvᵢpᵢ − …)/(X − ξ)` and
//!    `Wξω = (z − z̄ω)/(X − ξω)`, committed.
//!
//! The NTTs of rounds 1 and 2 and the nine commitments (MSMs over the key's powers of
//! tau) are library calls of the single-source layer (`fastzk-runtime`), so the same
//! code proves on the CPU or on a device ([`ProveOptions::context`]), as ZERA's Plonk
//! (§3.4): the powers of tau are uploaded once, a round's commitments run as concurrent
//! tasks, each on streams of its own. On a device the quotient runs there too
//! (`quotient_layer.rs`: the cosets' NTTs and the numerator as library calls and kernels,
//! the three cosets as concurrent tasks); on the CPU it is `quotient.rs`, cheaper there.
//! The evaluations and the linearisation stay on the host. The proof is verified before
//! it is returned.

use std::time::{Duration, Instant};

use fastzk_field::{batch_inverse, Field};
use fastzk_formats::FormatError;
use fastzk_msm::MsmError;
use fastzk_poly::{Order, PolyError, Subgroup, Transform};
use fastzk_runtime::{Context, LayerPairing, Points, RuntimeError};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;

use crate::keys::Extended;
use crate::quotient::{quotient_blocks, QuotientInput, QuotientTimes};
use crate::quotient_layer::quotient_on_layer;
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
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

/// Knobs for [`prove_with`].
pub struct ProveOptions<'a> {
    /// Verify the proof before returning it (default `true`; one pairing check).
    pub self_check: bool,
    /// Called with each phase's name as it starts (for progress displays).
    pub on_phase: Option<&'a (dyn Fn(&'static str) + Sync)>,
    /// Powers of tau per chunk for a key whose points stay in its file
    /// ([`ProvingKey::in_file`]; default [`DEFAULT_CHUNK_POINTS`]).
    pub chunk_points: Option<usize>,
    /// Where the NTTs and MSMs run (default: a CPU context of the call's own).
    pub context: Option<&'a Context>,
}

impl Default for ProveOptions<'_> {
    fn default() -> Self {
        Self {
            self_check: true,
            on_phase: None,
            chunk_points: None,
            context: None,
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
    fn commit<E: LayerPairing, const K: usize>(
        &mut self,
        name: &'static str,
        parts: [(&'static str, &[Fr<E>]); K],
        ptau: &Bases<'_, E>,
    ) -> Result<[G1<E>; K], ProveError> {
        let results: Vec<(G1<E>, Duration)> = self.run(name, || ptau.commit(&parts))?;
        let mut out = [G1::<E>::identity(); K];
        for (k, (p, t)) in results.into_iter().enumerate() {
            out[k] = p;
            self.timings.overlapping.push((name, parts[k].0, t));
        }
        Ok(out)
    }
}

/// The powers of tau the commitments are made over, and the context the MSMs run in:
/// prepared (or uploaded) once when the key holds them, else read from the key's file a
/// chunk at a time for each round.
struct Bases<'a, E: LayerPairing> {
    ctx: &'a Context,
    held: Held<'a, E>,
}

enum Held<'a, E: LayerPairing> {
    Whole(Points<'a, E::G1>),
    Chunked {
        pk: &'a ProvingKey<E>,
        chunk_points: usize,
    },
}

impl<E: LayerPairing> Bases<'_, E> {
    /// The commitments to `parts`, each with the time its MSMs took.
    fn commit(
        &self,
        parts: &[(&'static str, &[Fr<E>])],
    ) -> Result<Vec<(G1<E>, Duration)>, ProveError> {
        match &self.held {
            // One task per polynomial: concurrent MSMs, each on streams of its own.
            Held::Whole(ptau) => parts
                .par_iter()
                .map(|(_, coefs)| {
                    let t = Instant::now();
                    let p = self.ctx.task()?.msm_host(ptau, coefs)?;
                    Ok((p.to_affine(), t.elapsed()))
                })
                .collect(),
            Held::Chunked { pk, chunk_points } => {
                // Each chunk is read once for all the round's polynomials.
                let longest = parts.iter().map(|(_, c)| c.len()).max().unwrap_or(0);
                let mut sums = vec![
                    (fastzk_curve::Jacobian::<E::G1>::identity(), Duration::ZERO);
                    parts.len()
                ];
                let mut start = 0;
                while start < longest {
                    let count = (*chunk_points).max(1).min(longest - start);
                    let points = pk.read_ptau(start, count)?;
                    // Prepared (or uploaded) once for all the round's polynomials, whose
                    // MSMs then run one after the other (each is parallel; side by side they
                    // would hold their buckets at once).
                    let prepared = Points::new(&points);
                    let mut task = self.ctx.task()?;
                    for ((_, coefs), (sum, time)) in parts.iter().zip(&mut sums) {
                        let end = coefs.len().min(start + count);
                        if end > start {
                            let t = Instant::now();
                            *sum += task.msm_host(&prepared, &coefs[start..end])?;
                            *time += t.elapsed();
                        }
                    }
                    start += count;
                }
                Ok(sums.into_iter().map(|(p, t)| (p.to_affine(), t)).collect())
            }
        }
    }
}

/// A proof, the public signals it proves, and the time each phase took.
pub type Proved<E> = (Proof<E>, Vec<Fr<E>>, ProveTimings);

/// Proves with blinding from the OS CSPRNG and the default options; returns the
/// proof and the public signals.
pub fn prove<E: LayerPairing>(
    pk: &ProvingKey<E>,
    witness: &[Fr<E>],
) -> Result<(Proof<E>, Vec<Fr<E>>), ProveError> {
    prove_with(pk, witness, &ProveOptions::default()).map(|(p, public, _)| (p, public))
}

/// [`prove`] with options, reporting per-phase timings.
pub fn prove_with<E: LayerPairing>(
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

/// Coefficients per block of the linearisation and of evaluations.
const LIN_BLOCK: usize = 1 << 14;

/// Powers of tau per chunk when a key's stay in its file and no size was asked for.
pub const DEFAULT_CHUNK_POINTS: usize = 1 << 18;

/// The value at `x` of the polynomial of `len` coefficients that `read(start, block)`
/// hands out a block at a time: Horner's rule on blocks in parallel.
fn evaluate_blocks<F: Field, Err: Send>(
    len: usize,
    x: F,
    read: impl Fn(usize, &mut [F]) -> Result<(), Err> + Sync,
) -> Result<F, Err> {
    let x_block = x.pow_u64(LIN_BLOCK as u64);
    let parts: Vec<F> = (0..len.div_ceil(LIN_BLOCK))
        .into_par_iter()
        .map(|blk| {
            let start = blk * LIN_BLOCK;
            let mut c = vec![F::ZERO; LIN_BLOCK.min(len - start)];
            read(start, &mut c)?;
            Ok(c.iter().rev().fold(F::ZERO, |acc, v| acc * x + *v))
        })
        .collect::<Result<_, _>>()?;
    Ok(parts
        .iter()
        .rev()
        .fold(F::ZERO, |acc, v| acc * x_block + *v))
}

/// `p(x)`.
fn evaluate<F: Field>(p: &[F], x: F) -> F {
    let copy = |start: usize, c: &mut [F]| -> Result<(), core::convert::Infallible> {
        c.copy_from_slice(&p[start..start + c.len()]);
        Ok(())
    };
    match evaluate_blocks(p.len(), x, copy) {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

/// A key polynomial's value at `x`, its coefficients read a block at a time.
fn evaluate_key<E: PairingCurve>(
    pk: &ProvingKey<E>,
    which: Extended,
    x: Fr<E>,
) -> Result<Fr<E>, FormatError> {
    evaluate_blocks(pk.domain_size(), x, |start, c| {
        pk.read_coefficients(which, start, c)
    })
}

/// `p / (X − β)` when it divides exactly (coefficients, same length, top one zero), in
/// place; `None` if there is a remainder.
fn divide_by_linear<F: Field>(mut p: Vec<F>, beta: F) -> Option<Vec<F>> {
    let mut carry = F::ZERO;
    let mut below = F::ZERO;
    for i in (0..p.len()).rev() {
        // q[i − 1] = p[i] + β·q[i]; p[i] is read before q[i] is written over it.
        carry = p[i] + beta * carry;
        p[i] = below;
        below = carry;
    }
    // The last carry is p₀ + β·q₀: the remainder.
    carry.is_zero().then_some(p)
}

/// [`prove_with`] drawing the blinding scalars from `rng` (deterministic generators
/// belong in tests only: reused blinding leaks the witness).
pub fn prove_with_rng<E: LayerPairing>(
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
    let h = Subgroup::with_root(power, omega)?;
    let own_cpu;
    let ctx = match opts.context {
        Some(ctx) => ctx,
        None => {
            own_cpu = Context::cpu();
            &own_cpu
        }
    };
    // The inverse NTT on H of each vector, as concurrent tasks.
    let interpolate = |values: &[&[Fr<E>]]| -> Result<Vec<Vec<Fr<E>>>, ProveError> {
        values
            .par_iter()
            .map(|v| {
                let v = ctx.vec(with_room(v));
                let c = ctx.task()?.ntt_into(
                    h,
                    v,
                    Transform::Inverse,
                    Order::Natural,
                    Order::Natural,
                )?;
                Ok(c.into_vec()?)
            })
            .collect()
    };

    // The nine commitments share the powers of tau: prepared (or uploaded) once.
    let ptau = Bases {
        ctx,
        held: if pk.ptau_in_file() {
            Held::Chunked {
                pk,
                chunk_points: opts.chunk_points.unwrap_or(DEFAULT_CHUNK_POINTS),
            }
        } else {
            let points = Points::new(&pk.ptau);
            clock.run("prepare the powers of tau", || ctx.task()?.prepare(&points))?;
            Held::Whole(points)
        },
    };

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
    clock.run("check the gates on H", || {
        crate::quotient::check_gates(pk, &abc_h, &public)
    })?;
    let abc_coef = clock.run("ntt a, b, c (→ coefficients)", || {
        interpolate(&[&abc_h[0], &abc_h[1], &abc_h[2]])
    })?;
    let [a_coef, b_coef, c_coef]: [Vec<Fr<E>>; 3] = abc_coef.try_into().expect("three wires");
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
        use crate::quotient::KeyFactor;
        let (k1, k2) = (KeyFactor::of(pk.vk.k1), KeyFactor::of(pk.vk.k2));
        const BLOCK: usize = 1 << 12;
        // Ratios num/den per point, each block with its own batch inversion; σ on H is
        // every fourth of the key's 4n evaluations.
        let mut ratio = Vec::with_capacity(n + ROOM);
        ratio.resize(n, Fr::<E>::ZERO);
        ratio.par_chunks_mut(BLOCK).enumerate().try_for_each(
            |(blk, out)| -> Result<(), FormatError> {
                let start = blk * BLOCK;
                let mut sigma = [0; 3].map(|_| vec![Fr::<E>::ZERO; out.len()]);
                for (k, s) in sigma.iter_mut().enumerate() {
                    pk.extended.read_on_h(Extended::Sigma(k), start, s)?;
                }
                let mut bw = beta * omega.pow_u64(start as u64);
                let mut den = Vec::with_capacity(out.len());
                for (j, o) in out.iter_mut().enumerate() {
                    let i = start + j;
                    let (a, bb, c) = (abc_h[0][i], abc_h[1][i], abc_h[2][i]);
                    *o =
                        (a + bw + gamma) * (bb + k1.times(bw) + gamma) * (c + k2.times(bw) + gamma);
                    den.push(
                        (a + beta * sigma[0][j] + gamma)
                            * (bb + beta * sigma[1][j] + gamma)
                            * (c + beta * sigma[2][j] + gamma),
                    );
                    bw *= omega;
                }
                batch_inverse(&mut den);
                out.iter_mut().zip(&den).for_each(|(o, d)| *o *= *d);
                Ok(())
            },
        )?;
        // z(ω⁰) = 1, z(ω^{i+1}) = z(ωⁱ)·ratioᵢ, in place; the product of all ratios must
        // be one.
        let mut acc = Fr::<E>::ONE;
        for v in &mut ratio {
            let r = *v;
            *v = acc;
            acc *= r;
        }
        if !acc.is_one() {
            return Err(ProveError::CopyConstraints);
        }
        Ok(ratio)
    })?;
    let z_coef = clock.run("ntt z (→ coefficients)", || interpolate(&[&z_h]))?;
    let z_coef = z_coef.into_iter().next().expect("one polynomial");
    let z_bl = blind(z_coef, &[b[9], b[8], b[7]]);
    let [cm_z] = clock.commit::<E, 1>("commit z", [("msm z", &z_bl)], &ptau)?;

    // Round 3: the quotient t(X), coset by coset; the values on H become its working
    // vectors.
    let alpha = transcript::alpha::<E>(&beta, &gamma, &cm_z);
    let [ah, bh, ch] = abc_h;
    let mut times = QuotientTimes::default();
    let coefs = [&a_bl[..], &b_bl, &c_bl, &z_bl];
    let t_coef = if ctx.device_handle().is_some() {
        drop((ah, bh, ch, z_h));
        quotient_on_layer(ctx, pk, coefs, &public, [alpha, beta, gamma], &mut times)
    } else {
        quotient_blocks(
            pk,
            QuotientInput {
                on_h: [ah, bh, ch, z_h],
                coefs,
                public: &public,
                challenges: [alpha, beta, gamma],
            },
            &mut times,
        )
    };
    clock.timings.phases.extend([
        (
            "quotient: ntt a, b, c, z to the cosets",
            times.ntt_to_cosets,
        ),
        ("quotient: the 3n points", times.points),
        ("quotient: ntt back to coefficients", times.ntt_back),
    ]);
    let t_coef = t_coef?;
    let ([mut t1, mut t2, mut t3], t_top) = t_coef;
    t1.push(b[10]);
    t2[0] -= b[10];
    t2.push(b[11]);
    t3[0] -= b[11];
    t3.extend_from_slice(&t_top);
    let [cm_t1, cm_t2, cm_t3] = clock.commit::<E, 3>(
        "commit t1, t2, t3",
        [("msm t1", &t1), ("msm t2", &t2), ("msm t3", &t3)],
        &ptau,
    )?;

    // Round 4: evaluations at ξ.
    let xi = transcript::xi::<E>(&alpha, [&cm_t1, &cm_t2, &cm_t3]);
    let xiw = xi * omega;
    let evals = clock.run("evaluations at xi", || -> Result<_, ProveError> {
        Ok([
            evaluate(&a_bl, xi),
            evaluate(&b_bl, xi),
            evaluate(&c_bl, xi),
            evaluate_key(pk, Extended::Sigma(0), xi)?,
            evaluate_key(pk, Extended::Sigma(1), xi)?,
            evaluate(&z_bl, xiw),
        ])
    })?;
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
        // The products by constants, hoisted (the multiplication is not moved out of the
        // loop for us).
        let (e24, e3b) = (e2 + e4, e3 * beta);
        let (zh_xin, zh_xin2) = (zh * xin, zh * xin.square());
        // r(X) and then Wξ's numerator, coefficient by coefficient.
        let len = n + 6;
        let at = |p: &[Fr<E>], i: usize| p.get(i).copied().unwrap_or(Fr::<E>::ZERO);
        // Into t₁'s vector (its room covers the six past n): the point reads tᵢ first.
        let mut w = t1;
        w.resize(len, Fr::<E>::ZERO);
        w.par_chunks_mut(LIN_BLOCK).enumerate().try_for_each(
            |(blk, out)| -> Result<(), FormatError> {
                let start = blk * LIN_BLOCK;
                // The key's coefficients stop at n; the blinded polynomials run past it.
                let in_key = out.len().min(n.saturating_sub(start));
                let mut key = [0; 8].map(|_| vec![Fr::<E>::ZERO; out.len()]);
                let which = [0, 1, 2, 3, 4]
                    .map(Extended::Q)
                    .into_iter()
                    .chain([0, 1, 2].map(Extended::Sigma));
                for (buf, which) in key.iter_mut().zip(which) {
                    pk.read_coefficients(which, start, &mut buf[..in_key])?;
                }
                let [qm, ql, qr, qo, qc, s1, s2, s3] = &key;
                for (k, o) in out.iter_mut().enumerate() {
                    let i = start + k;
                    let r = qm[k] * coef_ab
                        + ql[k] * eval_a
                        + qr[k] * eval_b
                        + qo[k] * eval_c
                        + qc[k]
                        + at(&z_bl, i) * e24
                        - s3[k] * e3b
                        - (*o * zh + at(&t2, i) * zh_xin + at(&t3, i) * zh_xin2);
                    *o = r
                        + v[0] * at(&a_bl, i)
                        + v[1] * at(&b_bl, i)
                        + v[2] * at(&c_bl, i)
                        + v[3] * s1[k]
                        + v[4] * s2[k];
                }
                Ok(())
            },
        )?;
        let r0 = pi - e3 * (eval_c + gamma) - e4;
        w[0] +=
            r0 - v[0] * eval_a - v[1] * eval_b - v[2] * eval_c - v[3] * eval_s1 - v[4] * eval_s2;
        let mut zw = z_bl;
        zw[0] -= eval_zw;
        // Each division is one sequential pass: the two run side by side.
        let (wxi, wxiw) = rayon::join(|| divide_by_linear(w, xi), || divide_by_linear(zw, xiw));
        let wxi =
            wxi.ok_or_else(|| ProveError::Key("r(X) + Σvᵢpᵢ(X) does not vanish at ξ".into()))?;
        let wxiw = wxiw.ok_or_else(|| ProveError::Key("z(X) − z̄ω does not vanish at ξω".into()))?;
        Ok((wxi, wxiw))
    })?;
    // Only the openings are committed now: the rest goes before their MSMs (their peak).
    drop((a_bl, b_bl, c_bl, t2, t3));
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

/// Room past `n` for what is appended to these vectors later (blinding coefficients, the
/// quotient's top block), so that appending never reallocates.
pub(crate) const ROOM: usize = 8;

/// A copy of `v` with [`ROOM`] spare capacity.
fn with_room<F: Copy>(v: &[F]) -> Vec<F> {
    let mut out = Vec::with_capacity(v.len() + ROOM);
    out.extend_from_slice(v);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastzk_pairing::Bn254;

    type F = Fr<Bn254>;

    #[test]
    fn division_by_a_linear_factor() {
        let f = |k: u64| F::from_u64(k);
        // (X − 4)(2X² + 3X + 5) = 2X³ − 5X² − 7X − 20, padded with a zero.
        let p = [-f(20), -f(7), -f(5), f(2), F::ZERO];
        assert_eq!(
            divide_by_linear(p.to_vec(), f(4)),
            Some(vec![f(5), f(3), f(2), F::ZERO, F::ZERO])
        );
        assert_eq!(divide_by_linear(p.to_vec(), f(3)), None);
        assert_eq!(divide_by_linear(Vec::new(), f(3)), Some(Vec::new()));
        assert_eq!(divide_by_linear(vec![f(2)], f(3)), None);
        assert_eq!(divide_by_linear(vec![F::ZERO], f(3)), Some(vec![F::ZERO]));
        assert_eq!(evaluate(&p, f(4)), F::ZERO);
        assert_eq!(evaluate(&p, f(1)), f(2) - f(5) - f(7) - f(20));
    }
}
