//! Round 3 on the single-source layer: the quotient where a device proves (ZERA §3.4's
//! Plonk on the GPU: the `4n`-domain NTTs and the point-wise quotient on the device).
//!
//! The same polynomial as [`crate::quotient::quotient_blocks`] — the top block from
//! the polynomials' top coefficients, the other three blocks from the cosets
//! `ω₄ₙʲ·H`, `j = 1, 2, 3` — written as library calls and kernels, so that it runs
//! wherever the context does:
//!
//! * Each blinded polynomial (`a, b, c, z`, of up to `n + 3` coefficients) reduced
//!   modulo `Xⁿ − ω₄ʲ` ([`reduced`]: its values on coset `j` are the reduced
//!   polynomial's) and taken there by a coset NTT; so are `L₁` (every coefficient
//!   `1/n`) and, when there are public inputs, `PI` (interpolated once, on `H`).
//! * The key's values on coset `j` (every fourth of its `4n` evaluations, read on the
//!   host: a key read from a file stays there) and the numerator at each point
//!   ([`numerator`]), divided by `Z_H = ω₄ʲ − 1` and by 4: `t/4` on the coset.
//! * A coset inverse NTT gives `yⱼ = Yⱼ/4` with `Yⱼ = Σₗ ω₄ʲˡ·tₗ`, and [`blocks`] the
//!   blocks `tₗ = t₃ + Σⱼ (ω₄^{−jl} − ω₄^{−3j})·yⱼ` (`quotient.rs` derives it).
//!
//! The three cosets run as concurrent tasks (streams of their own on a device), stage by
//! stage so that each stage's time is its own. Only the three blocks come back. On the
//! CPU the prover keeps `quotient.rs`, which is cheaper there (three cosets' points in
//! one pass over the key, the IFMA lanes); tests run this one on the CPU's context too
//! and compare the two.

use std::time::Instant;

use fastzk_field::Field;
use fastzk_poly::{Order, Subgroup, Transform};
use fastzk_runtime::{kernel, Arg, Context, FieldVec, KernelField, LayerPairing, Sum};
use rayon::prelude::*;

use crate::keys::Extended;
use crate::prover::ProveError;
use crate::quotient::{top_block, Quotient, QuotientTimes, TOP};
use crate::{root_of_unity, Fr, ProvingKey};

/// Key values read per parallel block.
const BLOCK: usize = 1 << 12;

/// Coefficient `i` of `p mod (Xⁿ − s_n)`, `p` of `len ≤ 2n` coefficients: on a coset
/// whose shift's `n`th power is `s_n`, `p` and the reduced polynomial agree.
#[kernel]
fn reduced<F: KernelField>(i: usize, p: &[F], n: usize, len: usize, s_n: F) -> F {
    let hi = if i + n < len { p[i + n] } else { F::ZERO };
    let lo = if i < len { p[i] } else { F::ZERO };
    lo + s_n * hi
}

/// `t/4` at point `m` of coset `j` (`x = shift·ωᵐ`): the numerator
/// `N = e₁ + α·(e₂ − e₃) + α²·(z − 1)·L₁` times `scale = 1/(4·(ω₄ʲ − 1))`, from the
/// wires', `z`'s, `L₁`'s and (when `has_pi` is 1) `PI`'s values there, the key's, and
/// `ωᵐ` (`roots`); `z(xω)` is the next point's `z` (`mask = n − 1`).
#[kernel]
#[allow(clippy::too_many_arguments)]
fn numerator<F: KernelField>(
    m: usize,
    a: &[F],
    b: &[F],
    c: &[F],
    z: &[F],
    q_m: &[F],
    q_l: &[F],
    q_r: &[F],
    q_o: &[F],
    q_c: &[F],
    s1: &[F],
    s2: &[F],
    s3: &[F],
    l1: &[F],
    pi: &[F],
    roots: &[F],
    has_pi: usize,
    mask: usize,
    alpha: F,
    beta: F,
    gamma: F,
    k1: F,
    k2: F,
    beta_shift: F,
    scale: F,
) -> F {
    let av = a[m];
    let bv = b[m];
    let cv = c[m];
    let zv = z[m];
    let zw = z[(m + 1) & mask];
    let p = if has_pi == 1 { pi[m] } else { F::ZERO };
    let e1 = av * (bv * q_m[m] + q_l[m]) + bv * q_r[m] + cv * q_o[m] + q_c[m] + p;
    let bx = beta_shift * roots[m];
    let e2 = (av + bx + gamma) * (bv + k1 * bx + gamma) * (cv + k2 * bx + gamma) * zv;
    let e3 = (av + beta * s1[m] + gamma)
        * (bv + beta * s2[m] + gamma)
        * (cv + beta * s3[m] + gamma)
        * zw;
    scale * (e1 + alpha * (e2 - e3 + alpha * (zv - F::ONE) * l1[m]))
}

