//! Round 3: the quotient `t(X)`, from three cosets of `H` and its top coefficients.
//!
//! `t = N/(Xⁿ − 1)`, where `N` is the numerator of the blinded polynomials: degree
//! `4n + 5` (the permutation products of three wires and `z`, each blinded one or two
//! degrees past `n`), so `t` has degree `3n + 5` and four blocks of `n` coefficients,
//! `t = Σₗ Xˡⁿ·tₗ`, the last with six. snarkjs evaluates `N` on the whole `4n` subgroup
//! (the four cosets `ω₄ₙʲ·H`); on `H` itself `Xⁿ − 1` vanishes, so it splits the
//! numerator in two and divides one part in coefficient form. Here:
//!
//! * The top block needs no evaluation: `t[3n + i] = N[4n + i]`, and only the two
//!   permutation products reach degree `4n`, so those six coefficients are the top of
//!   two products of four polynomials, from their own top six coefficients
//!   ([`top_block`]).
//! * The other three blocks come from the cosets `j = 1, 2, 3`, where `Z_H = ω₄ʲ − 1` is
//!   a non-zero constant and `t = N/Z_H` point by point (the numerator once per point).
//!   On coset `j` the size-`n` inverse NTT of `t`'s values gives `s^k·Yⱼ[k]` at `k`, with
//!   `s = ω₄ₙʲ` and `Yⱼ = Σₗ ω₄ʲˡ·tₗ`. The 4-point inverse DFT would need `Y₀` too (`t`
//!   on `H`); with `t₃` known it is not needed: `tₗ = t₃ + ¼·Σ_{j=1..3} (ω₄^{−jl} −
//!   ω₄^{−3j})·Yⱼ` ([`blocks_from_cosets`]).
//!
//! So round 3 evaluates `3n` points instead of `4n`, runs three inverse NTTs instead of
//! seven, and computes the numerator once per point. The three cosets' points are
//! computed in one pass, so the key's `4n` evaluations (which interleave the cosets) are
//! read once, not once per coset. The division is exact because the
//! gates ([`check_gates`], before anything is committed) and the copy constraints (the
//! grand product, round 2) hold on `H`; the proof is verified before it is returned.

use std::time::{Duration, Instant};

use fastzk_field::{batch_inverse, Field};
use fastzk_formats::FormatError;
use fastzk_poly::{Order, Radix2Domain, TwoAdicTransform};
use rayon::prelude::*;

use crate::keys::Extended;
use crate::prover::ProveError;
use crate::{root_of_unity, Fr, PairingCurve, ProvingKey};

/// Points per parallel block.
const BLOCK: usize = 1 << 10;

/// Public inputs up to this many are folded into the quotient point by point (one more
/// inverse per point each); more are interpolated once (one NTT, then one per coset).
const PI_DIRECT_MAX: usize = 4;

/// Coefficients of the quotient's top block (`3n + 5` is its degree).
pub(crate) const TOP: usize = 6;

/// What the round is given: the wires and `z` on `H` (the working vectors it reuses)
/// and the blinded polynomials' coefficients.
pub(crate) struct QuotientInput<'a, E: PairingCurve> {
    pub on_h: [Vec<Fr<E>>; 4],
    pub coefs: [&'a [Fr<E>]; 4],
    pub public: &'a [Fr<E>],
    pub challenges: [Fr<E>; 3],
}

/// Where round 3's time went.
#[derive(Default)]
pub(crate) struct QuotientTimes {
    pub ntt_to_cosets: Duration,
    pub points: Duration,
    pub ntt_back: Duration,
}

/// Three blocks of `n` coefficients and the top block.
pub(crate) type Quotient<E> = ([Vec<Fr<E>>; 3], [Fr<E>; TOP]);

