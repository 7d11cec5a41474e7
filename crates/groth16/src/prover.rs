//! The prover, step for step as snarkjs' `groth16 prove`, so its zkeys work here.
//!
//! 1. `a = A·z`, `b = B·z` by SpMV over the key's matrices, and `c = a ∘ b` (the key
//!    carries no C matrix; on a satisfying witness `C·z = a ∘ b` row by row).
//! 2. Each of `a, b, c` is interpolated (inverse NTT) and evaluated on the odd coset
//!    `g·H`, `g` a primitive `2n`-th root of unity (coset NTT); `p = a·b − c` there.
//! 3. Five MSMs: A over the A query, B over the B query in G1 and G2 (one scalar pass,
//!    [`fastzk_msm::msm_pair`]), C over the private part of the C query, and H = `p`
//!    over the H query (snarkjs stores the H query in the Lagrange basis of the `2n`
//!    domain at the odd points, so `p` is used as is, with no division by `Xⁿ − 1`).
//! 4. `π_A = α + A + r·δ`, `π_B = β + B + s·δ`, `π_C = C + H + s·π_A + r·B₁ − r·s·δ`.
//!
//! The proof is then checked against the key's own verification key (one multi-pairing,
//! a few milliseconds) unless the caller opts out, so an unsatisfied witness never yields
//! a proof that looks valid: it is refused. With the circuit's R1CS at hand the witness
//! is checked first and the first failing constraint is named.

use std::time::{Duration, Instant};

use fastzk_curve::Jacobian;
use fastzk_field::Field;
use fastzk_msm::{msm, msm_pair};
use fastzk_poly::{Order, TwoAdicTransform};
use fastzk_r1cs::{spmv, R1cs};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;

use crate::{verify, Fr, PairingCurve, Proof, ProveError, ProvingKey};
use fastzk_poly::Radix2Domain;

/// Knobs for [`prove_with`].
pub struct ProveOptions<'a, E: PairingCurve> {
    /// Check every constraint of the circuit's R1CS before proving, naming the first
    /// that fails.
    pub r1cs: Option<&'a R1cs<Fr<E>>>,
    /// Verify the proof before returning it (default `true`; costs one multi-pairing).
    pub self_check: bool,
    /// Called with each phase's name as it starts (for progress displays).
    pub on_phase: Option<&'a (dyn Fn(&'static str) + Sync)>,
    /// Runs the SpMV, NTTs and MSMs elsewhere (a GPU) instead of on the CPU engines.
    pub offload: Option<&'a dyn Offload<E>>,
}

/// Where the prover's SpMV, NTTs and MSMs run when not on the CPU engines: a device
/// backend implements this (`fastzk_gpu::groth16::DeviceOffload`).
pub trait Offload<E: PairingCurve>: Sync {
    fn msm_g1(
        &self,
        bases: &[fastzk_curve::Affine<E::G1>],
        scalars: &[Fr<E>],
    ) -> Result<Jacobian<E::G1>, fastzk_msm::MsmError>;
    fn msm_g2(
        &self,
        bases: &[fastzk_curve::Affine<E::G2>],
        scalars: &[Fr<E>],
    ) -> Result<Jacobian<E::G2>, fastzk_msm::MsmError>;
    /// `p = a·b − c` on the odd coset, natural order, from the key's matrices and the
    /// witness: what [`abc_evaluations`] and [`odd_coset_quotient`] compute together.
    fn quotient(&self, pk: &ProvingKey<E>, witness: &[Fr<E>]) -> Result<Vec<Fr<E>>, ProveError>;
}

impl<E: PairingCurve> Default for ProveOptions<'_, E> {
    fn default() -> Self {
        Self {
            r1cs: None,
            self_check: true,
            on_phase: None,
            offload: None,
        }
    }
}

/// Wall-clock time per phase, in the order they ran.
#[derive(Clone, Debug, Default)]
pub struct ProveTimings {
    pub phases: Vec<(&'static str, Duration)>,
    /// Parts of a phase that ran concurrently (each one's own wall time).
    pub overlapping: Vec<(&'static str, Duration)>,
}

impl ProveTimings {
    pub fn total(&self) -> Duration {
        self.phases.iter().map(|(_, d)| *d).sum()
    }
}

pub(crate) struct Clock<'a> {
    pub timings: ProveTimings,
    on_phase: Option<&'a (dyn Fn(&'static str) + Sync)>,
}

