//! Point encodings: round trips, byte equality with arkworks 0.5, snarkjs/ffjavascript
//! reference vectors (tests/vectors/snarkjs.json, from gen_snarkjs_vectors.mjs), and
//! rejection of every kind of malformed input without panicking.

use ark_ec::short_weierstrass::{Affine as ArkAffine, SWCurveConfig};
use ark_ff::PrimeField as ArkPrimeField;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use fastzk_curve::serialize::{
    AffineSerializeExt, ArkCompressed, ArkUncompressed, Coordinate, PointEncoding,
    SerializableCurve, SerializeError, SnarkjsCompressed, SnarkjsLem, SnarkjsUncompressed,
    Validate,
};
use fastzk_curve::{bls12_381, bn254, Affine, CurveConfig};
use fastzk_field::{Field, PrimeField};
use num_bigint::BigUint;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const CASES: u32 = 1000;
const FUZZ_CASES: u32 = 1024;

fn config(cases: u32, seed: u64) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Which byte of an encoding holds flags, and which bits (for rebuilding flags after
/// overwriting a coordinate in the negative tests).
#[derive(Clone, Copy)]
enum FlagPos {
    None,
    First(u8),
    Last(u8),
}

#[derive(Clone, Copy, PartialEq)]
enum Endian {
    Le,
    Be,
    LeMont,
}

/// One encoding, type-erased for the table-driven tests.
struct Enc<C: SerializableCurve> {
    name: &'static str,
    len: usize,
    compressed: bool,
    endian: Endian,
    flags: FlagPos,
    encode: fn(&Affine<C>) -> Vec<u8>,
    decode: fn(&[u8], Validate) -> Result<Affine<C>, SerializeError>,
    encode_into: fn(&Affine<C>, &mut [u8]) -> Result<(), SerializeError>,
}

fn enc<C: SerializableCurve, E: PointEncoding<C>>(
    compressed: bool,
    endian: Endian,
    flags: FlagPos,
) -> Enc<C> {
    Enc {
        name: E::NAME,
        len: E::ENCODED_LEN,
        compressed,
        endian,
        flags,
        encode: E::encode,
        decode: E::decode,
        encode_into: E::encode_into,
    }
}

fn encodings<C: SerializableCurve>(zcash: bool) -> Vec<Enc<C>> {
    let (ark_endian, ark_c, ark_u) = if zcash {
        (Endian::Be, FlagPos::First(0xe0), FlagPos::First(0xe0))
    } else {
        (Endian::Le, FlagPos::Last(0xc0), FlagPos::Last(0xc0))
    };
    vec![
        enc::<C, ArkCompressed>(true, ark_endian, ark_c),
        enc::<C, ArkUncompressed>(false, ark_endian, ark_u),
        enc::<C, SnarkjsLem>(false, Endian::LeMont, FlagPos::None),
        enc::<C, SnarkjsUncompressed>(false, Endian::Be, FlagPos::None),
        enc::<C, SnarkjsCompressed>(true, Endian::Be, FlagPos::First(0xc0)),
    ]
}

fn hex_decode(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2));
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn modulus_bytes<C: SerializableCurve>(endian: Endian) -> Vec<u8> {
    let cb = <C::Base as Coordinate>::COMPONENT_BYTES;
    // The prime modulus of the base prime field: p = (p - 1) + 1 computed via -1.
    let mut le = prime_modulus_le::<C>();
    le.resize(cb, 0);
    if endian == Endian::Be {
        le.reverse();
    }
    le
}

/// Little-endian bytes of the base prime field's modulus.
fn prime_modulus_le<C: SerializableCurve>() -> Vec<u8> {
    // -1 in the base field, written canonically, has c0 = p - 1.
    let mut buf = vec![0u8; <C::Base as Coordinate>::SIZE];
    (-C::Base::ONE).write_le(&mut buf);
    let cb = <C::Base as Coordinate>::COMPONENT_BYTES;
    let p_minus_1 = BigUint::from_bytes_le(&buf[..cb]);
    (p_minus_1 + 1u32).to_bytes_le()
}

