//! The curve registry: every pairing curve fastzk knows, once. [`pairing_curves!`]
//! makes each curve's type and [`PairingCurve`] impl and the [`CurveId`] enum with its
//! names and primes; [`with_pairing_curve!`] and [`for_each_pairing_curve!`] below list
//! the same curves for dispatch and for the test suites. Adding a curve is one entry in
//! each of the three lists, all in this file.

use ark_ec::pairing::Pairing;
use ark_ec::short_weierstrass::Affine as ArkAffine;
use ark_ff::{Field as _, One};
use fastzk_curve::Affine;
use fastzk_field::PrimeField;
use num_bigint::BigUint;

use crate::PairingCurve;

/// A curve name or prime that is not in the registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown curve {0:?} (known: {known})", known = CurveId::names())]
pub struct UnknownCurve(pub String);

macro_rules! pairing_curves {
    ($(
        $(#[$doc:meta])*
        $ty:ident {
            module: $m:ident,
            title: $title:literal,
            name: $name:literal,
            aliases: [$($alias:literal),*],
            snarkjs: $sj:literal,
            ark: $ark:ident, $ark_pairing:ident $(,)?
        }
    ),* $(,)?) => {
        $(
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $ty;

            impl PairingCurve for $ty {
                type Fr = fastzk_field::$m::Fr;
                type Fq = fastzk_field::$m::Fq;
                type G1 = fastzk_curve::$m::G1Config;
                type G2 = fastzk_curve::$m::G2Config;
                const ID: CurveId = CurveId::$ty;

                fn pairing_product_is_one(pairs: &[crate::PairingInput<Self>]) -> bool {
                    let (ps, qs): (Vec<ArkAffine<$ark::g1::Config>>, Vec<ArkAffine<$ark::g2::Config>>) =
                        pairs
                            .iter()
                            .map(|(p, q)| (ArkAffine::from(*p), ArkAffine::from(*q)))
                            .unzip();
                    <$ark::$ark_pairing>::multi_pairing(ps, qs).0.is_one()
                }

                fn pairing_decimal(
                    p: &Affine<Self::G1>,
                    q: &Affine<Self::G2>,
                ) -> [[[String; 2]; 3]; 2] {
                    let p: ArkAffine<$ark::g1::Config> = (*p).into();
                    let q: ArkAffine<$ark::g2::Config> = (*q).into();
                    let f = <$ark::$ark_pairing>::pairing(p, q).0;
                    let fq2 = |x: &$ark::Fq2| {
                        let mut c = x.to_base_prime_field_elements().map(|e| e.to_string());
                        [c.next().unwrap_or_default(), c.next().unwrap_or_default()]
                    };
                    let fq6 = |x: &$ark::Fq6| [fq2(&x.c0), fq2(&x.c1), fq2(&x.c2)];
                    [fq6(&f.c0), fq6(&f.c1)]
                }
            }
        )*

        /// The pairing curves fastzk knows, as a run-time value (from a file's prime or a
        /// command-line name). [`with_pairing_curve!`] turns one into its type.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum CurveId {
            $($(#[$doc])* $ty,)*
        }

        impl CurveId {
            /// Every curve, in registry order.
            pub const ALL: &'static [CurveId] = &[$(CurveId::$ty),*];

            /// The canonical name (`bn254`, `bls12-381`): what the command line takes.
            pub fn name(self) -> &'static str {
                match self {
                    $(CurveId::$ty => $name,)*
                }
            }

            /// The name for people (`BN254`, `BLS12-381`): what messages say.
            pub fn title(self) -> &'static str {
                match self {
                    $(CurveId::$ty => $title,)*
                }
            }

            /// Other names the curve goes by (circom's, snarkjs', arkworks'), accepted
            /// wherever a name is read.
            pub fn aliases(self) -> &'static [&'static str] {
                match self {
                    $(CurveId::$ty => &[$($alias),*],)*
                }
            }

            /// The name snarkjs writes in its JSON files (`curve`).
            pub fn snarkjs_name(self) -> &'static str {
                match self {
                    $(CurveId::$ty => $sj,)*
                }
            }

            /// Order `r` of the groups (the scalar field, circom's prime).
            pub fn scalar_modulus(self) -> BigUint {
                match self {
                    $(CurveId::$ty => fastzk_field::$m::Fr::modulus(),)*
                }
            }

            /// Modulus `q` of the coordinate field.
            pub fn base_modulus(self) -> BigUint {
                match self {
                    $(CurveId::$ty => fastzk_field::$m::Fq::modulus(),)*
                }
            }
        }
    };
}

