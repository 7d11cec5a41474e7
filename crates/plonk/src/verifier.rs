//! The Plonk verifier, as snarkjs' `plonk verify` (one pairing check of two pairs).

use fastzk_curve::{Affine, Jacobian};
use fastzk_field::Field;

use crate::transcript;
use crate::{Fr, PairingCurve, Proof, VerifyingKey};

/// Why a proof could not be checked (an invalid proof is `Ok(false)`, not an error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("{got} public inputs given, the verification key expects {expected}")]
    PublicInputCount { expected: usize, got: usize },
}

/// What the verifier (and the prover's linearisation) needs at `ξ`.
pub(crate) struct AtXi<F> {
    /// `L_1(ξ) … L_m(ξ)`, `m = max(n_public, 1)`.
    pub l: Vec<F>,
    /// `Z_H(ξ) = ξⁿ − 1`.
    pub zh: F,
    /// `ξⁿ`.
    pub xin: F,
}

/// [`AtXi`]; `None` when `ξ` is in the domain (a probability-zero event that would
/// divide by zero).
pub(crate) fn lagrange_at<E: PairingCurve>(vk: &VerifyingKey<E>, xi: Fr<E>) -> Option<AtXi<Fr<E>>> {
    let mut xin = xi;
    for _ in 0..vk.power {
        xin = xin.square();
    }
    let zh = xin - Fr::<E>::ONE;
    let n = Fr::<E>::from_u64(vk.domain_size() as u64);
    let omega = vk.omega();
    let mut w = Fr::<E>::ONE;
    let mut l = Vec::with_capacity(vk.n_public.max(1));
    for _ in 0..vk.n_public.max(1) {
        let den = (n * (xi - w)).inverse()?;
        l.push(w * zh * den);
        w *= omega;
    }
    Some(AtXi { l, zh, xin })
}

/// Checks `proof` for the public inputs `public`.
///
/// Points are assumed valid (on the curve, in the subgroup) and evaluations below `r`:
/// the readers check them.
pub fn verify<E: PairingCurve>(
    vk: &VerifyingKey<E>,
    public: &[Fr<E>],
    proof: &Proof<E>,
) -> Result<bool, VerifyError> {
    if public.len() != vk.n_public {
        return Err(VerifyError::PublicInputCount {
            expected: vk.n_public,
            got: public.len(),
        });
    }
    let p = proof;
    let (beta, gamma) = transcript::beta_gamma(vk, public, [&p.a, &p.b, &p.c]);
    let alpha = transcript::alpha::<E>(&beta, &gamma, &p.z);
    let xi = transcript::xi::<E>(&alpha, [&p.t1, &p.t2, &p.t3]);
    let v1 = transcript::v::<E>(&xi, p.evaluations().map(|(_, e)| e));
    let u = transcript::u::<E>(&p.wxi, &p.wxiw);
    let mut v = [v1; 5];
    for i in 1..5 {
        v[i] = v[i - 1] * v1;
    }
    let Some(AtXi { l, zh, xin }) = lagrange_at(vk, xi) else {
        return Ok(false);
    };
    let pi = public
        .iter()
        .zip(&l)
        .fold(Fr::<E>::ZERO, |acc, (w, li)| acc - *w * *li);
    let alpha2 = alpha.square();

    // r0 = PI(ξ) − L1(ξ)α² − α(ā + βs̄1 + γ)(b̄ + βs̄2 + γ)(c̄ + γ)z̄ω
    let e3a = p.eval_a + beta * p.eval_s1 + gamma;
    let e3b = p.eval_b + beta * p.eval_s2 + gamma;
    let e3 = e3a * e3b * (p.eval_c + gamma) * p.eval_zw * alpha;
    let r0 = pi - l[0] * alpha2 - e3;

    // [D]: the linearisation commitment.
    let [qm, ql, qr, qo, qc] = vk.q;
    let mut d = qm.mul(&(p.eval_a * p.eval_b))
        + ql.mul(&p.eval_a)
        + qr.mul(&p.eval_b)
        + qo.mul(&p.eval_c)
        + qc;
    let betaxi = beta * xi;
    let d2a = (p.eval_a + betaxi + gamma)
        * (p.eval_b + betaxi * vk.k1 + gamma)
        * (p.eval_c + betaxi * vk.k2 + gamma)
        * alpha;
    d += &p.z.mul(&(d2a + l[0] * alpha2 + u));
    d -= &vk.s[2].mul(&(e3a * e3b * alpha * beta * p.eval_zw));
    let t = Jacobian::from(p.t1) + p.t2.mul(&xin) + p.t3.mul(&xin.square());
    d -= &t.mul(&zh);

    // [F] = [D] + v1[a] + v2[b] + v3[c] + v4[S1] + v5[S2]
    let f = d
        + p.a.mul(&v[0])
        + p.b.mul(&v[1])
        + p.c.mul(&v[2])
        + vk.s[0].mul(&v[3])
        + vk.s[1].mul(&v[4]);
    // [E] = (−r0 + v1ā + v2b̄ + v3c̄ + v4s̄1 + v5s̄2 + u z̄ω)·G
    let e = -r0
        + v[0] * p.eval_a
        + v[1] * p.eval_b
        + v[2] * p.eval_c
        + v[3] * p.eval_s1
        + v[4] * p.eval_s2
        + u * p.eval_zw;
    let e = Affine::<E::G1>::generator().mul(&e);

    // e(−(Wξ + u·Wξω), [τ]₂) · e(ξWξ + uξω·Wξω + F − E, [1]₂) = 1
    let a1 = Jacobian::from(p.wxi) + p.wxiw.mul(&u);
    let b1 = p.wxi.mul(&xi) + p.wxiw.mul(&(u * xi * vk.omega())) + f - e;
    let pairs = [
        (-a1.to_affine(), vk.x_2),
        (b1.to_affine(), Affine::<E::G2>::generator()),
    ];
    Ok(E::pairing_product_is_one(&pairs))
}