/// An on-curve point found by scanning x; `in_subgroup` selects which kind is wanted.
fn scan_points<C: SerializableCurve>(
    mk_x: impl Fn(u64) -> C::Base,
) -> impl Iterator<Item = Affine<C>> {
    (1u64..).filter_map(move |i| {
        let x = mk_x(i);
        let rhs = x.square() * x + C::COEFF_B;
        rhs.sqrt()
            .filter(|y| y.square() == rhs)
            .map(|y| Affine::new_unchecked(x, y))
    })
}

fn non_residue_x<C: SerializableCurve>(mk_x: impl Fn(u64) -> C::Base) -> C::Base {
    (1u64..)
        .map(&mk_x)
        .find(|x| {
            let rhs = x.square() * *x + C::COEFF_B;
            rhs.sqrt().filter(|y| y.square() == rhs).is_none()
        })
        .expect("some x has no square root")
}

/// Decode → re-encode must reproduce the input exactly, except for the one documented
/// alias (snarkjs uncompressed infinity as `0x40 ‖ 0…`).
fn assert_canonical<C: SerializableCurve>(e: &Enc<C>, bytes: &[u8], p: &Affine<C>) {
    let again = (e.encode)(p);
    let alias = e.name == "snarkjs uncompressed"
        && p.infinity
        && bytes[0] == 0x40
        && bytes[1..].iter().all(|&b| b == 0);
    assert!(
        again == bytes || alias,
        "{}: accepted non-canonical bytes {:02x?}",
        e.name,
        bytes
    );
}