/// The quotient's coefficients as three blocks of `n` and the top block (`t = Σₗ Xˡⁿ·tₗ`,
/// `t₃` of [`TOP`] coefficients), before snarkjs' `b₁₀, b₁₁` split.
pub(crate) fn quotient_blocks<E: PairingCurve>(
    pk: &ProvingKey<E>,
    input: QuotientInput<'_, E>,
    times: &mut QuotientTimes,
) -> Result<Quotient<E>, ProveError> {
    let n = pk.domain_size();
    let power = pk.vk.power;
    let omega = root_of_unity::<E>(power);
    let omega4n = root_of_unity::<E>(power + 2);
    let omega4 = root_of_unity::<E>(2);
    let dom_n = Radix2Domain::cached_with_root(power, omega)?;
    let QuotientInput {
        on_h,
        coefs,
        public,
        challenges,
    } = input;
    let t = Instant::now();
    let top = top_block(pk, coefs, challenges)?;
    times.points += t.elapsed();
    let ctx = PointContext::new(pk, public, challenges);
    let pi_coefs = if public.len() > PI_DIRECT_MAX {
        let t = Instant::now();
        let mut c = vec![Fr::<E>::ZERO; n];
        for (p, x) in c.iter_mut().zip(public) {
            *p = -*x;
        }
        dom_n.inverse(&mut c, Order::Natural, Order::Natural)?;
        times.ntt_to_cosets += t.elapsed();
        Some(c)
    } else {
        None
    };

    // Cosets per pass: all three, so the key's 4n evaluations (which interleave them) are
    // read once — or, for a key opened lean (a memory budget), one at a time: four
    // working vectors instead of twelve. A pass holds a, b, c and α·z on its cosets (z is
    // taken times α there: the numerator's α, folded into its scaling); each coset's
    // first vector receives the numerator and becomes a block of t, so it has room for
    // snarkjs' blinding. The values on H and a pass's other vectors are reused.
    let per_pass = if pk.ptau_in_file() { 1 } else { 3 };
    let fresh = |room: usize| {
        let mut v = Vec::with_capacity(n + room);
        v.resize(n, Fr::<E>::ZERO);
        v
    };
    let mut spare = Vec::from(on_h);
    let take = |spare: &mut Vec<Vec<Fr<E>>>| spare.pop().unwrap_or_else(|| fresh(0));
    // The coset's powers shiftᵏ, shared by the polynomials scaled on it (the lanes, where
    // they run, step their own powers).
    let mut powers = if crate::quotient_lanes::lanes_for::<Fr<E>>() {
        Vec::new()
    } else {
        vec![Fr::<E>::ZERO; n]
    };
    let factors = [Fr::<E>::ONE, Fr::<E>::ONE, Fr::<E>::ONE, ctx.alpha];
    let mut rows = Vec::with_capacity(3);
    for first in (1..4).step_by(per_pass) {
        let t = Instant::now();
        let mut work: Vec<[Vec<Fr<E>>; 4]> = (0..per_pass)
            .map(|_| {
                let room = fresh(crate::prover::ROOM);
                [room, take(&mut spare), take(&mut spare), take(&mut spare)]
            })
            .collect();
        let mut pi_work: Option<Vec<Vec<Fr<E>>>> = pi_coefs
            .as_ref()
            .map(|_| (0..per_pass).map(|_| take(&mut spare)).collect());
        for (i, w) in work.iter_mut().enumerate() {
            let j = (first + i) as u64;
            let shift = omega4n.pow_u64(j);
            let shift_n = omega4.pow_u64(j);
            if !powers.is_empty() {
                fastzk_poly::powers_into(&mut powers, shift);
            }
            for ((w, c), factor) in w.iter_mut().zip(coefs).zip(factors) {
                values_on_coset(c, w, factor, shift, shift_n, &powers, &dom_n)?;
            }
            if let (Some(c), Some(pw)) = (&pi_coefs, &mut pi_work) {
                values_on_coset(c, &mut pw[i], Fr::<E>::ONE, shift, shift_n, &powers, &dom_n)?;
            }
        }
        times.ntt_to_cosets += t.elapsed();
        let t = Instant::now();
        ctx.points_on_cosets(first, &mut work, pi_work.as_deref())?;
        times.points += t.elapsed();
        spare.extend(pi_work.into_iter().flatten());
        for [num, b, c, z] in work {
            rows.push(num);
            spare.extend([b, c, z]);
        }
    }
    drop((powers, spare));
    let mut rows: [Vec<Fr<E>>; 3] = rows.try_into().expect("three cosets");

    // Back to coefficients: the inverse NTT runs as a forward NTT with ω⁻¹, unscaled (its
    // 1/n goes with the cosets' weights).
    let t = Instant::now();
    let dom_back = Radix2Domain::cached_with_root(power, omega.inverse().expect("ω ≠ 0"))?;
    for row in &mut rows {
        dom_back.forward(row, Order::Natural, Order::Natural)?;
    }
    blocks_from_cosets(&mut rows, omega4n, omega4);
    times.ntt_back += t.elapsed();
    for (k, v) in top.iter().enumerate() {
        for o in &mut rows {
            o[k] += *v;
        }
    }
    Ok((rows, top))
}

