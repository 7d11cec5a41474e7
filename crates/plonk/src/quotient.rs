//! Round 3: the quotient `t(X)`, one coset of `H` at a time.
//!
//! snarkjs evaluates everything on the `4n` subgroup, the four cosets `ω₄ₙʲ·H`, and
//! splits the quotient in two parts: the numerator of the unblinded polynomials `N`
//! (which vanishes on `H` and is divided by `Xⁿ − 1` in coefficient form) and the
//! blinding terms already divided, `tz` (`Z_H` is the constant `ω₄ʲ − 1` on coset `j`).
//! Holding `a, b, c, z` on all four cosets at once costs `16n` field elements; here each
//! coset is evaluated, used and brought back to coefficients before the next, so the
//! round holds four working vectors and the four result blocks:
//!
//! * On coset `j` the size-`n` inverse NTT of any polynomial `P = Σₗ Xˡⁿ·Pₗ` (degree
//!   `< 4n`) gives `s^k·Σₗ ω₄ʲˡ·Pₗ[k]` at `k`, with `s = ω₄ₙʲ`; so
//!   `Pₗ = ¼·Σⱼ ω₄⁻ʲˡ·Yⱼ` with `Yⱼ[k]` that value times `s⁻ᵏ`, accumulated coset by coset.
//! * Dividing by `Xⁿ − 1` is linear on the blocks (`q₀ = −P₀`, `qₗ = qₗ₋₁ − Pₗ`), so
//!   the numerator's blocks go straight into the quotient's with the weights
//!   `−¼·Σ_{l'≤l} ω₄^{−jl'}`. `N` is zero on `H` (coset 0): that is checked point by
//!   point — a gate that fails is named — and coset 0 contributes `tz` only.

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

/// What the round is given: the wires and `z` on `H` (the working vectors it reuses)
/// and the blinded polynomials' coefficients.
pub(crate) struct QuotientInput<'a, E: PairingCurve> {
    pub on_h: [Vec<Fr<E>>; 4],
    pub coefs: [&'a [Fr<E>]; 4],
    pub public: &'a [Fr<E>],
    /// The blinding scalars `b₁ … b₁₁` at indices 1 to 11.
    pub blinding: &'a [Fr<E>],
    pub challenges: [Fr<E>; 3],
}

/// Where round 3's time went.
#[derive(Default)]
pub(crate) struct QuotientTimes {
    pub ntt_to_cosets: Duration,
    pub points: Duration,
    pub ntt_back: Duration,
}

