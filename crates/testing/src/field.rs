//! Prime fields: the laws and encodings every [`PrimeField`] must satisfy (checked against
//! num-bigint), agreement with arkworks where the field has a counterpart, and the
//! Montgomery representation with its lazy-reduction bounds.
//!
//! * [`prime_field_tests!`](crate::prime_field_tests): any prime field.
//! * [`ark_field_tests!`](crate::ark_field_tests): a field with an arkworks counterpart.
//! * [`montgomery_field_tests!`](crate::montgomery_field_tests): a Montgomery field
//!   `Fp<P, N>`: the prime-field suite, its representation, lazy reduction and its NTT.

use std::collections::HashSet;

use ark_ff::{BigInteger, PrimeField as ArkPrimeField};
use fastzk_field::ark::ArkField;
use fastzk_field::{batch_inverse, ChordArith, FieldError, Fp, Legendre, MontConfig, PrimeField};
use num_bigint::BigUint;
use proptest::prelude::*;

use crate::check;
use crate::gen::{below, element, from_big, rng};

const CASES: u32 = 3000;

// ---------------------------------------------------------------------------------------
// Every prime field
// ---------------------------------------------------------------------------------------

/// The derived constants: the 2-adic root has order exactly `2^s`, the generator is a
/// non-residue, the sizes agree with the modulus.
pub fn constants<F: PrimeField>() {
    let p = F::modulus();
    assert_eq!(F::MODULUS_BITS as u64, p.bits());
    assert_eq!(F::BYTES, (p.bits() as usize).div_ceil(64) * 8);
    let s = F::TWO_ADICITY;
    assert!(((&p - 1u32) >> s).bit(0), "p − 1 = 2^s · odd");
    let w = F::two_adic_root_of_unity();
    assert_eq!(
        w.pow(&(BigUint::from(1u8) << (s - 1)).to_u64_digits()),
        -F::ONE
    );
    assert!(F::root_of_unity(s + 1).is_none());
    assert_eq!(F::root_of_unity(0), Some(F::ONE));
    assert_eq!(F::root_of_unity(s), Some(w));
    let g = F::multiplicative_generator();
    assert_eq!(g.legendre(), Legendre::QuadraticNonResidue);
    assert_eq!(w, g.pow(&((&p - 1u32) >> s).to_u64_digits()));
    assert_eq!(F::ONE.to_biguint(), BigUint::from(1u32));
    assert!(F::ZERO.is_zero() && F::ONE.is_one());
    assert_eq!(F::default(), F::ZERO);
}

pub fn inverse_of_zero<F: PrimeField>() {
    assert_eq!(F::ZERO.inverse(), None);
    assert_eq!(F::ONE.inverse(), Some(F::ONE));
    assert_eq!((-F::ONE).inverse(), Some(-F::ONE));
    assert_eq!(F::ZERO.sqrt(), Some(F::ZERO));
    assert_eq!(F::ZERO.legendre(), Legendre::Zero);
}

pub fn bytes_reject_non_canonical_and_wrong_length<F: PrimeField>() {
    let mut bytes = F::modulus().to_bytes_le();
    bytes.resize(F::BYTES, 0);
    assert_eq!(F::from_le_bytes(&bytes), Err(FieldError::NotCanonical));
    assert_eq!(
        F::from_le_bytes(&bytes[1..]),
        Err(FieldError::WrongLength {
            expected: F::BYTES,
            got: F::BYTES - 1
        })
    );
    assert_eq!(F::from_le_bytes_mod_order(&bytes), F::ZERO);
    assert_eq!(
        F::from_le_bytes(&vec![0xffu8; F::BYTES]),
        Err(FieldError::NotCanonical)
    );
    assert_eq!(
        F::from_biguint(&F::modulus()),
        Err(FieldError::NotCanonical)
    );
    assert_eq!(
        F::from_biguint_mod_order(&(F::modulus() + 5u32)),
        F::from_u64(5)
    );
}