/// The blocks `t₀, t₁, t₂` less `t₃`, in place, from the unscaled inverse NTTs of the
/// numerator on the cosets `j = 1, 2, 3`: the numerator is `t·Z_H` and `Z_H = ω₄ʲ − 1`
/// there, so row `j − 1` holds `n·(ω₄ʲ − 1)·sⱼᵏ·Yⱼ[k]` at `k`, with `sⱼ = ω₄ₙʲ`. Times
/// `cⱼ·sⱼ⁻ᵏ`, `cⱼ = 1/(4n·(ω₄ʲ − 1))`, it is `yⱼ = Yⱼ/4`, and
/// `tₗ − t₃ = Σⱼ (ω₄^{−jl} − ω₄^{−3j})·yⱼ`; ω₄'s powers are `±1, ±ω₄`, so with
/// `d = ω₄·(y₁ − y₃)`, `s = y₁ + y₃`, `e = 2y₂`: `t₀ = s + e − d`, `t₁ = −2d`,
/// `t₂ = e − s − d` — one product a point besides the scaling.
fn blocks_from_cosets<F: Field>(rows: &mut [Vec<F>; 3], omega4n: F, omega4: F) {
    let n = rows[0].len();
    let quarter_n = F::from_u64(4 * n as u64).inverse().expect("4n < r");
    // yⱼ[k] = rowⱼ[k]·cⱼ·sⱼ⁻ᵏ.
    let scale: [(F, F); 3] = core::array::from_fn(|i| {
        let j = i as u64 + 1;
        let c = quarter_n * (omega4.pow_u64(j) - F::ONE).inverse().expect("j ≠ 0");
        (c, omega4n.pow_u64(j).inverse().expect("a root of unity"))
    });
    let [r1, r2, r3] = rows;
    (
        r1.par_chunks_mut(BLOCK),
        r2.par_chunks_mut(BLOCK),
        r3.par_chunks_mut(BLOCK),
    )
        .into_par_iter()
        .enumerate()
        .for_each(|(blk, (y1, y2, y3))| {
            let start = blk * BLOCK;
            for (y, (c, step)) in [&mut *y1, &mut *y2, &mut *y3].into_iter().zip(scale) {
                let u0 = c * step.pow_u64(start as u64);
                let done = crate::quotient_lanes::scale_by_powers_in_place(y, u0, step);
                let mut u = u0 * step.pow_u64(done as u64);
                for v in &mut y[done..] {
                    *v *= u;
                    u *= step;
                }
            }
            for ((v1, v2), v3) in y1.iter_mut().zip(y2.iter_mut()).zip(y3.iter_mut()) {
                let d = omega4 * (*v1 - *v3);
                let s = *v1 + *v3;
                let e = v2.double();
                *v1 = s + e - d;
                *v2 = -d.double();
                *v3 = e - s - d;
            }
        });
}

/// The quotient's top block `t[3n + i]`, `i <` [`TOP`], from the top coefficients of the
/// blinded polynomials and of `σ`.
///
/// `t = N/(Xⁿ − 1)` gives `t[k − n] = N[k] + t[k]`, and `t[k] = 0` from `4n` on, so
/// `t[3n + i] = N[4n + i]`. The gate terms reach degree `3n + 1`, the `L₁` term `2n + 1`;
/// only `α·(e₂ − e₃)` reaches `4n`, and the top coefficients of a product need only the
/// top coefficients of its factors.
pub(crate) fn top_block<E: PairingCurve>(
    pk: &ProvingKey<E>,
    [a, b, c, z]: [&[Fr<E>]; 4],
    [alpha, beta, gamma]: [Fr<E>; 3],
) -> Result<[Fr<E>; TOP], ProveError> {
    let n = pk.domain_size();
    let lo = n - TOP; // n ≥ 8 (the key's shape)
    let mut sigma = [[Fr::<E>::ZERO; TOP]; 3];
    for (k, s) in sigma.iter_mut().enumerate() {
        pk.read_coefficients(Extended::Sigma(k), lo, s)?;
    }
    Ok(top_of_quotient(
        n,
        [a, b, c, z],
        &sigma,
        [pk.vk.k1, pk.vk.k2],
        root_of_unity::<E>(pk.vk.power),
        [alpha, beta, gamma],
    ))
}