impl<'a> Clock<'a> {
    pub fn new(on_phase: Option<&'a (dyn Fn(&'static str) + Sync)>) -> Self {
        Self {
            timings: ProveTimings::default(),
            on_phase,
        }
    }

    pub fn run<T>(&mut self, name: &'static str, f: impl FnOnce() -> T) -> T {
        if let Some(cb) = self.on_phase {
            cb(name);
        }
        let t = Instant::now();
        let out = f();
        self.timings.phases.push((name, t.elapsed()));
        out
    }
}

/// Runs `f`, returning its result with its wall time.
fn timed<T>(
    f: impl FnOnce() -> Result<T, fastzk_msm::MsmError>,
) -> Result<(T, Duration), ProveError> {
    let t = Instant::now();
    let out = f()?;
    Ok((out, t.elapsed()))
}

/// Proves with randomness from the OS CSPRNG and the default options.
pub fn prove<E: PairingCurve>(
    pk: &ProvingKey<E>,
    witness: &[Fr<E>],
) -> Result<Proof<E>, ProveError> {
    prove_with(pk, witness, &ProveOptions::default()).map(|(p, _)| p)
}

/// [`prove`] with options, reporting per-phase timings.
pub fn prove_with<E: PairingCurve>(
    pk: &ProvingKey<E>,
    witness: &[Fr<E>],
    opts: &ProveOptions<'_, E>,
) -> Result<(Proof<E>, ProveTimings), ProveError> {
    prove_with_rng(pk, witness, opts, &mut OsRng)
}

/// [`prove_with`] drawing `r, s` from `rng` (deterministic generators belong in tests
/// only: reusing `r, s` across proofs leaks the witness).
pub fn prove_with_rng<E: PairingCurve>(
    pk: &ProvingKey<E>,
    witness: &[Fr<E>],
    opts: &ProveOptions<'_, E>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<(Proof<E>, ProveTimings), ProveError> {
    pk.check_shape().map_err(ProveError::Key)?;
    let mut clock = Clock::new(opts.on_phase);
    check_witness(pk.n_vars(), pk.n_public(), witness, opts, &mut clock)?;

    let p = match opts.offload {
        Some(d) => clock.run("spmv + ntt (device)", || d.quotient(pk, witness))?,
        None => {
            let abc = clock.run("spmv (a·z, b·z)", || abc_evaluations(pk, witness));
            clock.run("ntt (h on odd coset)", || {
                odd_coset_quotient::<E>(pk.log_domain, pk.omega_2n, abc)
            })?
        }
    };
    let r = Fr::<E>::random(rng);
    let s = Fr::<E>::random(rng);

    let n_pub = pk.n_public();
    // The four MSMs run side by side: the small ones (circom witnesses are mostly bits)
    // fill the cores while the H query's dense MSM runs. Each one's own wall time is
    // kept in `overlapping`; the phase "msm (concurrent)" is the one that adds up.
    let (h, (a, (b, c))) = clock.run("msm (concurrent)", || match opts.offload {
        // A device runs its MSMs one after the other on its queue.
        Some(d) => (
            timed(|| d.msm_g1(&pk.h_query, &p)),
            (
                timed(|| d.msm_g1(&pk.a_query, witness)),
                (
                    timed(|| {
                        Ok((
                            d.msm_g1(&pk.b_g1_query, witness)?,
                            d.msm_g2(&pk.b_g2_query, witness)?,
                        ))
                    }),
                    timed(|| d.msm_g1(&pk.c_query, &witness[n_pub + 1..])),
                ),
            ),
        ),
        None => rayon::join(
            || timed(|| msm(&pk.h_query, &p)),
            || {
                rayon::join(
                    || timed(|| msm(&pk.a_query, witness)),
                    || {
                        rayon::join(
                            || timed(|| msm_pair(&pk.b_g1_query, &pk.b_g2_query, witness)),
                            || timed(|| msm(&pk.c_query, &witness[n_pub + 1..])),
                        )
                    },
                )
            },
        ),
    });
    let ((h, t_h), (a, t_a), ((b1, b2), t_b), (c, t_c)) = (h?, a?, b?, c?);
    clock.timings.overlapping = vec![
        ("msm h (g1)", t_h),
        ("msm a (g1)", t_a),
        ("msm b (g1 + g2)", t_b),
        ("msm c (g1)", t_c),
    ];

    let parts = MsmResults { a, b1, b2, c, h };
    let proof = finish(
        &pk.vk,
        pk.beta_g1,
        pk.delta_g1,
        parts,
        (r, s),
        witness,
        opts,
        &mut clock,
    )?;
    Ok((proof, clock.timings))
}

