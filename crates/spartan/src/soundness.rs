//! The soundness calculator: the parameters (field, extension, code rate, queries,
//! proximity repetitions, instance size) turned into bits per component, and a verdict
//! against the 128-bit target. Provers and verifiers refuse a configuration below it.
//!
//! Errors are round-by-round bounds of the interactive protocol; the total is their
//! sum (union bound), reported as `−log2`. With Fiat–Shamir, an attacker making `2^k`
//! hash queries gains up to `k` bits against these figures, as for every hash-based
//! SNARK. `|E|` is the challenge field's size (`p^degree`), `n_code` the codeword length.
//!
//! | component | error |
//! | --- | --- |
//! | outer statement: random `τ` | `log_rows / |E|` (a multilinear polynomial in `τ`) |
//! | outer mask: `ρ` drawn after `P = Σ p` | `1 / |E|` |
//! | outer sumcheck (degree 3, the last round 5) | `(3·(log_rows − 1) + 5) / |E|` |
//! | combining the four claims | `1 / |E|` |
//! | inner mask: `ρ'` drawn after `Σ M·R` | `1 / |E|` |
//! | inner sumcheck (degree 2) | `2·log_cols / |E|` |
//! | proximity test, per repetition | `n_code / |E|` (proximity gaps of RS codes, unique decoding) |
//! | column queries | `(1 − δ/2)^queries`, `δ = 1 − rate` |
//!
//!
//! The SNARK mode adds Spark's components ([`soundness_snark`]), for `N = 2^log_n`
//! entries and `M = 2^log_mem` memory cells:
//!
//! | component | error |
//! | --- | --- |
//! | multiset hashes, rows and columns (`Π(τ − γ²a − γv − t)`, total degree `2·(2N + 2M)` in `γ`, `τ`) | `2 · 2·(2N + 2M) / |E|` |
//! | grand products, each of the two runs over `m` variables (layer `j`: sumcheck `3j`, batching 1, fold 1) | `(3·m(m − 1)/2 + 2m) / |E|` |
//! | folding the leaves' claims and batching them (`μ`, `β`) | `2 / |E|` |
//! | evaluation sumcheck (degree 3) | `3·log_n / |E|` |
//! | three more openings (entries, lookups, memory; no hiding, rate exactly `2^−log_blowup`) | proximity and queries as above, per commitment shape |
//!
//! The rate is the code's actual one: with hiding, each row's message is its `C` values
//! and `queries` random coefficients, so `rate = (C + queries) / n_code`.
//!
//! The commitments' binding rests on the hash: finding a collision of SHA3-256 or
//! BLAKE3 takes about `2^128` work. That is a computational bound, reported apart
//! (`hash_bits`), not added to the statistical ones.
//!
//! The column queries serve both the proximity and the evaluation check: a committed
//! matrix `δ/2`-far from the code fails the first, one closer fails the second unless
//! every query avoids the `≥ δ/2` fraction where the claimed row combination's codeword
//! and the decoded one differ — the two cases exclude each other, so one term covers
//! both.

use fastzk_field::{NttField, PrimeField};
use fastzk_pcs::ExtensionOf;

use crate::spark::SparkShape;
use crate::SpartanParams;

/// What the proof system must reach.
pub const TARGET_BITS: f64 = 128.0;