pub fn batch_inverse_skips_zeros<F: PrimeField>() {
    let mut v: Vec<F> = (0..50u64).map(|i| F::from_u64(i * i)).collect();
    v.push(-F::ONE);
    let expect: Vec<F> = v.iter().map(|x| x.inverse().unwrap_or(F::ZERO)).collect();
    batch_inverse(&mut v);
    assert_eq!(v, expect);
    let mut empty: Vec<F> = vec![];
    batch_inverse(&mut empty);
    let mut zeros = vec![F::ZERO; 3];
    batch_inverse(&mut zeros);
    assert_eq!(zeros, vec![F::ZERO; 3]);
}

/// `+ − × x² 2x −x x/2` and the assigning forms against num-bigint.
pub fn ring_ops_match_bigint<F: PrimeField>() {
    check(CASES, None, (element::<F>(), element::<F>()), |(a, b)| {
        let (x, y): (F, F) = (from_big(&a), from_big(&b));
        let p = F::modulus();
        prop_assert_eq!((x + y).to_biguint(), (&a + &b) % &p);
        prop_assert_eq!((x - y).to_biguint(), (&a + &p - &b) % &p);
        prop_assert_eq!((x * y).to_biguint(), (&a * &b) % &p);
        prop_assert_eq!(x.square().to_biguint(), (&a * &a) % &p);
        prop_assert_eq!(x.double().to_biguint(), (&a << 1) % &p);
        prop_assert_eq!((-x).to_biguint(), (&p - &a) % &p);
        let mut z = x;
        z += y;
        z -= y;
        z *= y;
        prop_assert_eq!(z, x * y);
        prop_assert_eq!([x, y].into_iter().sum::<F>(), x + y);
        prop_assert_eq!([x, y].into_iter().product::<F>(), x * y);
        Ok(())
    });
}

/// Inverses and powers against num-bigint's `modpow`.
pub fn inverse_and_pow_match_bigint<F: PrimeField>() {
    check(
        CASES,
        None,
        (element::<F>(), any::<[u64; 2]>()),
        |(a, e)| {
            let x: F = from_big(&a);
            let p = F::modulus();
            match x.inverse() {
                None => prop_assert_eq!(&a, &BigUint::from(0u32)),
                Some(inv) => {
                    prop_assert_eq!(inv * x, F::ONE);
                    prop_assert_eq!(inv.to_biguint(), a.modpow(&(&p - 2u32), &p));
                }
            }
            let e_big = BigUint::from(e[0]) + (BigUint::from(e[1]) << 64);
            prop_assert_eq!(x.pow(&e).to_biguint(), a.modpow(&e_big, &p));
            prop_assert_eq!(
                x.pow_u64(e[0]).to_biguint(),
                a.modpow(&BigUint::from(e[0]), &p)
            );
            Ok(())
        },
    );
}

/// Square roots square back, exist exactly for residues (Euler's criterion), and every
/// square has one.
pub fn sqrt_and_legendre<F: PrimeField>() {
    check(CASES, None, element::<F>(), |a| {
        let x: F = from_big(&a);
        let p = F::modulus();
        let euler = a.modpow(&((&p - 1u32) >> 1), &p);
        let expect = if a == BigUint::from(0u32) {
            Legendre::Zero
        } else if euler == BigUint::from(1u32) {
            Legendre::QuadraticResidue
        } else {
            Legendre::QuadraticNonResidue
        };
        prop_assert_eq!(x.legendre(), expect);
        match x.sqrt() {
            Some(s) => prop_assert_eq!(s.square(), x),
            None => prop_assert_eq!(expect, Legendre::QuadraticNonResidue),
        }
        prop_assert_eq!(x.square().sqrt().map(|s| s.square()), Some(x.square()));
        Ok(())
    });
}