/// The quotient's coefficients as four blocks of `n` (`t = Σₗ Xˡⁿ·tₗ`; only the first six
/// of the last block may be non-zero), with the blinding terms but before snarkjs'
/// `b₁₀, b₁₁` split.
pub(crate) fn quotient_blocks<E: PairingCurve>(
    pk: &ProvingKey<E>,
    input: QuotientInput<'_, E>,
    times: &mut QuotientTimes,
) -> Result<[Vec<Fr<E>>; 4], ProveError> {
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
        blinding,
        challenges,
    } = input;
    let ctx = PointContext::new(pk, public, blinding, challenges);
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

    // Block weights: tz's `¼ω₄⁻ʲˡ`, the numerator's (divided by Xⁿ − 1) `−¼Σ_{l'≤l}ω₄^{−jl'}`.
    let quarter = Fr::<E>::from_u64(4).inverse().expect("4 < r");
    let w_tz: [[Fr<E>; 4]; 4] = core::array::from_fn(|j| {
        core::array::from_fn(|l| quarter * omega4.pow_u64((4 - j as u64 * l as u64 % 4) % 4))
    });
    let w_t: [[Fr<E>; 4]; 4] = core::array::from_fn(|j| {
        core::array::from_fn(|l| -(0..=l).fold(Fr::<E>::ZERO, |acc, lp| acc + w_tz[j][lp]))
    });

    let mut out: [Vec<Fr<E>>; 4] = core::array::from_fn(|_| {
        let mut v = Vec::with_capacity(n + crate::prover::ROOM);
        v.resize(n, Fr::<E>::ZERO);
        v
    });
    let mut work = on_h;
    let mut pi_work = pi_coefs.as_ref().map(|_| vec![Fr::<E>::ZERO; n]);
    for j in 0..4 {
        let shift = omega4n.pow_u64(j as u64);
        if j > 0 {
            let t = Instant::now();
            for (w, c) in work.iter_mut().zip(coefs) {
                values_on_coset(c, w, shift, omega4.pow_u64(j as u64), &dom_n)?;
            }
            if let (Some(c), Some(w)) = (&pi_coefs, &mut pi_work) {
                values_on_coset(c, w, shift, omega4.pow_u64(j as u64), &dom_n)?;
            }
            times.ntt_to_cosets += t.elapsed();
        }
        let t = Instant::now();
        ctx.points_on_coset(j, &mut work, pi_work.as_deref())?;
        times.points += t.elapsed();

        // work[0] holds the numerator (zero on H), work[1] tz.
        let t = Instant::now();
        let parts: &[usize] = if j == 0 { &[1] } else { &[0, 1] };
        for &k in parts {
            dom_n.inverse(&mut work[k], Order::Natural, Order::Natural)?;
        }
        let s_inv = shift.inverse().expect("a root of unity");
        let [o0, o1, o2, o3] = &mut out;
        let (num, tz) = (&work[0], &work[1]);
        (
            o0.par_chunks_mut(BLOCK),
            o1.par_chunks_mut(BLOCK),
            o2.par_chunks_mut(BLOCK),
            o3.par_chunks_mut(BLOCK),
        )
            .into_par_iter()
            .enumerate()
            .for_each(|(blk, (o0, o1, o2, o3))| {
                let start = blk * BLOCK;
                let u0 = s_inv.pow_u64(start as u64);
                let len = o0.len();
                let done = crate::quotient_lanes::accumulate_blocks(
                    [&mut *o0, &mut *o1, &mut *o2, &mut *o3],
                    &tz[start..start + len],
                    (j > 0).then(|| &num[start..start + len]),
                    u0,
                    s_inv,
                    w_tz[j],
                    w_t[j],
                );
                let mut u = u0 * s_inv.pow_u64(done as u64);
                let mut outs = [o0, o1, o2, o3];
                for i in done..len {
                    let k = start + i;
                    let y_tz = tz[k] * u;
                    let y_t = if j == 0 { Fr::<E>::ZERO } else { num[k] * u };
                    for (l, o) in outs.iter_mut().enumerate() {
                        o[i] += w_tz[j][l] * y_tz + w_t[j][l] * y_t;
                    }
                    u *= s_inv;
                }
            });
        times.ntt_back += t.elapsed();
    }
    if out[3][6..].iter().any(|x| !x.is_zero()) {
        return Err(ProveError::Key(
            "the quotient has degree 3n + 6 or more".into(),
        ));
    }
    Ok(out)
}

/// `p` (any length up to `2n`) on the coset `shift·H` into `out`: reduced modulo
/// `Xⁿ − shiftⁿ`, scaled by `shiftᵏ`, one size-`n` NTT.
fn values_on_coset<F: fastzk_field::NttField>(
    p: &[F],
    out: &mut [F],
    shift: F,
    shift_n: F,
    dom_n: &Radix2Domain<F>,
) -> Result<(), fastzk_poly::PolyError> {
    let n = out.len();
    out.par_chunks_mut(BLOCK).enumerate().for_each(|(blk, o)| {
        let start = blk * BLOCK;
        let sk0 = shift.pow_u64(start as u64);
        // `p[k]·shiftᵏ` on the lanes where they run and `p` reaches, the rest here; then
        // the few coefficients past `n` folded in.
        let have = p.len().saturating_sub(start).min(o.len());
        let done = crate::quotient_lanes::scaled_by_powers(
            &mut o[..have],
            &p[start..start + have],
            sk0,
            shift,
        );
        let mut sk = sk0 * shift.pow_u64(done as u64);
        for (i, o) in o.iter_mut().enumerate().skip(done) {
            *o = p.get(start + i).copied().unwrap_or(F::ZERO) * sk;
            sk *= shift;
        }
        let mut sk = sk0;
        for (i, o) in o.iter_mut().enumerate() {
            let Some(hi) = p.get(n + start + i) else {
                break;
            };
            *o += shift_n * *hi * sk;
            sk *= shift;
        }
    });
    dom_n.forward(out, Order::Natural, Order::Natural)
}