/// [`top_block`]'s arithmetic: `sigma[k]` holds `σₖ`'s coefficients `n − TOP .. n`.
pub(crate) fn top_of_quotient<F: Field>(
    n: usize,
    [a, b, c, z]: [&[F]; 4],
    sigma: &[[F; TOP]; 3],
    [k1, k2]: [F; 2],
    omega: F,
    [alpha, beta, gamma]: [F; 3],
) -> [F; TOP] {
    let at = |p: &[F], deg: usize| p.get(deg).copied().unwrap_or(F::ZERO);
    let sigma_at = |k: usize, deg: usize| {
        deg.checked_sub(n - TOP)
            .and_then(|i| sigma[k].get(i))
            .copied()
            .unwrap_or(F::ZERO)
    };
    let constant = |deg: usize, v: F| if deg == 0 { v } else { F::ZERO };
    let linear = |deg: usize, v: F| if deg == 1 { v } else { F::ZERO };
    // A factor's top coefficients from its formal degree down: r[d] at degree top − d.
    let top = |deg_top: usize, coef: &dyn Fn(usize) -> F| -> [F; TOP] {
        core::array::from_fn(|d| deg_top.checked_sub(d).map_or(F::ZERO, coef))
    };
    let wires = [a, b, c];
    let shifts = [beta, beta * k1, beta * k2];
    // e₂ = Π(wire + β·kₖ·X + γ)·z(X); e₃ = Π(wire + β·σₖ + γ)·z(ωX).
    let e2 = [
        top(n + 1, &|d| {
            at(a, d) + linear(d, shifts[0]) + constant(d, gamma)
        }),
        top(n + 1, &|d| {
            at(b, d) + linear(d, shifts[1]) + constant(d, gamma)
        }),
        top(n + 1, &|d| {
            at(c, d) + linear(d, shifts[2]) + constant(d, gamma)
        }),
        top(n + 2, &|d| at(z, d)),
    ];
    let e3: [[F; TOP]; 4] = core::array::from_fn(|k| {
        if k < 3 {
            top(n + 1, &|d| {
                at(wires[k], d) + beta * sigma_at(k, d) + constant(d, gamma)
            })
        } else {
            top(n + 2, &|d| at(z, d) * omega.pow_u64(d as u64))
        }
    });
    // Both products have formal degree 3(n + 1) + n + 2 = 4n + 5: r[d] is N's 4n + 5 − d.
    let (p2, p3) = (product_top(&e2), product_top(&e3));
    core::array::from_fn(|i| alpha * (p2[TOP - 1 - i] - p3[TOP - 1 - i]))
}

/// The top coefficients of a product from its factors' (each listed from its formal
/// degree down): a convolution truncated to [`TOP`] terms.
fn product_top<F: Field>(factors: &[[F; TOP]]) -> [F; TOP] {
    let mut acc = [F::ZERO; TOP];
    acc[0] = F::ONE;
    for f in factors {
        acc = core::array::from_fn(|d| (0..=d).fold(F::ZERO, |s, i| s + acc[i] * f[d - i]));
    }
    acc
}

/// `factor·p` (`p` of any length up to `2n`) on the coset `shift·H` into `out`: reduced
/// modulo `Xⁿ − shiftⁿ`, scaled by `shiftᵏ` (`powers`, or stepped on the lanes when
/// `powers` is empty), one size-`n` NTT.
fn values_on_coset<F: fastzk_field::NttField>(
    p: &[F],
    out: &mut [F],
    factor: F,
    shift: F,
    shift_n: F,
    powers: &[F],
    dom_n: &Radix2Domain<F>,
) -> Result<(), fastzk_poly::PolyError> {
    let n = out.len();
    let scaled = !factor.is_one();
    out.par_chunks_mut(BLOCK).enumerate().for_each(|(blk, o)| {
        let start = blk * BLOCK;
        let have = p.len().saturating_sub(start).min(o.len());
        // (A polynomial shorter than a block's start has nothing in it.)
        let src = p.get(start..start + have).unwrap_or(&[]);
        let hi = p.get(n + start..).unwrap_or(&[]);
        if powers.is_empty() {
            // On the lanes; a block's last `have mod 8` and the few coefficients past `n`
            // (folded in with shiftⁿ) here.
            let sk0 = factor * shift.pow_u64(start as u64);
            let done = crate::quotient_lanes::scaled_by_powers(&mut o[..have], src, sk0, shift);
            let mut sk = sk0 * shift.pow_u64(done as u64);
            for (o, v) in o[done..have].iter_mut().zip(&src[done..]) {
                *o = *v * sk;
                sk *= shift;
            }
            o[have..].iter_mut().for_each(|o| *o = F::ZERO);
            let mut sk = sk0;
            for (o, v) in o.iter_mut().zip(hi) {
                *o += shift_n * *v * sk;
                sk *= shift;
            }
            return;
        }
        let pw = &powers[start..start + o.len()];
        for ((o, v), w) in o.iter_mut().zip(src).zip(pw) {
            *o = *v * *w;
        }
        o[have..].iter_mut().for_each(|o| *o = F::ZERO);
        for ((o, v), w) in o.iter_mut().zip(hi).zip(pw) {
            *o += shift_n * *v * *w;
        }
        if scaled {
            o.iter_mut().for_each(|o| *o *= factor);
        }
    });
    dom_n.forward(out, Order::Natural, Order::Natural)
}

