//! What defines a Montgomery field: its modulus and a small generator. Every other
//! constant is derived from them at compile time.

use core::fmt;
use core::hash::Hash;

use crate::bigint;

/// `N` modulus limbs followed by `-p^{-1} mod 2^64`: the layout the assembly reads.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MontTable<const N: usize> {
    pub modulus: [u64; N],
    pub inv: u64,
}

/// Everything that defines a Montgomery prime field: its modulus and a small multiplicative
/// generator. All other constants are derived at compile time.
///
/// The modulus must leave a spare bit (top limb below `2^63 - 1`), which every pairing
/// field here does; it lets additions skip a carry word and multiplication use the
/// "no-carry" CIOS. `Fp` refuses to compile for a modulus without it.
pub trait MontConfig<const N: usize>:
    'static + Copy + Clone + fmt::Debug + Default + PartialEq + Eq + Hash + Send + Sync
{
    const NAME: &'static str;
    const MODULUS: [u64; N];
    /// A generator of the multiplicative group, as a small integer.
    const GENERATOR: u64;

    const SPARE_BIT: () = assert!(
        Self::MODULUS[N - 1] < (u64::MAX >> 1) - 1,
        "Montgomery fields need a spare top bit"
    );
    const INV: u64 = bigint::mont_inv(Self::MODULUS[0]);
    const TABLE: MontTable<N> = MontTable {
        modulus: Self::MODULUS,
        inv: Self::INV,
    };
    const R: [u64; N] = bigint::r_mod(&Self::MODULUS);
    const R2: [u64; N] = bigint::r2_mod(&Self::MODULUS);
    const MODULUS_BITS: u32 = bigint::num_bits(&Self::MODULUS);
    const MODULUS_MINUS_ONE: [u64; N] = bigint::sub(&Self::MODULUS, &small_limbs::<N>(1)).0;
    const MODULUS_MINUS_TWO: [u64; N] =
        bigint::sub(&Self::MODULUS_MINUS_ONE, &small_limbs::<N>(1)).0;
    const HALF_MODULUS_MINUS_ONE: [u64; N] = bigint::shr1(&Self::MODULUS_MINUS_ONE);
    const TWO_ADICITY: u32 = bigint::trailing_zeros(&Self::MODULUS_MINUS_ONE);
    /// The odd part `t` of `p - 1 = 2^s · t`.
    const TRACE: [u64; N] = bigint::shr(&Self::MODULUS_MINUS_ONE, Self::TWO_ADICITY);
    const HALF_TRACE_MINUS_ONE: [u64; N] = bigint::shr1(&Self::TRACE);
    const GENERATOR_MONT: [u64; N] = bigint::mont_mul(
        &small_limbs::<N>(Self::GENERATOR),
        &Self::R2,
        &Self::MODULUS,
        Self::INV,
    );
    const TWO_ADIC_ROOT_MONT: [u64; N] = bigint::mont_pow(
        &Self::GENERATOR_MONT,
        &Self::TRACE,
        &Self::R,
        &Self::MODULUS,
        Self::INV,
    );
}

/// `v` as `N` little-endian limbs.
pub(crate) const fn small_limbs<const N: usize>(v: u64) -> [u64; N] {
    let mut l = [0u64; N];
    l[0] = v;
    l
}

/// Defines a Montgomery field type from its modulus (hex) and generator.
#[macro_export]
macro_rules! mont_field {
    ($(#[$doc:meta])* $name:ident, $config:ident, $limbs:literal, $modulus:literal, $generator:literal) => {
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $config;
        impl $crate::MontConfig<$limbs> for $config {
            const NAME: &'static str = stringify!($name);
            const MODULUS: [u64; $limbs] = $crate::bigint::from_hex::<$limbs>($modulus);
            const GENERATOR: u64 = $generator;
        }
        $(#[$doc])*
        pub type $name = $crate::Fp<$config, $limbs>;
    };
}