/// Canonical bytes, integers, `Display` and the order all agree.
pub fn bytes_round_trip<F: PrimeField>() {
    check(CASES, None, element::<F>(), |a| {
        let x: F = from_big(&a);
        let bytes = x.to_le_bytes();
        prop_assert_eq!(bytes.len(), F::BYTES);
        let mut want = a.to_bytes_le();
        want.resize(F::BYTES, 0);
        prop_assert_eq!(&bytes, &want);
        // Appending gives the same bytes after whatever was there.
        let mut appended = vec![0xa5];
        x.extend_le_bytes(&mut appended);
        prop_assert_eq!(&appended[1..], &want[..]);
        prop_assert_eq!(F::from_le_bytes(&bytes), Ok(x));
        prop_assert_eq!(x.to_biguint(), a.clone());
        prop_assert_eq!(format!("{x}"), a.to_string());
        let y: F = from_big(&(&a >> 1));
        prop_assert_eq!(x.cmp(&y), a.cmp(&(&a >> 1)));
        Ok(())
    });
}

/// `random` is uniform enough: in range, no repeats, the top limb used.
pub fn random_is_in_range_and_varies<F: PrimeField>() {
    let mut r = rng(7);
    let xs: Vec<F> = (0..1000).map(|_| F::random(&mut r)).collect();
    let p = F::modulus();
    assert!(xs.iter().all(|x| x.to_biguint() < p));
    assert_eq!(xs.iter().collect::<HashSet<_>>().len(), xs.len());
    assert!(xs.iter().any(|x| x.to_biguint() > (&p >> 1)));
}

/// The prime-field suite for `F`, in module `name`.
#[macro_export]
macro_rules! prime_field_tests {
    ($name:ident, $f:ty) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $crate::__tests!(
                $crate::field,
                [$f],
                constants,
                inverse_of_zero,
                bytes_reject_non_canonical_and_wrong_length,
                batch_inverse_skips_zeros,
                ring_ops_match_bigint,
                inverse_and_pow_match_bigint,
                sqrt_and_legendre,
                bytes_round_trip,
                random_is_in_range_and_varies,
            );
        }
    };
}

// ---------------------------------------------------------------------------------------
// Against arkworks
// ---------------------------------------------------------------------------------------

fn ark_of<F: PrimeField + ArkField>(v: &BigUint) -> F::Ark
where
    F::Ark: ArkPrimeField,
{
    F::Ark::from_le_bytes_mod_order(&v.to_bytes_le())
}

fn ark_to_big<A: ArkPrimeField>(a: &A) -> BigUint {
    BigUint::from_bytes_le(&a.into_bigint().to_bytes_le())
}

pub fn constants_match_arkworks<F: PrimeField + ArkField>()
where
    F::Ark: ArkPrimeField,
{
    assert_eq!(
        F::modulus(),
        BigUint::from_bytes_le(&F::Ark::MODULUS.to_bytes_le())
    );
    assert_eq!(F::MODULUS_BITS, F::Ark::MODULUS_BIT_SIZE);
    assert_eq!(F::TWO_ADICITY, <F::Ark as ark_ff::FftField>::TWO_ADICITY);
    assert_eq!(
        F::multiplicative_generator().to_biguint(),
        ark_to_big(&<F::Ark as ark_ff::FftField>::GENERATOR)
    );
    assert_eq!(
        F::two_adic_root_of_unity().to_biguint(),
        ark_to_big(&<F::Ark as ark_ff::FftField>::TWO_ADIC_ROOT_OF_UNITY)
    );
}