/// `k·x` for a key constant `k` (the cosets' `k₁, k₂`): additions when `k` is 2 or 3, as
/// snarkjs' setup picks them, else a product.
#[derive(Clone, Copy)]
pub(crate) enum KeyFactor<F> {
    Two,
    Three,
    Other(F),
}

impl<F: Field> KeyFactor<F> {
    pub(crate) fn of(k: F) -> Self {
        if k == F::from_u64(2) {
            KeyFactor::Two
        } else if k == F::from_u64(3) {
            KeyFactor::Three
        } else {
            KeyFactor::Other(k)
        }
    }

    #[inline(always)]
    pub(crate) fn times(self, x: F) -> F {
        match self {
            KeyFactor::Two => x.double(),
            KeyFactor::Three => x.double() + x,
            KeyFactor::Other(k) => k * x,
        }
    }
}

/// The gate identity `q_M·a·b + q_L·a + q_R·b + q_O·c + q_C + PI = 0` at every point of
/// `H` (`abc` the wires there, unblinded), before anything is committed: a witness that
/// breaks a gate is refused, naming the first such gate and its wires.
pub(crate) fn check_gates<E: PairingCurve>(
    pk: &ProvingKey<E>,
    abc: &[Vec<Fr<E>>; 3],
    public: &[Fr<E>],
) -> Result<(), ProveError> {
    let n = pk.domain_size();
    let broken: Vec<Option<usize>> = (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .map(|blk| -> Result<Option<usize>, FormatError> {
            let m0 = blk * BLOCK;
            let len = BLOCK.min(n - m0);
            let mut q = [0; 5].map(|_| vec![Fr::<E>::ZERO; len]);
            for (k, v) in q.iter_mut().enumerate() {
                pk.extended.read_on_h(Extended::Q(k), m0, v)?;
            }
            let [qm, ql, qr, qo, qc] = &q;
            let [a, b, c] = abc.each_ref().map(|v| &v[m0..m0 + len]);
            Ok((0..len)
                .find(|&m| {
                    let pi = public.get(m0 + m).map_or(Fr::<E>::ZERO, |v| -*v);
                    let gate = a[m] * b[m] * qm[m] + a[m] * ql[m] + b[m] * qr[m] + c[m] * qo[m];
                    !(gate + qc[m] + pi).is_zero()
                })
                .map(|m| m0 + m))
        })
        .collect::<Result<_, _>>()?;
    match broken.into_iter().flatten().next() {
        None => Ok(()),
        Some(gate) => {
            let wire = |k: usize| pk.maps[k].get(gate).copied().unwrap_or(0);
            Err(ProveError::GateUnsatisfied {
                gate,
                gates: pk.n_constraints,
                n_public: public.len(),
                a: wire(0),
                b: wire(1),
                c: wire(2),
            })
        }
    }
}

/// The constants every point of the quotient uses.
struct PointContext<'a, E: PairingCurve> {
    pk: &'a ProvingKey<E>,
    public: &'a [Fr<E>],
    alpha: Fr<E>,
    beta: Fr<E>,
    gamma: Fr<E>,
    omega: Fr<E>,
    omega4n: Fr<E>,
    n_inv: Fr<E>,
}

impl<'a, E: PairingCurve> PointContext<'a, E> {
    fn new(pk: &'a ProvingKey<E>, public: &'a [Fr<E>], [alpha, beta, gamma]: [Fr<E>; 3]) -> Self {
        let n = pk.domain_size();
        Self {
            pk,
            public,
            alpha,
            beta,
            gamma,
            omega: root_of_unity::<E>(pk.vk.power),
            omega4n: root_of_unity::<E>(pk.vk.power + 2),
            n_inv: Fr::<E>::from_u64(n as u64).inverse().expect("n < r"),
        }
    }