/// The constants every point of the quotient uses.
struct PointContext<'a, E: PairingCurve> {
    pk: &'a ProvingKey<E>,
    public: &'a [Fr<E>],
    b: &'a [Fr<E>],
    alpha: Fr<E>,
    alpha2: Fr<E>,
    beta: Fr<E>,
    gamma: Fr<E>,
    k1b: Fr<E>,
    k2b: Fr<E>,
    omega: Fr<E>,
    omega4n: Fr<E>,
    n_inv: Fr<E>,
}

impl<'a, E: PairingCurve> PointContext<'a, E> {
    fn new(
        pk: &'a ProvingKey<E>,
        public: &'a [Fr<E>],
        b: &'a [Fr<E>],
        [alpha, beta, gamma]: [Fr<E>; 3],
    ) -> Self {
        let n = pk.domain_size();
        Self {
            pk,
            public,
            b,
            alpha,
            alpha2: alpha.square(),
            beta,
            gamma,
            k1b: pk.vk.k1 * beta,
            k2b: pk.vk.k2 * beta,
            omega: root_of_unity::<E>(pk.vk.power),
            omega4n: root_of_unity::<E>(pk.vk.power + 2),
            n_inv: Fr::<E>::from_u64(n as u64).inverse().expect("n < r"),
        }
    }