/// Every operation agrees with arkworks on the same values.
pub fn ops_match_arkworks<F: PrimeField + ArkField>()
where
    F::Ark: ArkPrimeField,
{
    use ark_ff::{AdditiveGroup, Field as _, LegendreSymbol};
    check(
        CASES,
        None,
        (element::<F>(), element::<F>(), any::<[u64; 2]>()),
        |(a, b, e)| {
            let (x, y): (F, F) = (from_big(&a), from_big(&b));
            let (ax, ay) = (ark_of::<F>(&a), ark_of::<F>(&b));
            let big = |v: F| v.to_biguint();
            prop_assert_eq!(big(x + y), ark_to_big(&(ax + ay)));
            prop_assert_eq!(big(x - y), ark_to_big(&(ax - ay)));
            prop_assert_eq!(big(x * y), ark_to_big(&(ax * ay)));
            prop_assert_eq!(big(x.square()), ark_to_big(&ax.square()));
            prop_assert_eq!(big(x.double()), ark_to_big(&ax.double()));
            prop_assert_eq!(big(-x), ark_to_big(&(-ax)));
            prop_assert_eq!(x.inverse().map(big), ax.inverse().map(|i| ark_to_big(&i)));
            prop_assert_eq!(big(x.pow(&e)), ark_to_big(&ax.pow(e)));
            let legendre = match ax.legendre() {
                LegendreSymbol::Zero => Legendre::Zero,
                LegendreSymbol::QuadraticResidue => Legendre::QuadraticResidue,
                LegendreSymbol::QuadraticNonResidue => Legendre::QuadraticNonResidue,
            };
            prop_assert_eq!(x.legendre(), legendre);
            prop_assert_eq!(x.sqrt().is_some(), ax.sqrt().is_some());
            prop_assert_eq!(
                &x.to_le_bytes(),
                &ax.into_bigint().to_bytes_le()[..F::BYTES]
            );
            Ok(())
        },
    );
}

/// `to_ark`/`from_ark` are inverse and preserve the value.
pub fn conversion_round_trips<F: PrimeField + ArkField>()
where
    F::Ark: ArkPrimeField,
{
    check(CASES, None, element::<F>(), |a| {
        let x: F = from_big(&a);
        let ax = x.to_ark();
        prop_assert_eq!(ax, ark_of::<F>(&a));
        prop_assert_eq!(F::from_ark(ax), x);
        Ok(())
    });
}

/// The arkworks cross-checks for `F`, in module `name`.
#[macro_export]
macro_rules! ark_field_tests {
    ($name:ident, $f:ty) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $crate::__tests!(
                $crate::field,
                [$f],
                constants_match_arkworks,
                ops_match_arkworks,
                conversion_round_trips,
            );
        }
    };
}

// ---------------------------------------------------------------------------------------
// Montgomery fields
// ---------------------------------------------------------------------------------------

/// What the Montgomery suites need of `Fp<P, N>`, with limbs as slices so the suites
/// are generic over the limb count.
pub trait MontField: PrimeField {
    /// Unused top bits of `R` above the modulus.
    fn spare_bits() -> u32;
    fn montgomery_limbs_vec(&self) -> Vec<u64>;
    /// Wraps Montgomery limbs without checking them.
    fn from_limbs_unchecked(l: &[u64]) -> Self;
    fn from_limbs_checked(l: &[u64]) -> Result<Self, FieldError>;
    fn from_canonical(l: &[u64]) -> Result<Self, FieldError>;
    fn canonical_limbs(&self) -> Vec<u64>;
    fn from_hex_str(s: &str) -> Self;
    fn to_be(&self) -> Vec<u8>;
    fn from_be(b: &[u8]) -> Result<Self, FieldError>;
    fn to_mont_bytes(&self) -> Vec<u8>;
    fn from_mont_bytes(b: &[u8]) -> Result<Self, FieldError>;
    fn mul_portable(&self, o: &Self) -> Self;
    fn mul_lazy(&self, o: &Self) -> Self;
    fn mul_lazy_portable(&self, o: &Self) -> Self;
    /// The MULX/ADX product where the CPU runs it.
    fn mul_lazy_adx(&self, o: &Self) -> Option<Self>;
    fn square_lazy(&self) -> Self;
    fn add_lazy(&self, o: &Self) -> Self;
    fn sub_lazy(&self, o: &Self) -> Self;
    fn reduce_below_2p(&self) -> Self;
    fn reduce_below_p(&self) -> Self;
    fn canonicalize_lazy(&self) -> Self;
    fn half(&self) -> Self;
}