    /// The points of the consecutive cosets `j = first, first + 1, …` in one pass over the
    /// key's evaluations (each span of them read once for all these cosets):
    /// `work[j − first]` holds the blinded `a, b, c` and `α·z` on coset `j` and receives
    /// the numerator in its first vector; `pi[j − first]` holds `PI` there when it was
    /// interpolated.
    fn points_on_cosets(
        &self,
        first: usize,
        work: &mut [[Vec<Fr<E>>; 4]],
        pi: Option<&[Vec<Fr<E>>]>,
    ) -> Result<(), ProveError> {
        let n = self.pk.domain_size();
        let beta = self.beta;
        // The roots ωᵏ each point needs 1/(x − ωᵏ) for: L₁'s, and the public inputs'. The
        // inversion takes βx − βωᵏ (βx is the point's first factor anyway), so each
        // inverse carries 1/β, folded into the constants that use it.
        let n_public = self.public.len();
        let n_roots = if pi.is_some() { 1 } else { n_public.max(1) };
        let roots: Vec<Fr<E>> = (0..n_roots)
            .map(|k| beta * self.omega.pow_u64(k as u64))
            .collect();
        let cosets: Vec<Coset<Fr<E>>> = (0..work.len())
            .map(|i| {
                let j = (first + i) as u64;
                // Z_H on coset j: shiftⁿ − 1 = ω₄ʲ − 1.
                let zh = root_of_unity::<E>(2).pow_u64(j) - Fr::<E>::ONE;
                let zh_over_n = zh * self.n_inv;
                Coset {
                    shift: self.omega4n.pow_u64(j),
                    // PI(x) = −(Z_H/n)·Σₖ pₖωᵏ/(x − ωᵏ).
                    pub_roots: match pi {
                        Some(_) => Vec::new(),
                        None => self
                            .public
                            .iter()
                            .zip(&roots)
                            .map(|(p, r)| -(zh_over_n * *p * *r))
                            .collect(),
                    },
                    consts: OffH {
                        alpha: self.alpha,
                        beta,
                        gamma: self.gamma,
                        k1: KeyFactor::of(self.pk.vk.k1),
                        k2: KeyFactor::of(self.pk.vk.k2),
                        omega: self.omega,
                        // α²·L₁(x)·(z − 1) = α·(Z_H/n)/(x − 1)·(αz − α).
                        l1c: zh_over_n * self.alpha * beta,
                    },
                }
            })
            .collect();
        // Each block of points, on every coset of the pass.
        let (nums, rest): (Vec<_>, Vec<_>) = work
            .iter_mut()
            .map(|[a, b, c, z]| (a.chunks_mut(BLOCK), [&*b, &*c, &*z]))
            .unzip();
        let mut nums = nums;
        let blocks: Vec<Vec<&mut [Fr<E>]>> = (0..n.div_ceil(BLOCK))
            .map(|_| nums.iter_mut().filter_map(|c| c.next()).collect())
            .collect();
        blocks
            .into_par_iter()
            .enumerate()
            .try_for_each(|(blk, outs)| -> Result<(), ProveError> {
                let m0 = blk * BLOCK;
                let len = outs[0].len();
                // Each polynomial's span of the key, once, into its cosets' rows.
                let read = |which: Extended| -> Result<Vec<Vec<Fr<E>>>, FormatError> {
                    let mut v: Vec<Vec<Fr<E>>> =
                        outs.iter().map(|_| vec![Fr::<E>::ZERO; len]).collect();
                    let mut rows: Vec<&mut [Fr<E>]> = v.iter_mut().map(|r| &mut r[..]).collect();
                    self.pk
                        .extended
                        .read_on_cosets(which, first, m0, &mut rows)?;
                    Ok(v)
                };
                let q: Vec<Vec<Vec<Fr<E>>>> = (0..5)
                    .map(|k| read(Extended::Q(k)))
                    .collect::<Result<_, _>>()?;
                let s: Vec<Vec<Vec<Fr<E>>>> = (0..3)
                    .map(|k| read(Extended::Sigma(k)))
                    .collect::<Result<_, _>>()?;
                for (i, oa) in outs.into_iter().enumerate() {
                    let [wb, wc, wz] = rest[i];
                    let coset = &cosets[i];
                    let x0 = coset.shift * self.omega.pow_u64(m0 as u64);
                    // z at xω: the next point's z (the last block wraps around).
                    let zw: Vec<Fr<E>> = (m0 + 1..m0 + len + 1).map(|i| wz[i % n]).collect();
                    // βx for every point, and 1/(βx − βωᵏ) for every point and root in one
                    // inversion.
                    let mut bx = Vec::with_capacity(len);
                    let mut inv = Vec::with_capacity(len * n_roots);
                    let mut v = beta * x0;
                    for _ in 0..len {
                        bx.push(v);
                        inv.extend(roots.iter().map(|r| v - *r));
                        v *= self.omega;
                    }
                    batch_inverse(&mut inv);
                    let pi_x: Vec<Fr<E>> = match pi {
                        Some(v) => v[i][m0..m0 + len].to_vec(),
                        None if n_public == 0 => Vec::new(),
                        None => inv
                            .chunks_exact(n_roots)
                            .map(|row| {
                                coset
                                    .pub_roots
                                    .iter()
                                    .zip(row)
                                    .fold(Fr::<E>::ZERO, |acc, (a, r)| acc + *a * *r)
                            })
                            .collect(),
                    };
                    let inv0: Vec<Fr<E>> = if n_roots == 1 {
                        inv
                    } else {
                        inv.iter().step_by(n_roots).copied().collect()
                    };
                    let block = OffHBlock {
                        q: core::array::from_fn(|k| &q[k][i][..]),
                        s: core::array::from_fn(|k| &s[k][i][..]),
                        b: &wb[m0..m0 + len],
                        c: &wc[m0..m0 + len],
                        z: &wz[m0..m0 + len],
                        zw: &zw,
                        bx: &bx,
                        inv0: &inv0,
                        pi: &pi_x,
                        x0,
                    };
                    let consts = &coset.consts;
                    let done = crate::quotient_lanes::off_h_points(consts, &block, oa);
                    off_h_points(consts, &block.from(done, self.omega), &mut oa[done..]);
                }
                Ok(())
            })
    }
}

