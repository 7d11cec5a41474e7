//! `fastzk selftest`: every field and group of every registry curve (and Goldilocks)
//! end to end, with checks, randomness from the OS.

use std::time::Instant;

use anyhow::{ensure, Result};
use fastzk_curve::serialize::{
    ArkCompressed, PointEncoding, SerializableCurve, SnarkjsLem, Validate,
};
use fastzk_curve::{batch_normalize, Affine, Jacobian};
use fastzk_field::{batch_inverse, Field, Goldilocks, GoldilocksExt2, PrimeField};
use fastzk_pairing::{CurveId, PairingCurve};
use rand_core::OsRng;

use crate::progress::step;

fn field_checks<F: PrimeField>(name: &str, batch: usize) -> Result<()> {
    println!(
        "{name} ({} bits, 2-adicity {})",
        F::MODULUS_BITS,
        F::TWO_ADICITY
    );
    let rng = &mut OsRng;
    let (a, b) = (F::random(rng), F::random(rng));
    step(
        "(a·b)·b⁻¹ = a, a + b − b = a, (a+b)² = a² + 2ab + b²",
        || {
            let b_inv = b
                .inverse()
                .ok_or_else(|| anyhow::anyhow!("random b was zero"))?;
            ensure!(a * b * b_inv == a && a + b - b == a);
            ensure!((a + b).square() == a.square() + (a * b).double() + b.square());
            Ok(())
        },
    )?;
    step("√(a²)² = a², Fermat: a^(p−1) = 1", || {
        let sq = a.square();
        ensure!(sq.sqrt().map(|s| s.square()) == Some(sq));
        let p_minus_1 = (F::modulus() - 1u32).to_u64_digits();
        ensure!(a.is_zero() || a.pow(&p_minus_1) == F::ONE);
        Ok(())
    })?;
    let w = F::two_adic_root_of_unity();
    step("2-adic root of unity has order exactly 2^s", || {
        let mut x = w;
        for _ in 1..F::TWO_ADICITY {
            x = x.square();
        }
        ensure!(x == -F::ONE && x.square() == F::ONE);
        Ok(())
    })?;
    let mut xs: Vec<F> = (0..batch).map(|_| F::random(rng)).collect();
    let original = xs.clone();
    step(
        &format!("batch inversion of {batch} elements (one inversion)"),
        || {
            batch_inverse(&mut xs);
            ensure!(xs.iter().zip(&original).all(|(x, o)| (*x * *o).is_one()));
            Ok(())
        },
    )?;
    Ok(())
}

fn curve_checks<C: SerializableCurve>(batch: usize) -> Result<()> {
    println!("{}", C::NAME);
    let rng = &mut OsRng;
    let g = Jacobian::<C>::generator();
    let k = C::Scalar::random(rng);
    let kg = step("k·G by wNAF", || Ok(g.mul_wnaf(&k)))?;
    if C::glv().is_some() {
        step("k·G by GLV endomorphism equals wNAF", || {
            ensure!(g.mul_glv(&k) == Some(kg));
            Ok(())
        })?;
    }
    step("k·G + (−k)·G = O, 2·(k·G) = k·G + k·G", || {
        ensure!((kg + g.mul(&-k)).is_zero());
        ensure!(kg.double() == kg + kg);
        Ok(())
    })?;
    step("k·G on the curve and in the r-torsion subgroup", || {
        let a = kg.to_affine();
        ensure!(a.is_on_curve() && a.is_in_correct_subgroup());
        Ok(())
    })?;
    step(
        "compressed (arkworks) and snarkjs LEM encodings round-trip",
        || {
            let a = kg.to_affine();
            let compressed = ArkCompressed::encode(&a);
            ensure!(ArkCompressed::decode(&compressed, Validate::Yes)? == a);
            let lem = SnarkjsLem::encode(&a);
            ensure!(SnarkjsLem::decode(&lem, Validate::Yes)? == a);
            Ok(())
        },
    )?;
    let mut points = Vec::with_capacity(batch);
    let mut acc = kg;
    for _ in 0..batch {
        points.push(acc);
        acc = acc.add_affine(&Affine::generator());
    }
    step(
        &format!("normalise {batch} points to affine (one inversion)"),
        || {
            let affine = batch_normalize(&points);
            ensure!(affine
                .iter()
                .zip(&points)
                .all(|(a, p)| a.to_jacobian() == *p));
            Ok(())
        },
    )?;
    Ok(())
}

/// The fields and both groups of one pairing curve.
fn pairing_curve_checks<E: PairingCurve>(batch: usize) -> Result<()> {
    let name = E::ID.name();
    field_checks::<E::Fr>(&format!("{name} Fr"), batch)?;
    field_checks::<E::Fq>(&format!("{name} Fq"), batch)?;
    println!();
    curve_checks::<E::G1>(batch)?;
    curve_checks::<E::G2>(batch / 4)?;
    println!();
    Ok(())
}

pub fn run(batch: usize) -> Result<()> {
    let start = Instant::now();
    println!(
        "fastzk selftest: field and curve arithmetic, checked as it runs (randomness from the OS)"
    );
    super::info::run();
    println!();
    for &id in CurveId::ALL {
        fastzk_pairing::with_pairing_curve!(id, E => pairing_curve_checks::<E>(batch))?;
    }
    field_checks::<Goldilocks>("Goldilocks", batch)?;
    let e = GoldilocksExt2::random(&mut OsRng);
    step("Goldilocks² : e · e⁻¹ = 1", || {
        ensure!(e.is_zero() || e * e.inverse().expect("non-zero") == GoldilocksExt2::ONE);
        Ok(())
    })?;
    println!(
        "\nall checks passed in {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