macro_rules! group_suite {
    (
        $name:ident, $cfg:ty, $ark_cfg:ty, zcash: $zcash:expr, cofactor: $has_cofactor:expr,
        to_ark: $to_ark:expr, mk_x: $mk_x:expr, vectors: ($vc:expr, $vg:expr)
    ) => {
        mod $name {
            use super::*;

            type C = $cfg;
            type A = Affine<C>;
            type AA = ArkAffine<$ark_cfg>;
            type Base = <C as CurveConfig>::Base;
            type ArkBase = <$ark_cfg as ark_ec::CurveConfig>::BaseField;

            fn to_ark(p: &A) -> AA {
                let f: fn(&Base) -> ArkBase = $to_ark;
                if p.infinity {
                    AA::identity()
                } else {
                    AA::new_unchecked(f(&p.x), f(&p.y))
                }
            }

            fn point(seed: u64) -> A {
                // Every 16th case is the identity.
                if seed % 16 == 0 {
                    A::identity()
                } else {
                    A::random(&mut ChaCha20Rng::seed_from_u64(seed))
                }
            }

            fn mk_x(i: u64) -> Base {
                let f: fn(u64) -> Base = $mk_x;
                f(i)
            }

            fn outside_subgroup() -> A {
                scan_points::<C>(mk_x)
                    .find(|p| !p.is_in_correct_subgroup())
                    .expect("an on-curve point outside the subgroup")
            }

            #[test]
            fn lengths() {
                let cb = <Base as Coordinate>::SIZE;
                for e in encodings::<C>($zcash) {
                    let want = if e.compressed { cb } else { 2 * cb };
                    assert_eq!(e.len, want, "{}", e.name);
                }
            }

            proptest! {
                #![proptest_config(config(CASES, 0x5e71a1))]

                #[test]
                fn round_trip_every_encoding(seed in any::<u64>()) {
                    let p = point(seed);
                    for e in encodings::<C>($zcash) {
                        let bytes = (e.encode)(&p);
                        prop_assert_eq!(bytes.len(), e.len);
                        let mut buf = vec![0xa5u8; e.len];
                        (e.encode_into)(&p, &mut buf).unwrap();
                        prop_assert_eq!(&buf, &bytes);
                        prop_assert_eq!((e.decode)(&bytes, Validate::Yes), Ok(p), "{}", e.name);
                        prop_assert_eq!((e.decode)(&bytes, Validate::No), Ok(p), "{}", e.name);
                    }
                    // The extension-trait spelling.
                    let bytes = p.to_bytes::<ArkCompressed>();
                    prop_assert_eq!(A::from_bytes::<ArkCompressed>(&bytes), Ok(p));
                    prop_assert_eq!(A::from_bytes_unchecked_subgroup::<SnarkjsLem>(
                        &p.to_bytes::<SnarkjsLem>()), Ok(p));
                }

                #[test]
                fn arkworks_byte_equality(seed in any::<u64>()) {
                    let p = point(seed);
                    let a = to_ark(&p);
                    let mut c = Vec::new();
                    a.serialize_compressed(&mut c).unwrap();
                    let mut u = Vec::new();
                    a.serialize_uncompressed(&mut u).unwrap();
                    prop_assert_eq!(&ArkCompressed::encode(&p), &c);
                    prop_assert_eq!(&ArkUncompressed::encode(&p), &u);
                    // Decoding arkworks' bytes, and arkworks decoding ours.
                    prop_assert_eq!(ArkCompressed::decode(&c, Validate::Yes), Ok(p));
                    prop_assert_eq!(ArkUncompressed::decode(&u, Validate::Yes), Ok(p));
                    prop_assert_eq!(AA::deserialize_compressed(&c[..]).unwrap(), a);
                    prop_assert_eq!(AA::deserialize_uncompressed(&u[..]).unwrap(), a);
                    prop_assert_eq!(
                        <A as AffineSerializeExt<C>>::from_bytes::<ArkCompressed>(&c),
                        Ok(p)
                    );
                }

            }

            proptest! {
                #![proptest_config(config(FUZZ_CASES, 0xf0221e))]

                /// Random bytes of the right length: never a panic, and anything accepted
                /// is canonical. "Tame" inputs clear the top bits of every component (so
                /// coordinates are mostly below p and decoding gets past the range checks)
                /// and then set random flag bits in the first and last bytes.
                #[test]
                fn fuzz_random_bytes(
                    mut bytes in proptest::collection::vec(any::<u8>(), 192),
                    tame in any::<bool>(),
                    flags in any::<u8>(),
                ) {
                    let cb = <Base as Coordinate>::COMPONENT_BYTES;
                    if tame {
                        for chunk in bytes.chunks_mut(cb) {
                            chunk[0] &= 0x1f;
                            chunk[cb - 1] &= 0x1f;
                        }
                    }
                    for e in encodings::<C>($zcash) {
                        let mut input = bytes[..e.len].to_vec();
                        if tame {
                            input[0] |= flags & 0xe0;
                            input[e.len - 1] |= (flags << 3) & 0xc0;
                        }
                        for v in [Validate::No, Validate::Yes] {
                            if let Ok(p) = (e.decode)(&input, v) {
                                assert_canonical(&e, &input, &p);
                            }
                        }
                        let _ = (e.decode)(&input[..e.len - 1], Validate::Yes);
                    }
                }

                /// Valid encodings with one byte corrupted: never a panic; anything
                /// accepted is canonical and is what arkworks decodes too.
                #[test]
                fn fuzz_mutated_encodings(
                    seed in any::<u64>(),
                    pos in any::<prop::sample::Index>(),
                    xor in 1u8..=255,
                    which in 0usize..5,
                ) {
                    let p = point(seed);
                    let e = &encodings::<C>($zcash)[which];
                    let mut bytes = (e.encode)(&p);
                    let i = pos.index(bytes.len());
                    bytes[i] ^= xor;
                    for v in [Validate::No, Validate::Yes] {
                        if let Ok(q) = (e.decode)(&bytes, v) {
                            assert_canonical(e, &bytes, &q);
                            if v == Validate::Yes && e.name.starts_with("arkworks") {
                                let ark = if e.compressed {
                                    AA::deserialize_compressed(&bytes[..])
                                } else {
                                    AA::deserialize_uncompressed(&bytes[..])
                                };
                                prop_assert_eq!(ark.ok(), Some(to_ark(&q)));
                            }
                        }
                    }
                }
            }

            #[test]
            fn snarkjs_vectors() {
                let json: serde_json::Value =
                    serde_json::from_str(include_str!("vectors/snarkjs.json")).unwrap();
                let vectors = json[$vc][$vg].as_array().expect("vector list");
                assert!(vectors.len() >= 10);
                let mut seen_largest = [false; 2];
                for v in vectors {
                    let k = BigUint::parse_bytes(v["k"].as_str().unwrap().as_bytes(), 10).unwrap();
                    let p: A = A::generator().mul_bigint(&k.to_u64_digits()).to_affine();
                    assert_eq!(p.infinity, v["infinity"].as_bool().unwrap(), "k = {k}");
                    if !p.infinity {
                        // Coordinates as decimal strings (c0, c1 for Fq2).
                        let coords = |c: &Base| -> Vec<String> {
                            let mut buf = vec![0u8; <Base as Coordinate>::SIZE];
                            c.write_le(&mut buf);
                            buf.chunks(<Base as Coordinate>::COMPONENT_BYTES)
                                .map(|ch| BigUint::from_bytes_le(ch).to_string())
                                .collect()
                        };
                        let json_coords = |j: &serde_json::Value| -> Vec<String> {
                            match j {
                                serde_json::Value::Array(a) => {
                                    a.iter().map(|s| s.as_str().unwrap().to_string()).collect()
                                }
                                s => vec![s.as_str().unwrap().to_string()],
                            }
                        };
                        assert_eq!(coords(&p.x), json_coords(&v["x"]), "x of {k}·G");
                        assert_eq!(coords(&p.y), json_coords(&v["y"]), "y of {k}·G");
                        seen_largest[p.y.is_lexicographically_largest() as usize] = true;
                    }
                    for (field, e) in [
                        ("lem", enc::<C, SnarkjsLem>(false, Endian::LeMont, FlagPos::None)),
                        ("uncompressed", enc::<C, SnarkjsUncompressed>(false, Endian::Be, FlagPos::None)),
                        ("compressed", enc::<C, SnarkjsCompressed>(true, Endian::Be, FlagPos::First(0xc0))),
                    ] {
                        let bytes = hex_decode(v[field].as_str().unwrap());
                        assert_eq!((e.encode)(&p), bytes, "{} of {k}·G", e.name);
                        assert_eq!((e.decode)(&bytes, Validate::Yes), Ok(p), "{} of {k}·G", e.name);
                    }
                }
                assert_eq!(seen_largest, [true, true], "vectors cover both y signs");
            }

            #[test]
            fn batch_helpers() {
                let pts: Vec<A> = (0..6).map(point).collect();
                let bytes = SnarkjsLem::encode_many(&pts);
                assert_eq!(SnarkjsLem::decode_many(&bytes, Validate::Yes), Ok(pts.clone()));
                let l = <SnarkjsLem as PointEncoding<C>>::ENCODED_LEN;
                assert!(matches!(
                    <SnarkjsLem as PointEncoding<C>>::decode_many(&bytes[1..], Validate::Yes),
                    Err(SerializeError::WrongLength { .. })
                ));
                let mut bad = bytes.clone();
                bad[3 * l..4 * l].fill(0xff);
                assert!(matches!(
                    <SnarkjsLem as PointEncoding<C>>::decode_many(&bad, Validate::Yes),
                    Err(SerializeError::AtIndex { index: 3, .. })
                ));
                let mut small = vec![0u8; l - 1];
                assert!(matches!(
                    <SnarkjsLem as PointEncoding<C>>::encode_into(&pts[1], &mut small),
                    Err(SerializeError::WrongLength { .. })
                ));
            }

            #[test]
            fn wrong_lengths() {
                let g = A::generator();
                for e in encodings::<C>($zcash) {
                    let mut bytes = (e.encode)(&g);
                    for cut in [0, 1, e.len / 2, e.len - 1] {
                        assert!(
                            matches!((e.decode)(&bytes[..cut], Validate::Yes),
                                Err(SerializeError::WrongLength { expected, got, .. })
                                    if expected == e.len && got == cut),
                            "{} truncated to {cut}", e.name
                        );
                    }
                    bytes.push(0);
                    assert!(matches!((e.decode)(&bytes, Validate::Yes),
                        Err(SerializeError::WrongLength { .. })), "{} extended", e.name);
                }
            }

            #[test]
            fn coordinate_not_below_modulus() {
                let g = A::generator();
                let cb = <Base as Coordinate>::COMPONENT_BYTES;
                for e in encodings::<C>($zcash) {
                    let orig = (e.encode)(&g);
                    let p_bytes = modulus_bytes::<C>(if e.endian == Endian::Be {
                        Endian::Be
                    } else {
                        Endian::Le
                    });
                    for comp in 0..e.len / cb {
                        let mut bytes = orig.clone();
                        bytes[comp * cb..(comp + 1) * cb].copy_from_slice(&p_bytes);
                        match e.flags {
                            FlagPos::None => {}
                            FlagPos::First(m) => bytes[0] = (bytes[0] & !m) | (orig[0] & m),
                            FlagPos::Last(m) => {
                                let l = bytes.len() - 1;
                                bytes[l] = (bytes[l] & !m) | (orig[l] & m);
                            }
                        }
                        assert!(
                            matches!((e.decode)(&bytes, Validate::No),
                                Err(SerializeError::NonCanonicalCoordinate { .. })),
                            "{} component {comp} = p: {:?}", e.name, (e.decode)(&bytes, Validate::No)
                        );
                    }
                }
            }

            #[test]
            fn x_without_square_root() {
                let x = non_residue_x::<C>(mk_x);
                for y in [Base::ONE, -Base::ONE] {
                    let fake = A::new_unchecked(x, y);
                    for e in encodings::<C>($zcash).into_iter().filter(|e| e.compressed) {
                        let bytes = (e.encode)(&fake);
                        assert!(
                            matches!((e.decode)(&bytes, Validate::No),
                                Err(SerializeError::NoSquareRoot { .. })),
                            "{}", e.name
                        );
                    }
                }
            }

            #[test]
            fn off_curve() {
                let g = A::generator();
                let fake = A::new_unchecked(g.x, g.y + Base::ONE);
                assert!(!fake.is_on_curve());
                for e in encodings::<C>($zcash).into_iter().filter(|e| !e.compressed) {
                    let bytes = (e.encode)(&fake);
                    for v in [Validate::No, Validate::Yes] {
                        assert!(
                            matches!((e.decode)(&bytes, v), Err(SerializeError::NotOnCurve { .. })),
                            "{}: {:?}", e.name, (e.decode)(&bytes, v)
                        );
                    }
                }
            }

            #[test]
            fn outside_prime_order_subgroup() {
                if !$has_cofactor {
                    // Cofactor 1: every on-curve point is in the group.
                    let p = scan_points::<C>(mk_x).next().unwrap();
                    assert!(p.is_in_correct_subgroup());
                    return;
                }
                let p = outside_subgroup();
                assert!(p.is_on_curve());
                for q in [p, -p] {
                    for e in encodings::<C>($zcash) {
                        let bytes = (e.encode)(&q);
                        assert!(
                            matches!((e.decode)(&bytes, Validate::Yes),
                                Err(SerializeError::NotInSubgroup { .. })),
                            "{}", e.name
                        );
                        assert_eq!((e.decode)(&bytes, Validate::No), Ok(q), "{}", e.name);
                    }
                    // arkworks agrees.
                    let mut c = Vec::new();
                    to_ark(&q).serialize_compressed(&mut c).unwrap();
                    assert!(AA::deserialize_compressed(&c[..]).is_err());
                    assert_eq!(AA::deserialize_compressed_unchecked(&c[..]).unwrap(), to_ark(&q));
                }
            }

            fn expect_flags(name: &str, r: Result<A, SerializeError>) {
                assert!(matches!(r, Err(SerializeError::InvalidFlags { .. })), "{name}: {r:?}");
            }
            fn expect_nonzero_inf(name: &str, r: Result<A, SerializeError>) {
                assert!(matches!(r, Err(SerializeError::NonZeroInfinity { .. })), "{name}: {r:?}");
            }

            #[test]
            fn flag_misuse() {
                let g = A::generator();
                let gl = if g.y.is_lexicographically_largest() { g } else { -g };
                let id = A::identity();
                let dec = |e: &Enc<C>, b: &[u8]| (e.decode)(b, Validate::No);
                let encs = encodings::<C>($zcash);
                let (ark_c, ark_u, _lem, sj_u, sj_c) = (&encs[0], &encs[1], &encs[2], &encs[3], &encs[4]);

                if $zcash {
                    // Compressed without the compression bit, uncompressed with it.
                    let mut b = (ark_c.encode)(&g);
                    b[0] &= !0x80;
                    expect_flags(ark_c.name, dec(ark_c, &b));
                    let mut b = (ark_u.encode)(&g);
                    b[0] |= 0x80;
                    expect_flags(ark_u.name, dec(ark_u, &b));
                    // Sort flag in an uncompressed encoding.
                    let mut b = (ark_u.encode)(&g);
                    b[0] |= 0x20;
                    expect_flags(ark_u.name, dec(ark_u, &b));
                    // Infinity with the sort flag.
                    let mut b = (ark_c.encode)(&id);
                    b[0] |= 0x20;
                    expect_flags(ark_c.name, dec(ark_c, &b));
                    // Infinity flag on a finite point's bytes.
                    for e in [ark_c, ark_u] {
                        let mut b = (e.encode)(&g);
                        b[0] |= 0x40;
                        expect_nonzero_inf(e.name, dec(e, &b));
                        let mut b = (e.encode)(&id);
                        *b.last_mut().unwrap() = 1;
                        expect_nonzero_inf(e.name, dec(e, &b));
                    }
                    // Flipping the sort flag gives the negated point, which re-encodes.
                    let mut b = (ark_c.encode)(&g);
                    b[0] ^= 0x20;
                    assert_eq!(dec(ark_c, &b), Ok(-g));
                } else {
                    // Infinity and sign together.
                    for e in [ark_c, ark_u] {
                        let mut b = (e.encode)(&id);
                        *b.last_mut().unwrap() |= 0x80;
                        expect_flags(e.name, dec(e, &b));
                        let mut b = (e.encode)(&gl);
                        *b.last_mut().unwrap() |= 0x40;
                        expect_flags(e.name, dec(e, &b));
                        let mut b = (e.encode)(&g);
                        *b.last_mut().unwrap() |= 0x40;
                        *b.last_mut().unwrap() &= !0x80;
                        expect_nonzero_inf(e.name, dec(e, &b));
                        let mut b = (e.encode)(&id);
                        b[0] = 1;
                        expect_nonzero_inf(e.name, dec(e, &b));
                    }
                    // Uncompressed: a sign bit that disagrees with y.
                    let mut b = (ark_u.encode)(&g);
                    *b.last_mut().unwrap() ^= 0x80;
                    assert!(matches!(dec(ark_u, &b), Err(SerializeError::SignMismatch { .. })));
                    // Compressed: flipping the sign bit gives −P.
                    let mut b = (ark_c.encode)(&g);
                    *b.last_mut().unwrap() ^= 0x80;
                    assert_eq!(dec(ark_c, &b), Ok(-g));
                }

                // snarkjs compressed: infinity with the sign bit; infinity with a payload.
                let mut b = (sj_c.encode)(&id);
                b[0] |= 0x80;
                expect_flags(sj_c.name, dec(sj_c, &b));
                let mut b = (sj_c.encode)(&g);
                b[0] |= 0x40;
                b[0] &= !0x80;
                expect_nonzero_inf(sj_c.name, dec(sj_c, &b));
                let mut b = (sj_c.encode)(&g);
                b[0] ^= 0x80;
                assert_eq!(dec(sj_c, &b), Ok(-g));

                // snarkjs uncompressed: the sign bit has no place; 0x40 ‖ 0… is the
                // pure-JS infinity; 0x40 with a payload is rejected.
                let mut b = (sj_u.encode)(&g);
                b[0] |= 0x80;
                expect_flags(sj_u.name, dec(sj_u, &b));
                let mut b = (sj_u.encode)(&id);
                b[0] = 0x40;
                assert_eq!(dec(sj_u, &b), Ok(id));
                let mut b = (sj_u.encode)(&g);
                b[0] |= 0x40;
                expect_nonzero_inf(sj_u.name, dec(sj_u, &b));
            }
        }
    };
}

