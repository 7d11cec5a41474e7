//! Pairing-friendly curves as one vocabulary for every pairing-based prover (as
//! arkworks puts `Pairing` in `ark-ec`): [`PairingCurve`] ties a scalar field and the
//! two groups, with their MSM and encoding capabilities, to a pairing check; [`Bn254`]
//! and [`Bls12_381`] implement it; and [`CurveId`] is the registry the command line,
//! the file formats and the provers share (names, primes, and dispatch from a run-time
//! curve to the generic code with [`with_pairing_curve!`]).
//!
//! Pairings come from arkworks (verification only); the points convert limb for limb.

mod curves;

use fastzk_curve::serialize::{Coordinate, SerializableCurve};
use fastzk_curve::Affine;
use fastzk_field::{NttField, PrimeField};
use fastzk_msm::MsmCurve;

pub use curves::{Bls12_381, Bn254, CurveId, UnknownCurve};

/// One `(P, Q)` pair of a pairing product.
pub type PairingInput<E> = (
    Affine<<E as PairingCurve>::G1>,
    Affine<<E as PairingCurve>::G2>,
);

/// G1 points of curve `E`.
pub type G1<E> = Affine<<E as PairingCurve>::G1>;
/// G2 points of curve `E`.
pub type G2<E> = Affine<<E as PairingCurve>::G2>;
/// The scalar field of curve `E`.
pub type Fr<E> = <E as PairingCurve>::Fr;

/// A pairing-friendly curve: its scalar field, its two groups, and a pairing check.
pub trait PairingCurve:
    'static + Copy + Clone + core::fmt::Debug + Default + PartialEq + Eq + Send + Sync
{
    /// The scalar field (order of the groups).
    type Fr: NttField + Coordinate;
    /// The coordinate field of G1.
    type Fq: PrimeField + Coordinate;
    type G1: MsmCurve<Scalar = Self::Fr, Base = Self::Fq> + SerializableCurve;
    type G2: MsmCurve<Scalar = Self::Fr> + SerializableCurve;

    /// This curve's entry in the registry (its names and primes).
    const ID: CurveId;

    /// `Π e(Pᵢ, Qᵢ) = 1`, with one final exponentiation.
    fn pairing_product_is_one(pairs: &[PairingInput<Self>]) -> bool;

    /// `e(P, Q)` as the twelve base-field coefficients of `Fq12 = Fq6[w]/(w² − v)`,
    /// `Fq6 = Fq2[v]/(v³ − ξ)`, in snarkjs' nesting order (`[c0, c1]` of `Fq12`, each
    /// `[c0, c1, c2]` of `Fq6`, each `[c0, c1]` of `Fq2`), as decimal strings.
    fn pairing_decimal(p: &Affine<Self::G1>, q: &Affine<Self::G2>) -> [[[String; 2]; 3]; 2];
}