/// One coset's shift and constants.
struct Coset<F> {
    shift: F,
    /// `−(Z_H/n)·pₖ·βωᵏ` for the public inputs folded in point by point.
    pub_roots: Vec<F>,
    consts: OffH<F>,
}

/// The constants of the points off `H` on one coset.
pub(crate) struct OffH<F> {
    pub alpha: F,
    pub beta: F,
    pub gamma: F,
    pub k1: KeyFactor<F>,
    pub k2: KeyFactor<F>,
    pub omega: F,
    /// `Z_H·α·β/n`: the `L₁` term is `l1c·inv0·(αz − α)`.
    pub l1c: F,
}

/// One block of consecutive points off `H`: the key's and the wires' values there (`a`
/// is the output row, read and overwritten).
pub(crate) struct OffHBlock<'a, F> {
    /// `q_M, q_L, q_R, q_O, q_C`.
    pub q: [&'a [F]; 5],
    pub s: [&'a [F]; 3],
    pub b: &'a [F],
    pub c: &'a [F],
    pub z: &'a [F],
    /// `z` at `xω`.
    pub zw: &'a [F],
    /// `βx` (the scalar loop's; the lanes step `x` from `x0`).
    pub bx: &'a [F],
    /// `1/(βx − β) = 1/(β(x − 1))`.
    pub inv0: &'a [F],
    /// `PI(x)`, or empty when there are no public inputs.
    pub pi: &'a [F],
    /// The block's first point.
    pub x0: F,
}

impl<F: Field> OffHBlock<'_, F> {
    /// The points from `start` on.
    pub(crate) fn from(&self, start: usize, omega: F) -> Self {
        OffHBlock {
            q: self.q.map(|v| &v[start..]),
            s: self.s.map(|v| &v[start..]),
            b: &self.b[start..],
            c: &self.c[start..],
            z: &self.z[start..],
            zw: &self.zw[start..],
            bx: self.bx.get(start..).unwrap_or(&[]),
            inv0: self.inv0.get(start..).unwrap_or(&[]),
            pi: self.pi.get(start..).unwrap_or(&[]),
            x0: self.x0 * omega.pow_u64(start as u64),
        }
    }
}