    /// Coset `j`'s points: `work` holds `a, b, c, z` there (unblinded on `H`, blinded
    /// elsewhere) and receives the numerator in `work[0]` and `tz` in `work[1]`;
    /// `pi` holds `PI` there when it was interpolated.
    fn points_on_coset(
        &self,
        j: usize,
        work: &mut [Vec<Fr<E>>; 4],
        pi: Option<&[Fr<E>]>,
    ) -> Result<(), ProveError> {
        let n = self.pk.domain_size();
        let [wa, wb, wc, wz] = work;
        let (wc, wz) = (&*wc, &*wz);
        let shift = self.omega4n.pow_u64(j as u64);
        // Z_H on coset j: shiftⁿ − 1 = ω₄ʲ − 1.
        let zh = root_of_unity::<E>(2).pow_u64(j as u64) - Fr::<E>::ONE;
        let zh_inv = zh.inverse().unwrap_or(Fr::<E>::ZERO);
        let zh_over_n = zh * self.n_inv;
        // The roots ωᵏ each point off H needs 1/(x − ωᵏ) for: L₁'s, and the public inputs'.
        let n_public = self.public.len();
        let n_roots = if pi.is_some() { 1 } else { n_public.max(1) };
        let roots: Vec<Fr<E>> = (0..n_roots).map(|k| self.omega.pow_u64(k as u64)).collect();
        let pub_roots: Vec<Fr<E>> = match pi {
            Some(_) => Vec::new(),
            None => self
                .public
                .iter()
                .zip(&roots)
                .map(|(p, r)| *p * *r)
                .collect(),
        };
        let b = self.b;
        let (alpha, beta, gamma) = (self.alpha, self.beta, self.gamma);
        let on_h = crate::quotient_lanes::OnH {
            alpha,
            beta,
            gamma,
            k1b: self.k1b,
            k2b: self.k2b,
            omega: self.omega,
            b: core::array::from_fn(|k| b.get(k).copied().unwrap_or(Fr::<E>::ZERO)),
        };
        let off_h = OffH {
            alpha,
            beta,
            gamma,
            k1b: self.k1b,
            k2b: self.k2b,
            omega: self.omega,
            l1c: zh_over_n * self.alpha2,
            zh_inv,
            // The blinding scalars times Z_H on this coset.
            bz: core::array::from_fn(|k| b.get(k).map_or(Fr::<E>::ZERO, |v| *v * zh)),
        };
        wa.par_chunks_mut(BLOCK)
            .zip(wb.par_chunks_mut(BLOCK))
            .enumerate()
            .try_for_each(|(blk, (oa, ob))| -> Result<(), ProveError> {
                let m0 = blk * BLOCK;
                let len = oa.len();
                let read = |which: Extended| -> Result<Vec<Fr<E>>, FormatError> {
                    let mut v = vec![Fr::<E>::ZERO; len];
                    self.pk.extended.read_on_coset(which, j, m0, &mut v)?;
                    Ok(v)
                };
                let q: Vec<Vec<Fr<E>>> = (0..5)
                    .map(|k| read(Extended::Q(k)))
                    .collect::<Result<_, _>>()?;
                let s: Vec<Vec<Fr<E>>> = (0..3)
                    .map(|k| read(Extended::Sigma(k)))
                    .collect::<Result<_, _>>()?;
                let x0 = shift * self.omega.pow_u64(m0 as u64);
                // z at xω: the next point's z (the last block wraps around).
                let zw: Vec<Fr<E>> = (m0 + 1..m0 + len + 1).map(|i| wz[i % n]).collect();
                let block = OffHBlock {
                    q: [&q[0][..], &q[1], &q[2], &q[3], &q[4]],
                    s: [&s[0][..], &s[1], &s[2]],
                    c: &wc[m0..m0 + len],
                    z: &wz[m0..m0 + len],
                    zw: &zw,
                    inv0: &[],
                    pi: &[],
                    x0,
                };
                if j > 0 {
                    // 1/(x − ωᵏ) for every point and root, in one inversion.
                    let mut inv = Vec::with_capacity(len * n_roots);
                    let mut x = x0;
                    for _ in 0..len {
                        inv.extend(roots.iter().map(|r| x - *r));
                        x *= self.omega;
                    }
                    batch_inverse(&mut inv);
                    let pi_x: Vec<Fr<E>> = match pi {
                        Some(v) => v[m0..m0 + len].to_vec(),
                        None if n_public == 0 => Vec::new(),
                        None => inv
                            .chunks_exact(n_roots)
                            .map(|row| {
                                let sum = pub_roots
                                    .iter()
                                    .zip(row)
                                    .fold(Fr::<E>::ZERO, |acc, (a, r)| acc + *a * *r);
                                -(zh_over_n * sum)
                            })
                            .collect(),
                    };
                    let inv0: Vec<Fr<E>> = if n_roots == 1 {
                        inv
                    } else {
                        inv.iter().step_by(n_roots).copied().collect()
                    };
                    let block = OffHBlock {
                        inv0: &inv0,
                        pi: &pi_x,
                        ..block
                    };
                    let done = crate::quotient_lanes::off_h_points(&off_h, &block, oa, ob);
                    off_h_points(
                        &off_h,
                        &block.from(done, self.omega),
                        &mut oa[done..],
                        &mut ob[done..],
                    );
                    return Ok(());
                }

                // On H the lanes take groups of eight past L₁'s point and the public
                // inputs' (where L₁ and PI vanish), while every check passes; this loop
                // takes the rest, and names what fails.
                let first_free = n_public.max(1).saturating_sub(m0);
                let lanes_from = first_free.next_multiple_of(8).min(len);
                let on_lanes = lanes_from
                    ..lanes_from
                        + crate::quotient_lanes::on_h_points(
                            &on_h,
                            &block.from(lanes_from, self.omega),
                            &mut oa[lanes_from..],
                            &mut ob[lanes_from..],
                        );
                let mut x = x0;
                for m in 0..len {
                    if on_lanes.contains(&m) {
                        x *= self.omega;
                        continue;
                    }
                    let mm = m0 + m;
                    let l1 = if mm == 0 { Fr::<E>::ONE } else { Fr::<E>::ZERO };
                    let pi_x = self.public.get(mm).map_or(Fr::<E>::ZERO, |v| -*v);
                    let [qm, ql, qr, qo, qc] = [0, 1, 2, 3, 4].map(|k| q[k][m]);
                    let l1a = l1 * self.alpha2;
                    // The factors' parts that do not depend on the wires.
                    let bx = beta * x;
                    let id = [bx + gamma, self.k1b * x + gamma, self.k2b * x + gamma];
                    let sigma = [0, 1, 2].map(|k| beta * s[k][m] + gamma);
                    let xw = x * self.omega;
                    let numerator = |[a, bb, c, z, zw]: [Fr<E>; 5]| {
                        let e1 = a * bb * qm + a * ql + bb * qr + c * qo + pi_x + qc;
                        let e2 = (a + id[0]) * (bb + id[1]) * ((c + id[2]) * z);
                        let e3 = (a + sigma[0]) * (bb + sigma[1]) * ((c + sigma[2]) * zw);
                        (e1, e1 + (e2 - e3) * alpha + (z - Fr::<E>::ONE) * l1a)
                    };
                    // On H: the numerator of the wires (unblinded there) must vanish;
                    // tz is the first-order term of the blinded products.
                    let (a, bb, c, z) = (oa[m], ob[m], wc[mm], wz[mm]);
                    let zw = zw[m];
                    let (e1, t) = numerator([a, bb, c, z, zw]);
                    if !e1.is_zero() {
                        let wire = |k: usize| self.pk.maps[k].get(mm).copied().unwrap_or(0);
                        return Err(ProveError::GateUnsatisfied {
                            gate: mm,
                            gates: self.pk.n_constraints,
                            n_public,
                            a: wire(0),
                            b: wire(1),
                            c: wire(2),
                        });
                    }
                    if !t.is_zero() {
                        return Err(ProveError::Key(format!(
                            "the quotient's numerator is not zero at point {mm} of H \
                             although its gate holds (the copy constraints were checked)"
                        )));
                    }
                    let ap = b[2] + b[1] * x;
                    let bp = b[4] + b[3] * x;
                    let cp = b[6] + b[5] * x;
                    let zp = (b[7] * x + b[8]) * x + b[9];
                    let zwp = (b[7] * xw + b[8]) * xw + b[9];
                    let e1z = (ap * bb + a * bp) * qm + ap * ql + bp * qr + cp * qo;
                    let e2z = first_order([a + id[0], bb + id[1], c + id[2], z], [ap, bp, cp, zp]);
                    let e3z = first_order(
                        [a + sigma[0], bb + sigma[1], c + sigma[2], zw],
                        [ap, bp, cp, zwp],
                    );
                    oa[m] = Fr::<E>::ZERO;
                    ob[m] = e1z + (e2z - e3z) * alpha + zp * l1a;
                    x *= self.omega;
                }
                Ok(())
            })
    }
}