impl<P: MontConfig<N>, const N: usize> MontField for Fp<P, N> {
    fn spare_bits() -> u32 {
        Self::SPARE_BITS
    }
    fn montgomery_limbs_vec(&self) -> Vec<u64> {
        self.montgomery_limbs().to_vec()
    }
    fn from_limbs_unchecked(l: &[u64]) -> Self {
        Self::from_montgomery_limbs_unchecked(l.try_into().expect("N limbs"))
    }
    fn from_limbs_checked(l: &[u64]) -> Result<Self, FieldError> {
        Self::from_montgomery_limbs(l.try_into().expect("N limbs"))
    }
    fn from_canonical(l: &[u64]) -> Result<Self, FieldError> {
        Self::from_canonical_limbs(l.try_into().expect("N limbs"))
    }
    fn canonical_limbs(&self) -> Vec<u64> {
        self.to_canonical_limbs().to_vec()
    }
    fn from_hex_str(s: &str) -> Self {
        Self::from_hex(s)
    }
    fn to_be(&self) -> Vec<u8> {
        let mut out = vec![0u8; 8 * N];
        self.write_be_bytes(&mut out);
        out
    }
    fn from_be(b: &[u8]) -> Result<Self, FieldError> {
        Self::from_be_bytes(b)
    }
    fn to_mont_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; 8 * N];
        self.write_montgomery_bytes(&mut out);
        out
    }
    fn from_mont_bytes(b: &[u8]) -> Result<Self, FieldError> {
        Self::from_montgomery_bytes(b)
    }
    fn mul_portable(&self, o: &Self) -> Self {
        Fp::mul_portable(self, o)
    }
    fn mul_lazy(&self, o: &Self) -> Self {
        Fp::mul_lazy(self, o)
    }
    fn mul_lazy_portable(&self, o: &Self) -> Self {
        Fp::mul_lazy_portable(self, o)
    }
    fn mul_lazy_adx(&self, o: &Self) -> Option<Self> {
        // SAFETY: only called when `cpu::adx()` found BMI2 and ADX.
        fastzk_field::cpu::adx().then(|| unsafe { Fp::mul_lazy_adx(self, o) })
    }
    fn square_lazy(&self) -> Self {
        Fp::square_lazy(self)
    }
    fn add_lazy(&self, o: &Self) -> Self {
        Fp::add_lazy(self, o)
    }
    fn sub_lazy(&self, o: &Self) -> Self {
        Fp::sub_lazy(self, o)
    }
    fn reduce_below_2p(&self) -> Self {
        Fp::reduce_below_2p(self)
    }
    fn reduce_below_p(&self) -> Self {
        Fp::reduce_below_p(self)
    }
    fn canonicalize_lazy(&self) -> Self {
        Fp::canonicalize_lazy(self)
    }
    fn half(&self) -> Self {
        Fp::half(self)
    }
}

fn limbs_to_big(l: &[u64]) -> BigUint {
    BigUint::from_slice(
        &l.iter()
            .flat_map(|&w| [w as u32, (w >> 32) as u32])
            .collect::<Vec<_>>(),
    )
}

fn big_to_limbs<F: MontField>(v: &BigUint) -> Vec<u64> {
    let n = F::BYTES / 8;
    assert!(v.bits() <= 64 * n as u64);
    let mut out = v.to_u64_digits();
    out.resize(n, 0);
    out
}

/// The element whose Montgomery limbs are `v` (any `v < R`, unreduced).
fn raw<F: MontField>(v: &BigUint) -> F {
    F::from_limbs_unchecked(&big_to_limbs::<F>(v))
}

fn raw_big<F: MontField>(x: &F) -> BigUint {
    limbs_to_big(&x.montgomery_limbs_vec())
}

/// `R = 2^(64·N)`.
fn r_of<F: MontField>() -> BigUint {
    BigUint::from(1u8) << (8 * F::BYTES)
}

/// The canonical element with Montgomery limbs `v mod p`.
fn canon<F: MontField>(v: &BigUint) -> F {
    raw(&(v % F::modulus()))
}