/// The numerator `N` at the points of one block off `H`, one at a time: `oa` holds the
/// blinded `a` and receives `N` (the division by `Z_H`, a constant on the coset, is left
/// to the weights); `z` and `z(xω)` come times `α`, which is how the permutation terms
/// get their `α` without a product. The lanes version (`quotient_lanes`) must agree.
pub(crate) fn off_h_points<F: Field>(k: &OffH<F>, blk: &OffHBlock<'_, F>, oa: &mut [F]) {
    for m in 0..oa.len() {
        let [qm, ql, qr, qo, qc] = blk.q.map(|v| v[m]);
        let pi_x = blk.pi.get(m).copied().unwrap_or(F::ZERO);
        let (a, b, c, z, zw) = (oa[m], blk.b[m], blk.c[m], blk.z[m], blk.zw[m]);
        let e1 = a * (b * qm + ql) + b * qr + c * qo + pi_x + qc;
        let bx = blk.bx[m];
        let e2 = (a + bx + k.gamma)
            * (b + k.k1.times(bx) + k.gamma)
            * ((c + k.k2.times(bx) + k.gamma) * z);
        let [s1, s2, s3] = blk.s.map(|v| k.beta * v[m] + k.gamma);
        let e3 = (a + s1) * (b + s2) * ((c + s3) * zw);
        oa[m] = e1 + (e2 - e3) + (z - k.alpha) * (k.l1c * blk.inv0[m]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastzk_pairing::Bn254;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    type F = Fr<Bn254>;

    fn mul_poly(p: &[F], q: &[F]) -> Vec<F> {
        let mut out = vec![F::ZERO; p.len() + q.len() - 1];
        for (i, x) in p.iter().enumerate() {
            for (j, y) in q.iter().enumerate() {
                out[i + j] += *x * *y;
            }
        }
        out
    }

    fn add_poly(p: &[F], q: &[F]) -> Vec<F> {
        (0..p.len().max(q.len()))
            .map(|i| p.get(i).copied().unwrap_or(F::ZERO) + q.get(i).copied().unwrap_or(F::ZERO))
            .collect()
    }

    /// The top block against the plain products: `α·(e₂ − e₃)` expanded in full, its
    /// coefficients `4n .. 4n + 6`; random polynomials of the blinded lengths, with edge
    /// values (zero, one, −1) among them and a zero leading coefficient once.
    #[test]
    fn the_top_block_is_the_top_of_the_expanded_products() {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        for (case, n) in [8usize, 16, 32, 8].into_iter().enumerate() {
            let mut poly = |len: usize| -> Vec<F> {
                (0..len)
                    .map(|i| match (i + case) % 7 {
                        0 => F::ZERO,
                        1 => F::ONE,
                        2 => -F::ONE,
                        _ => F::random(&mut rng),
                    })
                    .collect()
            };
            let (a, b, mut c, z) = (poly(n + 2), poly(n + 2), poly(n + 2), poly(n + 3));
            if case == 3 {
                c[n + 1] = F::ZERO;
            }
            let sigma_full = [poly(n), poly(n), poly(n)];
            let [alpha, beta, gamma, k1, k2, omega] = [0; 6].map(|_| F::random(&mut rng));
            let x = |c0: F, c1: F| vec![c0, c1];
            let f = [
                add_poly(&a, &x(gamma, beta)),
                add_poly(&b, &x(gamma, beta * k1)),
                add_poly(&c, &x(gamma, beta * k2)),
            ];
            let g: Vec<Vec<F>> = [&a, &b, &c]
                .iter()
                .zip(&sigma_full)
                .map(|(w, s)| {
                    let bs: Vec<F> = s.iter().map(|v| beta * *v).collect();
                    add_poly(&add_poly(w, &bs), &[gamma])
                })
                .collect();
            let zw: Vec<F> = z
                .iter()
                .enumerate()
                .map(|(i, v)| *v * omega.pow_u64(i as u64))
                .collect();
            let e2 = mul_poly(&mul_poly(&mul_poly(&f[0], &f[1]), &f[2]), &z);
            let e3 = mul_poly(&mul_poly(&mul_poly(&g[0], &g[1]), &g[2]), &zw);
            assert_eq!(e2.len(), 4 * n + 6);
            let want: Vec<F> = (0..TOP)
                .map(|i| alpha * (e2[4 * n + i] - e3[4 * n + i]))
                .collect();
            let sigma: [[F; TOP]; 3] =
                core::array::from_fn(|k| core::array::from_fn(|i| sigma_full[k][n - TOP + i]));
            let got = top_of_quotient(
                n,
                [&a, &b, &c, &z],
                &sigma,
                [k1, k2],
                omega,
                [alpha, beta, gamma],
            );
            assert_eq!(got[..], want[..], "n = {n}, case {case}");
        }
    }
}