/// The constants of the points off `H` on one coset.
pub(crate) struct OffH<F> {
    pub alpha: F,
    pub beta: F,
    pub gamma: F,
    pub k1b: F,
    pub k2b: F,
    pub omega: F,
    /// `Z_H·α²/n`: `α²·L₁(x) = l1c/(x − 1)`.
    pub l1c: F,
    /// `1/Z_H`.
    pub zh_inv: F,
    /// The blinding scalars `b₁ … b₉` times `Z_H` (index 0 unused).
    pub bz: [F; 10],
}

/// One block of consecutive points off `H`: the key's and the wires' values there.
pub(crate) struct OffHBlock<'a, F> {
    /// `q_M, q_L, q_R, q_O, q_C`.
    pub q: [&'a [F]; 5],
    pub s: [&'a [F]; 3],
    pub c: &'a [F],
    pub z: &'a [F],
    /// `z` at `xω`.
    pub zw: &'a [F],
    /// `1/(x − 1)`.
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
            c: &self.c[start..],
            z: &self.z[start..],
            zw: &self.zw[start..],
            inv0: self.inv0.get(start..).unwrap_or(&[]),
            pi: self.pi.get(start..).unwrap_or(&[]),
            x0: self.x0 * omega.pow_u64(start as u64),
        }
    }
}