/// The largest lazy range: `[0, 4p)` with two spare bits, else `[0, 2p)`.
fn lazy_bound<F: MontField>() -> BigUint {
    F::modulus() * if F::spare_bits() >= 2 { 4u32 } else { 2u32 }
}

/// The representation: Montgomery limbs (checked and unchecked), canonical limbs,
/// big-endian and Montgomery bytes, hex constants, halving, the portable product.
pub fn montgomery_representation<F: MontField>() {
    let p = F::modulus();
    let p_limbs = big_to_limbs::<F>(&p);
    assert_eq!(
        F::from_limbs_checked(&p_limbs),
        Err(FieldError::NotCanonical)
    );
    assert_eq!(F::from_canonical(&p_limbs), Err(FieldError::NotCanonical));
    let pm1 = (-F::ONE).montgomery_limbs_vec();
    assert_eq!(F::from_limbs_checked(&pm1), Ok(-F::ONE));
    assert_eq!(F::from_hex_str(&format!("{:x}", &p - 1u32)), -F::ONE);
    assert_eq!(F::from_hex_str("0x1234_5678"), F::from_u64(0x1234_5678));
    check(CASES, None, (element::<F>(), element::<F>()), |(a, b)| {
        let (x, y): (F, F) = (from_big(&a), from_big(&b));
        prop_assert_eq!(x.mul_portable(&y), x * y);
        prop_assert_eq!(x.mul_portable(&x), x.square());
        prop_assert_eq!(x.half().double(), x);
        prop_assert_eq!(limbs_to_big(&x.canonical_limbs()), a.clone());
        prop_assert_eq!(F::from_canonical(&x.canonical_limbs()), Ok(x));
        // Montgomery form: the limbs hold a·R mod p.
        prop_assert_eq!(raw_big(&x), (&a * r_of::<F>()) % &p);
        let be = x.to_be();
        let mut want = a.to_bytes_be();
        while want.len() < F::BYTES {
            want.insert(0, 0);
        }
        prop_assert_eq!(&be, &want);
        prop_assert_eq!(F::from_be(&be), Ok(x));
        prop_assert_eq!(F::from_mont_bytes(&x.to_mont_bytes()), Ok(x));
        prop_assert_eq!(F::from_hex_str(&format!("{a:x}")), x);
        Ok(())
    });
    let mut p_be = p.to_bytes_be();
    while p_be.len() < F::BYTES {
        p_be.insert(0, 0);
    }
    assert_eq!(F::from_be(&p_be), Err(FieldError::NotCanonical));
    assert!(F::from_mont_bytes(&[0u8; 3]).is_err());
}

pub fn lazy_constants<F: MontField>() {
    let p = F::modulus();
    assert_eq!(F::spare_bits(), 8 * F::BYTES as u32 - F::MODULUS_BITS);
    assert!(&p << F::spare_bits() < r_of::<F>());
}

/// `mul_lazy(x, y)` for canonical `y` and any `x < R`: below `2p` and equal to `x·y`
/// after reduction, on both backends.
pub fn mul_lazy_bound<F: MontField>() {
    let p = F::modulus();
    check(
        4000,
        None,
        (below(p.clone(), r_of::<F>()), below(p.clone(), p.clone())),
        |(x, y)| {
            let (lx, cy): (F, F) = (raw(&x), raw(&y));
            let m = lx.mul_lazy(&cy);
            prop_assert!(raw_big(&m) < F::modulus() * 2u32);
            prop_assert_eq!(m.reduce_below_p(), canon::<F>(&x) * cy);
            prop_assert_eq!(lx.mul_lazy_portable(&cy), m);
            if let Some(adx) = lx.mul_lazy_adx(&cy) {
                prop_assert_eq!(adx, m);
            }
            Ok(())
        },
    );
}