pairing_curves! {
    /// BN254 (alt_bn128; snarkjs and circom call it `bn128`).
    Bn254 {
        module: bn254,
        title: "BN254",
        name: "bn254",
        aliases: ["bn128", "alt_bn128"],
        snarkjs: "bn128",
        ark: ark_bn254, Bn254,
    },
    /// BLS12-381 (snarkjs' `bls12381`).
    Bls12_381 {
        module: bls12_381,
        title: "BLS12-381",
        name: "bls12-381",
        aliases: ["bls12_381", "bls12381"],
        snarkjs: "bls12381",
        ark: ark_bls12_381, Bls12_381,
    },
}

/// Runs `body` with the type `E` standing for the curve `id` names:
/// `with_pairing_curve!(id, E => prove::<E>(…))`.
#[macro_export]
macro_rules! with_pairing_curve {
    ($id:expr, $e:ident => $body:expr) => {
        match $id {
            $crate::CurveId::Bn254 => {
                type $e = $crate::Bn254;
                $body
            }
            $crate::CurveId::Bls12_381 => {
                type $e = $crate::Bls12_381;
                $body
            }
        }
    };
}

/// Calls `mac!(module_name, Type)` for every curve: how the conformance suites are
/// instantiated, so a new curve is tested without a new line.
#[macro_export]
macro_rules! for_each_pairing_curve {
    ($mac:ident) => {
        $mac!(bn254, $crate::Bn254);
        $mac!(bls12_381, $crate::Bls12_381);
    };
}

impl CurveId {
    /// The curve whose scalar or base modulus is `p` (circom and snarkjs files name
    /// their curve by a prime).
    pub fn from_prime(p: &BigUint) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|c| *p == c.scalar_modulus() || *p == c.base_modulus())
    }

    /// Every accepted name, for messages: `bn254 (bn128, alt_bn128), …`.
    pub fn names() -> String {
        Self::ALL
            .iter()
            .map(|c| format!("{} ({})", c.name(), c.aliases().join(", ")))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::str::FromStr for CurveId {
    type Err = UnknownCurve;

    /// The canonical name or an alias, ignoring case.
    fn from_str(s: &str) -> Result<Self, UnknownCurve> {
        let s = s.to_ascii_lowercase();
        Self::ALL
            .iter()
            .copied()
            .find(|c| c.name() == s || c.aliases().contains(&s.as_str()))
            .ok_or(UnknownCurve(s))
    }
}

impl std::fmt::Display for CurveId {
    /// The title (`BN254`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.title())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each registry entry agrees with its own type, and the three lists agree.
    #[test]
    fn registry_is_consistent() {
        fn check<E: PairingCurve>(seen: &mut Vec<CurveId>) {
            let id = E::ID;
            assert_eq!(id.scalar_modulus(), <E::Fr as PrimeField>::modulus());
            assert_eq!(CurveId::from_prime(&id.scalar_modulus()), Some(id));
            assert_eq!(CurveId::from_prime(&id.base_modulus()), Some(id));
            assert_eq!(id.name().parse::<CurveId>(), Ok(id));
            for a in id.aliases() {
                assert_eq!(a.parse::<CurveId>(), Ok(id));
            }
            assert_eq!(with_pairing_curve!(id, T => T::ID), id);
            seen.push(id);
        }
        let mut seen = Vec::new();
        macro_rules! visit {
            ($m:ident, $e:ty) => {
                check::<$e>(&mut seen);
            };
        }
        for_each_pairing_curve!(visit);
        assert_eq!(seen, CurveId::ALL);
        assert!("nope".parse::<CurveId>().is_err());
        assert_eq!(CurveId::from_prime(&BigUint::from(7u8)), None);
        assert_eq!("BN128".parse::<CurveId>(), Ok(CurveId::Bn254));
    }
}
