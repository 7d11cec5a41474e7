//! Property tests: every engine (and the fast engine's knobs) against the naive sum on
//! random small inputs: sizes 0–40, scalars drawn from a mix of zero, one, small, equal
//! and full-size values, points with repeats and negations. Few cases, small sizes, so
//! the suite stays quick.

use fastzk_curve::{batch_normalize, bn254, Affine, Jacobian};
use fastzk_field::Field;
use fastzk_msm::{msm_with, Engine, MsmConfig, MsmCurve};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn input<C: MsmCurve>(n: usize, seed: u64) -> (Vec<Affine<C>>, Vec<C::Scalar>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut acc = Jacobian::<C>::random(&mut rng);
    let step = Affine::<C>::random(&mut rng);
    let mut jac = Vec::with_capacity(n);
    for _ in 0..n {
        jac.push(acc);
        acc = acc.add_affine(&step);
    }
    let mut pts = batch_normalize(&jac);
    // Repeats, negations and identities.
    for i in 0..n {
        match rng.gen_range(0..10) {
            0 if i > 0 => pts[i] = pts[i - 1],
            1 if i > 0 => pts[i] = -pts[i - 1],
            2 => pts[i] = Affine::identity(),
            _ => {}
        }
    }
    let shared = C::Scalar::random(&mut rng);
    let ks = (0..n)
        .map(|_| match rng.gen_range(0..6) {
            0 => C::Scalar::ZERO,
            1 => C::Scalar::ONE,
            2 => C::Scalar::from_u64(rng.gen_range(0..1 << 20)),
            3 => shared,
            4 => -C::Scalar::ONE,
            _ => C::Scalar::random(&mut rng),
        })
        .collect();
    (pts, ks)
}

fn configs(window: u32, glv: bool) -> Vec<MsmConfig> {
    let mut v: Vec<MsmConfig> = Engine::ALL
        .iter()
        .filter(|e| **e != Engine::Naive)
        .map(|e| MsmConfig::engine(*e))
        .collect();
    for (partition, group_equal) in [(true, true), (false, false)] {
        v.push(MsmConfig {
            window: Some(window),
            glv: Some(glv),
            partition,
            group_equal,
            ..MsmConfig::engine(Engine::Fast)
        });
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn engines_match_naive_bn254_g1(n in 0usize..40, seed in any::<u64>(), window in 2u32..14, glv in any::<bool>()) {
        let (pts, ks) = input::<bn254::G1Config>(n, seed);
        let want = msm_with(&pts, &ks, &MsmConfig::engine(Engine::Naive)).unwrap().result;
        for cfg in configs(window, glv) {
            let got = msm_with(&pts, &ks, &cfg).unwrap().result;
            prop_assert_eq!(got, want, "engine {:?} window {:?} glv {:?}", cfg.engine, cfg.window, cfg.glv);
        }
    }

    #[test]
    fn engines_match_naive_bn254_g2(n in 0usize..16, seed in any::<u64>(), window in 2u32..10, glv in any::<bool>()) {
        let (pts, ks) = input::<bn254::G2Config>(n, seed);
        let want = msm_with(&pts, &ks, &MsmConfig::engine(Engine::Naive)).unwrap().result;
        for cfg in configs(window, glv) {
            let got = msm_with(&pts, &ks, &cfg).unwrap().result;
            prop_assert_eq!(got, want, "engine {:?} window {:?} glv {:?}", cfg.engine, cfg.window, cfg.glv);
        }
    }
}