/// `square_lazy(x)` for `x` below `2p` (two spare bits; below `p` otherwise): below `2p`
/// and, reduced, the portable product `x·x`; `square` of the canonical element equals it.
/// (On four limbs with MULX/ADX the squaring is its own assembly, not the product's.)
pub fn square_lazy_bound<F: MontField>() {
    let p = F::modulus();
    let bound = if F::spare_bits() >= 2 {
        &p * 2u32
    } else {
        p.clone()
    };
    check(4000, None, below(p, bound), |x| {
        let s = raw::<F>(&x).square_lazy();
        prop_assert!(raw_big(&s) < F::modulus() * 2u32);
        let c = canon::<F>(&x);
        let want = c.mul_portable(&c);
        prop_assert_eq!(s.reduce_below_p(), want);
        prop_assert_eq!(c.square(), want);
        Ok(())
    });
}

/// Both operands below `2p` (two spare bits): still below `2p`.
pub fn mul_lazy_both_unreduced<F: MontField>() {
    if F::spare_bits() < 2 {
        return;
    }
    let p = F::modulus();
    let two_p = &p * 2u32;
    check(
        4000,
        None,
        (below(p.clone(), two_p.clone()), below(p, two_p)),
        |(x, y)| {
            let m = raw::<F>(&x).mul_lazy_portable(&raw(&y));
            prop_assert!(raw_big(&m) < F::modulus() * 2u32);
            prop_assert_eq!(m.reduce_below_p(), canon::<F>(&x) * canon::<F>(&y));
            Ok(())
        },
    );
}

/// Additions and subtractions within the lazy range, and the reductions.
pub fn add_sub_reduce<F: MontField>() {
    let p = F::modulus();
    let two_p = &p * 2u32;
    check(
        4000,
        None,
        (
            below(p.clone(), two_p.clone()),
            below(p.clone(), two_p.clone()),
            below(p.clone(), lazy_bound::<F>()),
        ),
        |(x, y, z)| {
            let p = F::modulus();
            let (lx, ly, lz): (F, F, F) = (raw(&x), raw(&y), raw(&z));
            let (cx, cy): (F, F) = (canon(&x), canon(&y));
            // sub_lazy: x + 2p − y < 4p for x < 2p (needs two spare bits).
            if F::spare_bits() >= 2 {
                let d = lx.sub_lazy(&ly);
                prop_assert!(raw_big(&d) <= raw_big(&lx) + &p * 2u32);
                prop_assert!(raw_big(&d) < &p * 4u32);
                prop_assert_eq!(d.canonicalize_lazy(), cx - cy);
            }
            // add_lazy: x + y < 4p for x, y < 2p (two spare bits), < 2p for x, y < p.
            let (ax, ay) = if F::spare_bits() >= 2 {
                (lx, ly)
            } else {
                (cx, cy)
            };
            let s = ax.add_lazy(&ay);
            prop_assert_eq!(raw_big(&s), raw_big(&ax) + raw_big(&ay));
            prop_assert_eq!(s.canonicalize_lazy(), cx + cy);
            // Reductions: [0, 4p) → [0, 2p) → [0, p), staying congruent.
            let h = lz.reduce_below_2p();
            if F::spare_bits() >= 2 || z < &p * 2u32 {
                prop_assert!(raw_big(&h) < &p * 2u32);
                prop_assert_eq!(raw_big(&h) % &p, &z % &p);
                prop_assert_eq!(h.reduce_below_p(), canon::<F>(&z));
                prop_assert_eq!(lz.canonicalize_lazy(), canon::<F>(&z));
            }
            prop_assert_eq!(lx.reduce_below_p(), cx);
            Ok(())
        },
    );
}

