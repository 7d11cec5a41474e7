//! `const fn` multi-precision helpers, used to derive every Montgomery constant at compile
//! time from the modulus alone (so a field is defined by its modulus and generator).

/// `a + b + carry` (carry ∈ {0, 1}), returning (sum, carry). Written with
/// `overflowing_add` so LLVM emits one `adc` per limb.
#[inline(always)]
pub const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let (s1, c1) = a.overflowing_add(b);
    let (s2, c2) = s1.overflowing_add(carry);
    (s2, (c1 | c2) as u64)
}

/// `a - b - borrow` (borrow ∈ {0, 1}), returning (difference, borrow); one `sbb` per limb.
#[inline(always)]
pub const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let (d1, b1) = a.overflowing_sub(b);
    let (d2, b2) = d1.overflowing_sub(borrow);
    (d2, (b1 | b2) as u64)
}

/// `a + b * c + carry`, returning (low, high). Never overflows 128 bits.
#[inline(always)]
pub const fn mac(a: u64, b: u64, c: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + (b as u128) * (c as u128) + carry as u128;
    (t as u64, (t >> 64) as u64)
}

pub const fn geq<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    let mut i = N;
    while i > 0 {
        i -= 1;
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}

pub const fn is_zero<const N: usize>(a: &[u64; N]) -> bool {
    let mut i = 0;
    while i < N {
        if a[i] != 0 {
            return false;
        }
        i += 1;
    }
    true
}

/// `a - b` (wrapping), with the final borrow.
pub const fn sub<const N: usize>(a: &[u64; N], b: &[u64; N]) -> ([u64; N], u64) {
    let mut r = [0u64; N];
    let mut borrow = 0;
    let mut i = 0;
    while i < N {
        let (d, b2) = sbb(a[i], b[i], borrow);
        r[i] = d;
        borrow = b2;
        i += 1;
    }
    (r, borrow)
}

/// `a + b` (wrapping), with the final carry.
pub const fn add<const N: usize>(a: &[u64; N], b: &[u64; N]) -> ([u64; N], u64) {
    let mut r = [0u64; N];
    let mut carry = 0;
    let mut i = 0;
    while i < N {
        let (s, c) = adc(a[i], b[i], carry);
        r[i] = s;
        carry = c;
        i += 1;
    }
    (r, carry)
}

pub const fn shr1<const N: usize>(a: &[u64; N]) -> [u64; N] {
    let mut r = [0u64; N];
    let mut i = 0;
    while i < N {
        r[i] = a[i] >> 1;
        if i + 1 < N {
            r[i] |= a[i + 1] << 63;
        }
        i += 1;
    }
    r
}

pub const fn shr<const N: usize>(a: &[u64; N], s: u32) -> [u64; N] {
    let mut r = *a;
    let mut k = 0;
    while k < s {
        r = shr1(&r);
        k += 1;
    }
    r
}

pub const fn num_bits<const N: usize>(a: &[u64; N]) -> u32 {
    let mut i = N;
    while i > 0 {
        i -= 1;
        if a[i] != 0 {
            return 64 * i as u32 + 64 - a[i].leading_zeros();
        }
    }
    0
}

pub const fn trailing_zeros<const N: usize>(a: &[u64; N]) -> u32 {
    let mut i = 0;
    while i < N {
        if a[i] != 0 {
            return 64 * i as u32 + a[i].trailing_zeros();
        }
        i += 1;
    }
    64 * N as u32
}

/// `(2 * a) mod m` for `a < m`.
const fn double_mod<const N: usize>(a: &[u64; N], m: &[u64; N]) -> [u64; N] {
    let (d, carry) = add(a, a);
    if carry == 1 || geq(&d, m) {
        sub(&d, m).0
    } else {
        d
    }
}

/// `2^(64·N) mod m`, i.e. Montgomery's R.
pub const fn r_mod<const N: usize>(m: &[u64; N]) -> [u64; N] {
    let mut one = [0u64; N];
    one[0] = 1;
    let mut r = one;
    let mut k = 0;
    while k < 64 * N {
        r = double_mod(&r, m);
        k += 1;
    }
    r
}

/// `R^2 mod m`.
pub const fn r2_mod<const N: usize>(m: &[u64; N]) -> [u64; N] {
    let mut r = r_mod(m);
    let mut k = 0;
    while k < 64 * N {
        r = double_mod(&r, m);
        k += 1;
    }
    r
}

/// `-m^{-1} mod 2^64` (m odd), by Newton iteration.
pub const fn mont_inv(m0: u64) -> u64 {
    let mut inv = 1u64;
    let mut k = 0;
    while k < 63 {
        inv = inv.wrapping_mul(inv);
        inv = inv.wrapping_mul(m0);
        k += 1;
    }
    inv.wrapping_neg()
}

/// Montgomery product `a·b·R^{-1} mod m` (plain CIOS with a full carry word; for constants).
pub const fn mont_mul<const N: usize>(
    a: &[u64; N],
    b: &[u64; N],
    m: &[u64; N],
    inv: u64,
) -> [u64; N] {
    let mut t = [0u64; N];
    let mut t_hi = 0u64;
    let mut i = 0;
    while i < N {
        let mut carry = 0;
        let mut j = 0;
        while j < N {
            let (lo, hi) = mac(t[j], a[j], b[i], carry);
            t[j] = lo;
            carry = hi;
            j += 1;
        }
        let (s, top) = adc(t_hi, carry, 0);
        let k = t[0].wrapping_mul(inv);
        let (_, mut carry) = mac(t[0], k, m[0], 0);
        let mut j = 1;
        while j < N {
            let (lo, hi) = mac(t[j], k, m[j], carry);
            t[j - 1] = lo;
            carry = hi;
            j += 1;
        }
        let (s2, top2) = adc(s, carry, 0);
        t[N - 1] = s2;
        t_hi = top + top2;
        i += 1;
    }
    if t_hi != 0 || geq(&t, m) {
        sub(&t, m).0
    } else {
        t
    }
}

/// `base^exp` in Montgomery form (`one` is R mod m).
pub const fn mont_pow<const N: usize>(
    base: &[u64; N],
    exp: &[u64; N],
    one: &[u64; N],
    m: &[u64; N],
    inv: u64,
) -> [u64; N] {
    let mut acc = *one;
    let mut i = 64 * N;
    while i > 0 {
        i -= 1;
        acc = mont_mul(&acc, &acc, m, inv);
        if (exp[i / 64] >> (i % 64)) & 1 == 1 {
            acc = mont_mul(&acc, base, m, inv);
        }
    }
    acc
}

/// Parses a big-endian hex string (optional `0x`, `_` separators allowed) into LE limbs.
/// Panics (at compile time when used in a constant) on bad digits or overflow.
pub const fn from_hex<const N: usize>(s: &str) -> [u64; N] {
    let bytes = s.as_bytes();
    let mut start = 0;
    if bytes.len() >= 2 && bytes[0] == b'0' && (bytes[1] == b'x' || bytes[1] == b'X') {
        start = 2;
    }
    let mut r = [0u64; N];
    let mut nibble = 0usize;
    let mut i = bytes.len();
    while i > start {
        i -= 1;
        let c = bytes[i];
        let v = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            b'_' => continue,
            _ => panic!("invalid hex digit"),
        } as u64;
        if v != 0 {
            assert!(nibble < 16 * N, "hex value too large");
            r[nibble / 16] |= v << (4 * (nibble % 16));
        }
        nibble += 1;
    }
    r
}