/// The points off `H` of one block, one at a time: `oa`, `ob` hold the blinded `a, b`
/// and receive the numerator of the unblinded values (`t`) and `tz` — the numerator of
/// the blinded values less `t`, over `Z_H` (the blindings there are `(b₂ + b₁x)·Z_H`
/// etc., `Z_H` a constant). The lanes version (`quotient_lanes`) must agree with it.
pub(crate) fn off_h_points<F: Field>(
    k: &OffH<F>,
    blk: &OffHBlock<'_, F>,
    oa: &mut [F],
    ob: &mut [F],
) {
    let bz = &k.bz;
    let mut x = blk.x0;
    let mut zpz = (bz[7] * x + bz[8]) * x + bz[9];
    for m in 0..oa.len() {
        let [qm, ql, qr, qo, qc] = blk.q.map(|v| v[m]);
        let pi_x = blk.pi.get(m).copied().unwrap_or(F::ZERO);
        let l1a = k.l1c * blk.inv0[m];
        let id = [
            k.beta * x + k.gamma,
            k.k1b * x + k.gamma,
            k.k2b * x + k.gamma,
        ];
        let sigma = blk.s.map(|v| k.beta * v[m] + k.gamma);
        let numerator = |[a, bb, c, z, zw]: [F; 5]| {
            let e1 = a * bb * qm + a * ql + bb * qr + c * qo + pi_x + qc;
            let e2 = (a + id[0]) * (bb + id[1]) * ((c + id[2]) * z);
            let e3 = (a + sigma[0]) * (bb + sigma[1]) * ((c + sigma[2]) * zw);
            e1 + (e2 - e3) * k.alpha + (z - F::ONE) * l1a
        };
        let xw = x * k.omega;
        // The z blinding at xω is the next point's.
        let zwpz = (bz[7] * xw + bz[8]) * xw + bz[9];
        let blinded = [oa[m], ob[m], blk.c[m], blk.z[m], blk.zw[m]];
        let blinding = [
            bz[2] + bz[1] * x,
            bz[4] + bz[3] * x,
            bz[6] + bz[5] * x,
            zpz,
            zwpz,
        ];
        let t = numerator(core::array::from_fn(|i| blinded[i] - blinding[i]));
        let full = numerator(blinded);
        oa[m] = t;
        ob[m] = (full - t) * k.zh_inv;
        zpz = zwpz;
        x = xw;
    }
}

/// The first-order coefficient in `Z` of `Π(fₖ + yₖ·Z)`: `Σₖ yₖ·Π_{j≠k} fⱼ`, the blinding
/// terms of a product divided by `Z_H` at a point of `H` (where `Z_H = 0`). snarkjs
/// expands every order (its `MulZ`); this is 9 products.
#[inline(always)]
pub(crate) fn first_order<F: Field>(f: [F; 4], y: [F; 4]) -> F {
    let (p01, p23) = (f[0] * f[1], f[2] * f[3]);
    (y[0] * f[1] + f[0] * y[1]) * p23 + p01 * (y[2] * f[3] + f[2] * y[3])
}