/// One radix-2 CT butterfly chained over several levels stays in `[0, 4p)` and matches
/// the reduced butterfly (what the lazy NTT relies on).
pub fn harvey_butterfly_levels<F: MontField>() {
    if F::spare_bits() < 2 {
        return;
    }
    let p = F::modulus();
    let e = || below(p.clone(), p.clone());
    check(4000, None, (e(), e(), e()), |(x, y, s)| {
        let s: F = raw(&s);
        let (mut lx, mut ly): (F, F) = (raw(&x), raw(&y));
        let (mut rx, mut ry): (F, F) = (raw(&x), raw(&y));
        let four_p = F::modulus() * 4u32;
        for _ in 0..8 {
            let u = lx.reduce_below_2p();
            let t = ly.mul_lazy(&s);
            (lx, ly) = (u.add_lazy(&t), u.sub_lazy(&t));
            prop_assert!(raw_big(&lx) < four_p && raw_big(&ly) < four_p);
            let v = ry * s;
            (rx, ry) = (rx + v, rx - v);
            prop_assert_eq!(lx.canonicalize_lazy(), rx);
            prop_assert_eq!(ly.canonicalize_lazy(), ry);
        }
        Ok(())
    });
}

/// The batch-affine chord's arithmetic ([`ChordArith`]): chain products of unreduced
/// values stay below `2p` (two spare bits) and congruent, `settle` gives the canonical
/// element, and the chord from any representative of `d⁻¹` (canonical or `+ p`) equals
/// the exact formula, canonical. Raw-limb equality, so a non-canonical result fails.
pub fn chord_arith<F: MontField + ChordArith>() {
    let p = F::modulus();
    let two_p = &p * 2u32;
    let e = || element::<F>();
    check(
        4000,
        None,
        (below(p.clone(), two_p.clone()), below(p.clone(), two_p)),
        |(x, y)| {
            let (lx, ly): (F, F) = (raw(&x), raw(&y));
            let m = lx.chain_mul(&ly);
            let bound = if F::spare_bits() >= 2 { 2u32 } else { 1u32 };
            if F::spare_bits() >= 2 || (x < p && y < p) {
                prop_assert!(raw_big(&m) < F::modulus() * bound);
                prop_assert_eq!(m.settle(), canon::<F>(&x) * canon::<F>(&y));
            }
            Ok(())
        },
    );
    check(
        4000,
        None,
        (e(), e(), e(), e(), any::<bool>()),
        |(x1, y1, x2, y2, loose)| {
            let [x1, y1, x2, y2]: [F; 4] = [&x1, &y1, &x2, &y2].map(from_big);
            let Some(dinv) = (x2 - x1).inverse() else {
                return Ok(());
            };
            // The same class with limbs `d⁻¹ + p` (still below `2p`), as a chain leaves it.
            let shifted = raw_big(&dinv) + &F::modulus();
            let dinv_in = if loose && F::spare_bits() >= 2 && shifted < F::modulus() * 2u32 {
                raw::<F>(&shifted)
            } else {
                dinv
            };
            let lambda = (y2 - y1) * dinv;
            let want_x = lambda.square() - x1 - x2;
            let want_y = lambda * (x1 - want_x) - y1;
            let (gx, gy) = F::chord(&x1, &y1, &x2, &y2, &dinv_in);
            prop_assert_eq!(raw_big(&gx), raw_big(&want_x));
            prop_assert_eq!(raw_big(&gy), raw_big(&want_y));
            Ok(())
        },
    );
}

/// The whole suite for a Montgomery field `Fp<P, N>` in one line: the prime-field laws
/// and encodings (against num-bigint), the Montgomery representation and lazy-reduction
/// bounds, and its NTT against the naive DFT.
#[macro_export]
macro_rules! montgomery_field_tests {
    ($name:ident, $f:ty) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $crate::prime_field_tests!(field, $f);
            $crate::ntt_tests!(ntt, $f);
            mod montgomery {
                #[allow(unused_imports)]
                use super::*;
                $crate::__tests!(
                    $crate::field,
                    [$f],
                    montgomery_representation,
                    lazy_constants,
                    mul_lazy_bound,
                    mul_lazy_both_unreduced,
                    square_lazy_bound,
                    add_sub_reduce,
                    harvey_butterfly_levels,
                    chord_arith,
                );
            }
        }
    };
}
