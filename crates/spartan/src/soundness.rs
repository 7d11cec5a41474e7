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
    let field_bits = E::DEGREE as f64 * log2_modulus::<F>();
    let over_field = |count: f64| field_bits - count.max(1.0).log2();
    let pcs = &params.pcs;
    let (_, log_c) = pcs.shape(log_cols.saturating_sub(1));
    let n_code = pcs.code_len(1 << log_c) as f64;
    let delta = 1.0 - pcs.rate(1 << log_c);
    let parts = vec![
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
        (
            "proximity test (random combinations)",
            pcs.proximity_reps as f64 * (field_bits - n_code.log2()),
        ),
        (
            "column queries",
            -(pcs.queries as f64) * (1.0 - delta / 2.0).log2(),
        ),
    ];
    let error: f64 = parts.iter().map(|(_, b)| 2f64.powf(-b)).sum();
    Soundness {
        parts,
        bits: -error.log2(),
        hash_bits: 128.0,
    }
}