/// Coefficient `k` of the blocks `t₀, t₁, t₂` from `yⱼ = Yⱼ/4` of the cosets `j = 1, 2, 3`
/// and the top block `t₃` (`top`, of `top_len` coefficients): with `d = ω₄·(y₁ − y₃)`,
/// `s = y₁ + y₃`, `e = 2y₂`, `tₗ − t₃` is `s + e − d`, `−2d`, `e − s − d`.
#[kernel]
fn blocks<F: KernelField>(
    k: usize,
    y1: &[F],
    y2: &[F],
    y3: &[F],
    top: &[F],
    top_len: usize,
    omega4: F,
) -> [F; 3] {
    let d = omega4 * (y1[k] - y3[k]);
    let s = y1[k] + y3[k];
    let e = y2[k].double();
    let t3 = if k < top_len { top[k] } else { F::ZERO };
    [s + e - d + t3, t3 - d.double(), e - s - d + t3]
}

/// [`crate::quotient::quotient_blocks`] on the layer: the quotient of the blinded
/// polynomials `coefs` (`a, b, c, z`) in `ctx`, the three blocks of `n` coefficients
/// and the top block.
pub(crate) fn quotient_on_layer<E: LayerPairing>(
    ctx: &Context,
    pk: &ProvingKey<E>,
    coefs: [&[Fr<E>]; 4],
    public: &[Fr<E>],
    challenges: [Fr<E>; 3],
    times: &mut QuotientTimes,
) -> Result<Quotient<E>, ProveError> {
    let n = pk.domain_size();
    let power = pk.vk.power;
    let [alpha, beta, gamma] = challenges;
    let omega = root_of_unity::<E>(power);
    let omega4n = root_of_unity::<E>(power + 2);
    let omega4 = root_of_unity::<E>(2);
    let h = Subgroup::with_root(power, omega)?;
    let n_inv = Fr::<E>::from_u64(n as u64).inverse().expect("n < r");
    if let Some(long) = coefs.iter().find(|c| c.len() > 2 * n) {
        return Err(ProveError::Key(format!(
            "a blinded polynomial of {} coefficients on a domain of {n}",
            long.len()
        )));
    }

    let t = Instant::now();
    let top = top_block(pk, coefs, challenges)?;
    let polys: Vec<FieldVec<Fr<E>>> = coefs.iter().map(|c| ctx.vec(c.to_vec())).collect();
    // L₁ = (1/n)·Σᵢ Xⁱ; PI = −Σₖ pₖ·Lₖ, interpolated from its values on H.
    let l1 = ctx.vec(vec![n_inv; n]);
    let pi = if public.is_empty() {
        None
    } else {
        let mut v = vec![Fr::<E>::ZERO; n];
        for (o, p) in v.iter_mut().zip(public) {
            *o = -*p;
        }
        let v = ctx.vec(v);
        Some(
            ctx.task()?
                .ntt_into(h, v, Transform::Inverse, Order::Natural, Order::Natural)?,
        )
    };
    let mut roots = vec![Fr::<E>::ZERO; n];
    fastzk_poly::powers_into(&mut roots, omega);
    let roots = ctx.vec(roots);
    let cosets: Vec<Coset<E>> = (1..4u64)
        .map(|j| -> Result<Coset<E>, ProveError> {
            Ok(Coset {
                j: j as usize,
                shift_n: omega4.pow_u64(j),
                on: h.with_coset(omega4n.pow_u64(j))?,
            })
        })
        .collect::<Result<_, _>>()?;
    // Every polynomial on every coset: a, b, c, z, L₁ (and PI).
    let with_pi: Vec<&FieldVec<Fr<E>>> = polys.iter().chain([&l1]).chain(pi.as_ref()).collect();
    let on_cosets: Vec<Vec<FieldVec<Fr<E>>>> = cosets
        .par_iter()
        .map(|coset| -> Result<_, ProveError> {
            let mut task = ctx.task()?;
            with_pi
                .iter()
                .map(|&p| {
                    let args = [
                        Arg::Vec(p),
                        Arg::Int(n),
                        Arg::Int(p.len()),
                        Arg::Field(coset.shift_n),
                    ];
                    let r = task.map(Reduced, n, &args)?;
                    Ok(task.ntt_into(
                        coset.on,
                        r,
                        Transform::CosetForward,
                        Order::Natural,
                        Order::Natural,
                    )?)
                })
                .collect()
        })
        .collect::<Result<_, _>>()?;
    drop((polys, l1, pi));
    times.ntt_to_cosets += t.elapsed();

    let t = Instant::now();
    let quarters: Vec<FieldVec<Fr<E>>> = cosets
        .par_iter()
        .zip(&on_cosets)
        .map(|(coset, values)| -> Result<_, ProveError> {
            let key = key_on_coset(ctx, pk, coset.j)?;
            let zh = coset.shift_n - Fr::<E>::ONE;
            let scale = (Fr::<E>::from_u64(4) * zh).inverse().expect("j ≠ 0");
            let mut args: Vec<Arg<'_, Fr<E>>> = values[..4].iter().map(Arg::Vec).collect();
            args.extend(key.iter().map(Arg::Vec));
            // Without public inputs the PI slot takes L₁'s values, never read.
            args.extend([
                Arg::Vec(&values[4]),
                Arg::Vec(values.get(5).unwrap_or(&values[4])),
                Arg::Vec(&roots),
                Arg::Int(usize::from(values.len() > 5)),
                Arg::Int(n - 1),
                Arg::Field(alpha),
                Arg::Field(beta),
                Arg::Field(gamma),
                Arg::Field(pk.vk.k1),
                Arg::Field(pk.vk.k2),
                Arg::Field(beta * coset.on.coset_shift()),
                Arg::Field(scale),
            ]);
            Ok(ctx.task()?.map(Numerator, n, &args)?)
        })
        .collect::<Result<_, _>>()?;
    drop((on_cosets, roots));
    times.points += t.elapsed();

    let t = Instant::now();
    let ys: Vec<FieldVec<Fr<E>>> = cosets
        .par_iter()
        .zip(quarters)
        .map(|(coset, v)| -> Result<_, ProveError> {
            Ok(ctx.task()?.ntt_into(
                coset.on,
                v,
                Transform::CosetInverse,
                Order::Natural,
                Order::Natural,
            )?)
        })
        .collect::<Result<_, _>>()?;
    let top_vec = ctx.vec(top.to_vec());
    let args = [
        Arg::Vec(&ys[0]),
        Arg::Vec(&ys[1]),
        Arg::Vec(&ys[2]),
        Arg::Vec(&top_vec),
        Arg::Int(TOP),
        Arg::Field(omega4),
    ];
    let (rows, _) = ctx.task()?.run(Blocks, Sum, n, 3, &args)?;
    let rows: Vec<Vec<Fr<E>>> = rows
        .into_iter()
        .map(|r| {
            // Room for snarkjs' blinding of the blocks.
            let mut v = r.into_vec()?;
            v.reserve(crate::prover::ROOM);
            Ok(v)
        })
        .collect::<Result<_, ProveError>>()?;
    times.ntt_back += t.elapsed();
    let rows: [Vec<Fr<E>>; 3] = rows.try_into().expect("three blocks");
    Ok((rows, top))
}