fn bn_fq(x: &fastzk_field::bn254::Fq) -> ark_bn254::Fq {
    ark_bn254::Fq::from_le_bytes_mod_order(&x.to_le_bytes())
}
fn bn_fq2(x: &fastzk_field::bn254::Fq2) -> ark_bn254::Fq2 {
    ark_bn254::Fq2::new(bn_fq(&x.c0), bn_fq(&x.c1))
}
fn bls_fq(x: &fastzk_field::bls12_381::Fq) -> ark_bls12_381::Fq {
    ark_bls12_381::Fq::from_le_bytes_mod_order(&x.to_le_bytes())
}
fn bls_fq2(x: &fastzk_field::bls12_381::Fq2) -> ark_bls12_381::Fq2 {
    ark_bls12_381::Fq2::new(bls_fq(&x.c0), bls_fq(&x.c1))
}

group_suite!(
    bn254_g1, bn254::G1Config, ark_bn254::g1::Config, zcash: false, cofactor: false,
    to_ark: bn_fq,
    mk_x: fastzk_field::bn254::Fq::from_u64,
    vectors: ("bn128", "g1")
);
group_suite!(
    bn254_g2, bn254::G2Config, ark_bn254::g2::Config, zcash: false, cofactor: true,
    to_ark: bn_fq2,
    mk_x: |i| fastzk_field::bn254::Fq2::new(
        fastzk_field::bn254::Fq::from_u64(i),
        fastzk_field::bn254::Fq::ONE,
    ),
    vectors: ("bn128", "g2")
);
group_suite!(
    bls12_381_g1, bls12_381::G1Config, ark_bls12_381::g1::Config, zcash: true, cofactor: true,
    to_ark: bls_fq,
    mk_x: fastzk_field::bls12_381::Fq::from_u64,
    vectors: ("bls12381", "g1")
);
group_suite!(
    bls12_381_g2, bls12_381::G2Config, ark_bls12_381::g2::Config, zcash: true, cofactor: true,
    to_ark: bls_fq2,
    mk_x: |i| fastzk_field::bls12_381::Fq2::new(
        fastzk_field::bls12_381::Fq::from_u64(i),
        fastzk_field::bls12_381::Fq::ONE,
    ),
    vectors: ("bls12381", "g2")
);

/// The SWFlags arkworks writes on BN254 are checked against arkworks' own generator
/// encodings, as a fixed known-answer test independent of the random ones.
#[test]
fn arkworks_generator_known_answers() {
    let g = bn254::G1Affine::generator();
    let bytes = ArkCompressed::encode(&g);
    let mut want = vec![0u8; 32];
    want[0] = 1; // x = 1, y = 2 is the smaller root: no flag.
    assert_eq!(bytes, want);
    let ark_g = ark_bn254::g1::Config::GENERATOR;
    let mut c = Vec::new();
    ark_g.serialize_compressed(&mut c).unwrap();
    assert_eq!(c, want);

    // BLS12-381 G1 generator, Zcash format: the well-known 0x97f1d3… encoding.
    let g = bls12_381::G1Affine::generator();
    let bytes = ArkCompressed::encode(&g);
    assert_eq!(
        bytes,
        hex_decode(
            "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
        )
    );
}
