//! Coordinates as bytes: the prime fields `Fp` and their quadratic extensions, in the
//! three layouts the encodings use (canonical little-endian, canonical big-endian,
//! Montgomery little-endian). The prime-field cases are `Fp`'s own byte codecs.

use fastzk_field::{Field, FieldError, Fp, MontConfig, PrimeField, QuadExt, QuadExtConfig};

mod sealed {
    pub trait Sealed {}
    impl<P: fastzk_field::MontConfig<N>, const N: usize> Sealed for fastzk_field::Fp<P, N> {}
    impl<C: fastzk_field::QuadExtConfig> Sealed for fastzk_field::QuadExt<C> {}
}

/// A coordinate field whose elements have fixed-size byte representations: the prime
/// fields `Fp` and their quadratic extensions. Sealed; used by the encodings.
pub trait Coordinate: Field + sealed::Sealed {
    /// Bytes of one prime-field component.
    const COMPONENT_BYTES: usize;
    /// Number of prime-field components (1 for `Fq`, 2 for `Fq2`).
    const DEGREE: usize;
    /// Bit length of the prime modulus (how many top bits are free for flags).
    const MODULUS_BITS: u32;
    /// `COMPONENT_BYTES · DEGREE`.
    const SIZE: usize = Self::COMPONENT_BYTES * Self::DEGREE;

    /// Canonical little-endian, lowest-degree component first. `out.len() == SIZE`.
    fn write_le(&self, out: &mut [u8]);
    /// Inverse of [`Coordinate::write_le`]; rejects components `≥ p`.
    fn read_le(bytes: &[u8]) -> Result<Self, FieldError>;
    /// Canonical big-endian, highest-degree component first. `out.len() == SIZE`.
    fn write_be(&self, out: &mut [u8]);
    /// Inverse of [`Coordinate::write_be`]; rejects components `≥ p`.
    fn read_be(bytes: &[u8]) -> Result<Self, FieldError>;
    /// Montgomery form, little-endian, lowest-degree component first.
    fn write_le_mont(&self, out: &mut [u8]);
    /// Inverse of [`Coordinate::write_le_mont`]; rejects components `≥ p`.
    fn read_le_mont(bytes: &[u8]) -> Result<Self, FieldError>;
    /// `self > −self`, comparing canonical integers (highest-degree non-zero component
    /// decides). False for zero.
    fn is_lexicographically_largest(&self) -> bool;
}

impl<P: MontConfig<N>, const N: usize> Coordinate for Fp<P, N> {
    const COMPONENT_BYTES: usize = 8 * N;
    const DEGREE: usize = 1;
    const MODULUS_BITS: u32 = <Self as PrimeField>::MODULUS_BITS;

    fn write_le(&self, out: &mut [u8]) {
        self.write_le_bytes(out)
    }
    fn read_le(bytes: &[u8]) -> Result<Self, FieldError> {
        <Self as PrimeField>::from_le_bytes(bytes)
    }
    fn write_be(&self, out: &mut [u8]) {
        self.write_be_bytes(out)
    }
    fn read_be(bytes: &[u8]) -> Result<Self, FieldError> {
        Self::from_be_bytes(bytes)
    }
    fn write_le_mont(&self, out: &mut [u8]) {
        self.write_montgomery_bytes(out)
    }
    fn read_le_mont(bytes: &[u8]) -> Result<Self, FieldError> {
        Self::from_montgomery_bytes(bytes)
    }
    fn is_lexicographically_largest(&self) -> bool {
        *self > -*self
    }
}

impl<C: QuadExtConfig> Coordinate for QuadExt<C>
where
    C::Base: Coordinate,
{
    const COMPONENT_BYTES: usize = <C::Base as Coordinate>::COMPONENT_BYTES;
    const DEGREE: usize = 2 * <C::Base as Coordinate>::DEGREE;
    const MODULUS_BITS: u32 = <C::Base as Coordinate>::MODULUS_BITS;

    fn write_le(&self, out: &mut [u8]) {
        let (lo, hi) = out.split_at_mut(<C::Base as Coordinate>::SIZE);
        self.c0.write_le(lo);
        self.c1.write_le(hi);
    }
    fn read_le(bytes: &[u8]) -> Result<Self, FieldError> {
        let (lo, hi) = halves(bytes, Self::SIZE)?;
        Ok(Self::new(C::Base::read_le(lo)?, C::Base::read_le(hi)?))
    }
    fn write_be(&self, out: &mut [u8]) {
        let (hi, lo) = out.split_at_mut(<C::Base as Coordinate>::SIZE);
        self.c1.write_be(hi);
        self.c0.write_be(lo);
    }
    fn read_be(bytes: &[u8]) -> Result<Self, FieldError> {
        let (hi, lo) = halves(bytes, Self::SIZE)?;
        Ok(Self::new(C::Base::read_be(lo)?, C::Base::read_be(hi)?))
    }
    fn write_le_mont(&self, out: &mut [u8]) {
        let (lo, hi) = out.split_at_mut(<C::Base as Coordinate>::SIZE);
        self.c0.write_le_mont(lo);
        self.c1.write_le_mont(hi);
    }
    fn read_le_mont(bytes: &[u8]) -> Result<Self, FieldError> {
        let (lo, hi) = halves(bytes, Self::SIZE)?;
        Ok(Self::new(
            C::Base::read_le_mont(lo)?,
            C::Base::read_le_mont(hi)?,
        ))
    }
    fn is_lexicographically_largest(&self) -> bool {
        if self.c1.is_zero() {
            self.c0.is_lexicographically_largest()
        } else {
            self.c1.is_lexicographically_largest()
        }
    }
}

/// `bytes` (exactly `size` long) cut in two equal halves.
fn halves(bytes: &[u8], size: usize) -> Result<(&[u8], &[u8]), FieldError> {
    if bytes.len() != size {
        return Err(FieldError::WrongLength {
            expected: size,
            got: bytes.len(),
        });
    }
    Ok(bytes.split_at(size / 2))
}