/// The device programs of the quotient's kernels over `E`'s scalars, at work-groups of
/// `group` threads: to compile them elsewhere (NVRTC in CI).
#[doc(hidden)]
pub fn quotient_programs<E: LayerPairing>(group: usize) -> Vec<(&'static str, String)> {
    use fastzk_runtime::program_source;
    vec![
        ("reduced", program_source::<Fr<E>, Reduced, Sum>(1, group)),
        (
            "numerator",
            program_source::<Fr<E>, Numerator, Sum>(1, group),
        ),
        ("blocks", program_source::<Fr<E>, Blocks, Sum>(3, group)),
    ]
}

/// One coset `ω₄ₙʲ·H` of `H`.
struct Coset<E: LayerPairing> {
    j: usize,
    /// `shiftⁿ = ω₄ʲ` (the shift is `on`'s coset shift, `ω₄ₙʲ`).
    shift_n: Fr<E>,
    on: Subgroup<Fr<E>>,
}

/// The key's `q_M, q_L, q_R, q_O, q_C, σ₁, σ₂, σ₃` on coset `j`, read on the host a block
/// at a time in parallel, as vectors of `ctx`.
fn key_on_coset<E: LayerPairing>(
    ctx: &Context,
    pk: &ProvingKey<E>,
    j: usize,
) -> Result<Vec<FieldVec<Fr<E>>>, ProveError> {
    let n = pk.domain_size();
    let which = (0..5).map(Extended::Q).chain((0..3).map(Extended::Sigma));
    which
        .map(|w| {
            let mut v = vec![Fr::<E>::ZERO; n];
            v.par_chunks_mut(BLOCK)
                .enumerate()
                .try_for_each(|(blk, out)| {
                    pk.extended.read_on_cosets(w, j, blk * BLOCK, &mut [out])
                })?;
            Ok(ctx.vec(v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quotient::{quotient_blocks, QuotientInput};
    use crate::{setup, PlonkCircuit, Powers};
    use fastzk_pairing::{Bls12_381, Bn254};
    use fastzk_r1cs::synth::{synthesize, SynthParams};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// A key of `2^log_n` gates (any satisfiable circuit: the quotient's arithmetic does
    /// not need the polynomials to satisfy it).
    fn key<E: LayerPairing>(log_n: u32, rng: &mut ChaCha20Rng) -> ProvingKey<E> {
        let (r1cs, _) = synthesize::<Fr<E>>(&SynthParams::plonk(log_n), rng).unwrap();
        let circuit = PlonkCircuit::from_r1cs(&r1cs);
        setup(&circuit, &Powers::<E>::random(circuit.log_domain(), rng)).unwrap()
    }

    /// Random values with zeros, ones and −1 among them; all zero when `case` is 0.
    fn poly<F: Field>(len: usize, case: usize, rng: &mut ChaCha20Rng) -> Vec<F> {
        (0..len)
            .map(|i| match (case, (i + case) % 5) {
                (0, _) => F::ZERO,
                (_, 0) => F::ZERO,
                (_, 1) => F::ONE,
                (_, 2) => -F::ONE,
                _ => F::random(&mut *rng),
            })
            .collect()
    }

    /// The layer's quotient (here on the CPU's context; on PoCL through the device
    /// trials' proofs) against `quotient.rs`'s, for blinded polynomials of their lengths
    /// (and shorter), 0 to 9 public inputs (both of `quotient.rs`'s ways of taking `PI`),
    /// domains below and past a block of key reads.
    fn same_quotient<E: LayerPairing>(log_sizes: &[u32]) {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let ctx = Context::cpu();
        for &log_n in log_sizes {
            let pk = key::<E>(log_n, &mut rng);
            let n = pk.domain_size();
            for (case, n_public) in [0usize, 1, 4, 5, 9].into_iter().enumerate() {
                let lens = if case == 4 {
                    [n, n + 1, 3, n + 3]
                } else {
                    [n + 2, n + 2, n + 2, n + 3]
                };
                let coefs: [Vec<Fr<E>>; 4] = lens.map(|len| poly(len, case, &mut rng));
                let public = poly(n_public, case + 1, &mut rng);
                let challenges = [0; 3].map(|_| Fr::<E>::random(&mut rng));
                let c = coefs.each_ref().map(|v| &v[..]);
                // quotient.rs's working vectors, n long (their values are not read).
                let on_h = coefs.clone().map(|mut v| {
                    v.resize(n, Fr::<E>::ZERO);
                    v
                });
                let input = QuotientInput {
                    on_h,
                    coefs: c,
                    public: &public,
                    challenges,
                };
                let want = quotient_blocks(&pk, input, &mut QuotientTimes::default()).unwrap();
                let got = quotient_on_layer(
                    &ctx,
                    &pk,
                    c,
                    &public,
                    challenges,
                    &mut QuotientTimes::default(),
                )
                .unwrap();
                assert_eq!(got.1, want.1, "n = {n}, {n_public} public: the top block");
                for (l, (g, w)) in got.0.iter().zip(&want.0).enumerate() {
                    assert_eq!(g, w, "n = {n}, {n_public} public: block {l}");
                }
            }
            // A polynomial longer than the quotient's degree allows is refused.
            let long = vec![Fr::<E>::ONE; 2 * n + 1];
            let c = [&long[..], &long, &long, &long];
            let e = quotient_on_layer(
                &ctx,
                &pk,
                c,
                &[],
                [Fr::<E>::ONE; 3],
                &mut QuotientTimes::default(),
            );
            assert!(matches!(e, Err(ProveError::Key(_))), "n = {n}");
        }
    }

    #[test]
    fn the_layers_quotient_is_the_cpus_bn254() {
        same_quotient::<Bn254>(&[3, 6, 13]);
    }

    #[test]
    fn the_layers_quotient_is_the_cpus_bls12_381() {
        same_quotient::<Bls12_381>(&[4, 9]);
    }
}