/// The witness against the key's shape (and the R1CS, when given).
pub(crate) fn check_witness<E: PairingCurve>(
    n_vars: usize,
    n_public: usize,
    witness: &[Fr<E>],
    opts: &ProveOptions<'_, E>,
    clock: &mut Clock<'_>,
) -> Result<(), ProveError> {
    if witness.len() != n_vars {
        return Err(ProveError::WitnessLength {
            expected: n_vars,
            got: witness.len(),
        });
    }
    if !witness[0].is_one() {
        return Err(ProveError::WitnessConstant);
    }
    if let Some(r1cs) = opts.r1cs {
        if r1cs.n_vars() != n_vars || r1cs.n_public() != n_public {
            return Err(ProveError::Key(format!(
                "the R1CS has {} variables ({} public), the key {n_vars} ({n_public} public)",
                r1cs.n_vars(),
                r1cs.n_public(),
            )));
        }
        clock.run("check witness", || r1cs.check(witness))?;
    }
    Ok(())
}

/// The five MSMs' results.
pub(crate) struct MsmResults<E: PairingCurve> {
    pub a: Jacobian<E::G1>,
    pub b1: Jacobian<E::G1>,
    pub b2: Jacobian<E::G2>,
    pub c: Jacobian<E::G1>,
    pub h: Jacobian<E::G1>,
}

/// Step 4 and the self-check: the proof from the MSMs and the blinding `(r, s)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish<E: PairingCurve>(
    vk: &crate::VerifyingKey<E>,
    beta_g1: crate::G1<E>,
    delta_g1: crate::G1<E>,
    MsmResults { a, b1, b2, c, h }: MsmResults<E>,
    (r, s): (Fr<E>, Fr<E>),
    witness: &[Fr<E>],
    opts: &ProveOptions<'_, E>,
    clock: &mut Clock<'_>,
) -> Result<Proof<E>, ProveError> {
    let proof = clock.run("assemble", || {
        let delta1 = Jacobian::from(delta_g1);
        let pi_a = a + vk.alpha_g1 + delta1.mul(&r);
        let pi_b = b2 + vk.beta_g2 + Jacobian::from(vk.delta_g2).mul(&s);
        let pi_b1 = b1 + beta_g1 + delta1.mul(&s);
        let pi_c = c + h + pi_a.mul(&s) + pi_b1.mul(&r) - delta1.mul(&(r * s));
        Proof {
            a: pi_a.to_affine(),
            b: pi_b.to_affine(),
            c: pi_c.to_affine(),
        }
    });

    if opts.self_check {
        let public = &witness[1..=vk.n_public()];
        let ok = clock.run("self-check", || verify(vk, public, &proof));
        if !ok.unwrap_or(false) {
            return Err(ProveError::SelfCheckFailed);
        }
    }
    Ok(proof)
}

/// `A·z`, `B·z` and `C·z := A·z ∘ B·z` on `H` (snarkjs' convention: the key has no C
/// matrix, and on a satisfying witness the two agree row by row).
pub fn abc_evaluations<E: PairingCurve>(pk: &ProvingKey<E>, witness: &[Fr<E>]) -> [Vec<Fr<E>>; 3] {
    let (a, b) = rayon::join(
        || spmv(&pk.a_matrix, witness),
        || spmv(&pk.b_matrix, witness),
    );
    let c: Vec<Fr<E>> = a.par_iter().zip(&b).map(|(x, y)| *x * *y).collect();
    [a, b, c]
}

/// `a·b − c` on the odd coset `ω₂ₙ·H` (natural order), from `a, b, c` on
/// `H = ⟨ω₂ₙ²⟩` of size `2^log_n`.
pub fn odd_coset_quotient<E: PairingCurve>(
    log_n: u32,
    omega_2n: Fr<E>,
    [mut a, mut b, mut c]: [Vec<Fr<E>>; 3],
) -> Result<Vec<Fr<E>>, ProveError> {
    let domain = Radix2Domain::cached_with_root(log_n, omega_2n.square())?;
    let coset = (*domain).clone().with_coset(omega_2n)?;
    // Evaluations on H → coefficients → evaluations on g·H (bit-reversed, the order the
    // forward transform produces without a permutation; one permutation at the end).
    for v in [&mut a, &mut b, &mut c] {
        domain.inverse(v, Order::Natural, Order::Natural)?;
        coset.coset_forward(v, Order::Natural, Order::BitReversed)?;
    }
    // Over `a`'s storage: one vector of this size less at the peak.
    a.par_iter_mut()
        .zip(&b)
        .zip(&c)
        .for_each(|((x, y), z)| *x = *x * *y - *z);
    drop((b, c));
    // Natural order for the H query.
    fastzk_poly::bit_reverse_permute(&mut a)?;
    Ok(a)
}