/// Bits per component and in total.
#[derive(Clone, Debug, PartialEq)]
pub struct Soundness {
    pub parts: Vec<(&'static str, f64)>,
    /// `−log2` of the summed errors.
    pub bits: f64,
    /// Collision resistance of the Merkle hash, in bits of work.
    pub hash_bits: f64,
}

impl Soundness {
    pub fn meets_target(&self) -> bool {
        self.bits >= TARGET_BITS && self.hash_bits >= TARGET_BITS
    }
}

/// `log2` of a prime field's modulus.
fn log2_modulus<F: PrimeField>() -> f64 {
    let p = F::modulus();
    let bits = p.bits();
    // The top 53 bits carry all the precision an f64 has.
    let shift = bits.saturating_sub(53);
    let top = (&p >> shift).to_u64_digits().first().copied().unwrap_or(0) as f64;
    top.log2() + shift as f64
}

/// The calculator for an instance of `2^log_rows` constraints and `2^log_cols` columns
/// (the committed witness is half of them).
pub fn soundness<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    log_rows: usize,
    log_cols: usize,
) -> Soundness {
    let over_field = over_field::<F, E>;
    let pcs = &params.pcs;
    let mut parts = vec![
        ("outer statement (random τ)", over_field(log_rows as f64)),
        ("outer mask (ρ after Σ p)", over_field(1.0)),
        (
            "outer sumcheck (degree 3, last round 5)",
            over_field(3.0 * log_rows.saturating_sub(1) as f64 + 5.0),
        ),
        ("combining the four claims", over_field(1.0)),
        ("inner mask (ρ' after Σ M·R)", over_field(1.0)),
        (
            "inner sumcheck (degree 2)",
            over_field(2.0 * log_cols as f64),
        ),
    ];
    parts.extend(opening::<F, E>(
        pcs,
        log_cols.saturating_sub(1),
        ["proximity test (random combinations)", "column queries"],
    ));
    total(parts)
}

/// [`soundness`] plus Spark's components: the SNARK mode's calculator.
pub fn soundness_snark<F: NttField, E: ExtensionOf<F>>(
    params: &SpartanParams,
    spark: &SparkShape,
) -> Soundness {
    let over_field = over_field::<F, E>;
    let mut parts = soundness::<F, E>(params, spark.log_rows, spark.log_cols).parts;
    let (n, m) = (
        2f64.powi(spark.log_n as i32),
        2f64.powi(spark.log_mem as i32),
    );
    let products = |vars: usize| {
        let v = vars as f64;
        3.0 * v * (v - 1.0) / 2.0 + 2.0 * v
    };
    parts.extend([
        (
            "Spark multiset hashes (rows, columns)",
            over_field(2.0 * 2.0 * (2.0 * n + 2.0 * m)),
        ),
        (
            "Spark grand products (both runs)",
            over_field(products(spark.log_n) + products(spark.log_mem)),
        ),
        ("Spark leaf folding and batching", over_field(2.0)),
        (
            "Spark evaluation sumcheck (degree 3)",
            over_field(3.0 * spark.log_n as f64),
        ),
    ]);
    let public = crate::spark::public_params(&params.pcs);
    for (vars, names) in [
        (
            spark.log_n,
            [
                "Spark entries: proximity test",
                "Spark entries: column queries",
            ],
        ),
        (
            spark.log_n,
            [
                "Spark lookups: proximity test",
                "Spark lookups: column queries",
            ],
        ),
        (
            spark.log_mem,
            [
                "Spark memory: proximity test",
                "Spark memory: column queries",
            ],
        ),
    ] {
        parts.extend(opening::<F, E>(&public, vars, names));
    }
    total(parts)
}

/// `−log2` of `count / |E|`.
fn over_field<F: NttField, E: ExtensionOf<F>>(count: f64) -> f64 {
    E::DEGREE as f64 * log2_modulus::<F>() - count.max(1.0).log2()
}

/// An opening's two components for a polynomial in `num_vars` variables.
fn opening<F: NttField, E: ExtensionOf<F>>(
    pcs: &fastzk_pcs::OrionParams,
    num_vars: usize,
    names: [&'static str; 2],
) -> [(&'static str, f64); 2] {
    let (_, log_c) = pcs.shape(num_vars);
    let n_code = pcs.code_len(1 << log_c) as f64;
    let delta = 1.0 - pcs.rate(1 << log_c);
    [
        (
            names[0],
            pcs.proximity_reps as f64 * over_field::<F, E>(n_code),
        ),
        (names[1], -(pcs.queries as f64) * (1.0 - delta / 2.0).log2()),
    ]
}

fn total(parts: Vec<(&'static str, f64)>) -> Soundness {
    let error: f64 = parts.iter().map(|(_, b)| 2f64.powf(-b)).sum();
    Soundness {
        parts,
        bits: -error.log2(),
        hash_bits: 128.0,
    }
}
