//! Point encodings: round trips in all five encodings, byte equality with arkworks 0.5,
//! ffjavascript's reference vectors (`data/vectors/snarkjs.json`), rejection of every
//! kind of malformed input without a panic (wrong lengths, coordinates `≥ p`, `x`
//! without a root, off-curve and off-subgroup points, flag misuse, fuzzed bytes), and
//! the parallel batch decoder and validator.

use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use fastzk_curve::ark::ArkCurve;
use fastzk_curve::serialize::{
    AffineSerializeExt, ArkCompressed, ArkLayout, ArkUncompressed, Coordinate, PointEncoding,
    SerializableCurve, SerializeError, SnarkjsCompressed, SnarkjsLem, SnarkjsUncompressed,
    Validate,
};
use fastzk_curve::validate::{check_points, check_points_serial};
use fastzk_curve::{Affine, CurveError};
use fastzk_field::Field;
use num_bigint::BigUint;
use proptest::prelude::*;

use crate::check;
use crate::gen::{on_curve, rng};
use crate::group::cofactor;

const CASES: u32 = 1000;
const FUZZ_CASES: u32 = 1024;

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

fn zcash<C: SerializableCurve>() -> bool {
    C::ARK_LAYOUT == ArkLayout::Zcash
}

fn encodings<C: SerializableCurve>() -> Vec<Enc<C>> {
    let (ark_endian, ark_flags) = if zcash::<C>() {
        (Endian::Be, FlagPos::First(0xe0))
    } else {
        (Endian::Le, FlagPos::Last(0xc0))
    };
    vec![
        enc::<C, ArkCompressed>(true, ark_endian, ark_flags),
        enc::<C, ArkUncompressed>(false, ark_endian, ark_flags),
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

/// The base prime field's modulus as one component's bytes.
fn modulus_bytes<C: SerializableCurve>(big_endian: bool) -> Vec<u8> {
    // −1 written canonically has component 0 = p − 1.
    let mut buf = vec![0u8; <C::Base as Coordinate>::SIZE];
    (-C::Base::ONE).write_le(&mut buf);
    let cb = <C::Base as Coordinate>::COMPONENT_BYTES;
    let mut le = (BigUint::from_bytes_le(&buf[..cb]) + 1u32).to_bytes_le();
    le.resize(cb, 0);
    if big_endian {
        le.reverse();
    }
    le
}

/// The coordinate `i + u + u² …`: component 0 is `i`, the others 1.
fn coordinate<C: SerializableCurve>(i: u64) -> C::Base {
    let cb = <C::Base as Coordinate>::COMPONENT_BYTES;
    let mut bytes = vec![0u8; <C::Base as Coordinate>::SIZE];
    bytes[..8].copy_from_slice(&i.to_le_bytes());
    for comp in 1..<C::Base as Coordinate>::DEGREE {
        bytes[comp * cb] = 1;
    }
    C::Base::read_le(&bytes).expect("small components are below p")
}

/// On-curve points found by scanning `x`.
fn scan_points<C: SerializableCurve>() -> impl Iterator<Item = Affine<C>> {
    (1u64..).filter_map(|i| {
        let x = coordinate::<C>(i);
        let rhs = x.square() * x + C::COEFF_B;
        rhs.sqrt()
            .filter(|y| y.square() == rhs)
            .map(|y| Affine::new_unchecked(x, y))
    })
}

fn non_residue_x<C: SerializableCurve>() -> C::Base {
    (1u64..)
        .map(coordinate::<C>)
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

/// A point for `seed`; every 16th one the identity.
fn point<C: SerializableCurve>(seed: u64) -> Affine<C> {
    if seed.is_multiple_of(16) {
        Affine::identity()
    } else {
        Affine::random(&mut rng(seed))
    }
}

pub fn lengths<C: SerializableCurve>() {
    let cb = <C::Base as Coordinate>::SIZE;
    for e in encodings::<C>() {
        let want = if e.compressed { cb } else { 2 * cb };
        assert_eq!(e.len, want, "{}", e.name);
    }
}

pub fn round_trip_every_encoding<C: SerializableCurve>() {
    check(CASES, Some(0x5e71a1), any::<u64>(), |seed| {
        let p = point::<C>(seed);
        for e in encodings::<C>() {
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
        prop_assert_eq!(Affine::<C>::from_bytes::<ArkCompressed>(&bytes), Ok(p));
        prop_assert_eq!(
            Affine::<C>::from_bytes_unchecked_subgroup::<SnarkjsLem>(&p.to_bytes::<SnarkjsLem>()),
            Ok(p)
        );
        Ok(())
    });
}

pub fn arkworks_byte_equality<C: SerializableCurve + ArkCurve>() {
    check(CASES, Some(0x5e71a2), any::<u64>(), |seed| {
        let p = point::<C>(seed);
        let a = C::to_ark(&p);
        let mut c = Vec::new();
        a.serialize_compressed(&mut c).unwrap();
        let mut u = Vec::new();
        a.serialize_uncompressed(&mut u).unwrap();
        prop_assert_eq!(&ArkCompressed::encode(&p), &c);
        prop_assert_eq!(&ArkUncompressed::encode(&p), &u);
        // Decoding arkworks' bytes, and arkworks decoding ours.
        prop_assert_eq!(ArkCompressed::decode(&c, Validate::Yes), Ok(p));
        prop_assert_eq!(ArkUncompressed::decode(&u, Validate::Yes), Ok(p));
        type AA<C> = ark_ec::short_weierstrass::Affine<<C as ArkCurve>::Ark>;
        prop_assert_eq!(AA::<C>::deserialize_compressed(&c[..]).unwrap(), a);
        prop_assert_eq!(AA::<C>::deserialize_uncompressed(&u[..]).unwrap(), a);
        Ok(())
    });
}

/// Random bytes of the right length: never a panic, and anything accepted is canonical.
/// "Tame" inputs clear the top bits of every component (so coordinates are mostly below
/// `p` and decoding gets past the range checks) and then set random flag bits in the
/// first and last bytes.
pub fn fuzz_random_bytes<C: SerializableCurve>() {
    let strategy = (
        proptest::collection::vec(any::<u8>(), 192),
        any::<bool>(),
        any::<u8>(),
    );
    check(
        FUZZ_CASES,
        Some(0xf0221e),
        strategy,
        |(mut bytes, tame, flags)| {
            let cb = <C::Base as Coordinate>::COMPONENT_BYTES;
            if tame {
                for chunk in bytes.chunks_mut(cb) {
                    chunk[0] &= 0x1f;
                    chunk[cb - 1] &= 0x1f;
                }
            }
            for e in encodings::<C>() {
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
                prop_assert!((e.decode)(&input[..e.len - 1], Validate::Yes).is_err());
            }
            Ok(())
        },
    );
}

/// Valid encodings with one byte corrupted: never a panic; anything accepted is
/// canonical and is what arkworks decodes too.
pub fn fuzz_mutated_encodings<C: SerializableCurve + ArkCurve>() {
    let strategy = (
        any::<u64>(),
        any::<prop::sample::Index>(),
        1u8..=255,
        0usize..5,
    );
    check(
        FUZZ_CASES,
        Some(0xf0221f),
        strategy,
        |(seed, pos, xor, which)| {
            let p = point::<C>(seed);
            let e = &encodings::<C>()[which];
            let mut bytes = (e.encode)(&p);
            let i = pos.index(bytes.len());
            bytes[i] ^= xor;
            for v in [Validate::No, Validate::Yes] {
                if let Ok(q) = (e.decode)(&bytes, v) {
                    assert_canonical(e, &bytes, &q);
                    if v == Validate::Yes && e.name.starts_with("arkworks") {
                        type AA<C> = ark_ec::short_weierstrass::Affine<<C as ArkCurve>::Ark>;
                        let ark = if e.compressed {
                            AA::<C>::deserialize_compressed(&bytes[..])
                        } else {
                            AA::<C>::deserialize_uncompressed(&bytes[..])
                        };
                        prop_assert_eq!(ark.ok(), Some(C::to_ark(&q)));
                    }
                }
            }
            Ok(())
        },
    );
}

/// ffjavascript's encodings of `k·G` (`data/vectors/snarkjs.json`), for the group the
/// vectors file calls `curve`/`group`.
pub fn snarkjs_vectors<C: SerializableCurve>(curve: &str, group: &str) {
    let json: serde_json::Value =
        serde_json::from_str(&crate::fixtures::text("vectors/snarkjs.json")).unwrap();
    let vectors = json[curve][group].as_array().expect("vector list");
    assert!(vectors.len() >= 10);
    let mut seen_largest = [false; 2];
    for v in vectors {
        let k = BigUint::parse_bytes(v["k"].as_str().unwrap().as_bytes(), 10).unwrap();
        let p: Affine<C> = Affine::generator()
            .mul_bigint(&k.to_u64_digits())
            .to_affine();
        assert_eq!(p.infinity, v["infinity"].as_bool().unwrap(), "k = {k}");
        if !p.infinity {
            // Coordinates as decimal strings (c0, c1 for Fq2).
            let coords = |c: &C::Base| -> Vec<String> {
                let mut buf = vec![0u8; <C::Base as Coordinate>::SIZE];
                c.write_le(&mut buf);
                buf.chunks(<C::Base as Coordinate>::COMPONENT_BYTES)
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
            (
                "lem",
                enc::<C, SnarkjsLem>(false, Endian::LeMont, FlagPos::None),
            ),
            (
                "uncompressed",
                enc::<C, SnarkjsUncompressed>(false, Endian::Be, FlagPos::None),
            ),
            (
                "compressed",
                enc::<C, SnarkjsCompressed>(true, Endian::Be, FlagPos::First(0xc0)),
            ),
        ] {
            let bytes = hex_decode(v[field].as_str().unwrap());
            assert_eq!((e.encode)(&p), bytes, "{} of {k}·G", e.name);
            assert_eq!(
                (e.decode)(&bytes, Validate::Yes),
                Ok(p),
                "{} of {k}·G",
                e.name
            );
        }
    }
    assert_eq!(seen_largest, [true, true], "vectors cover both y signs");
}

pub fn batch_helpers<C: SerializableCurve>() {
    let pts: Vec<Affine<C>> = (0..6).map(point::<C>).collect();
    let bytes = SnarkjsLem::encode_many(&pts);
    assert_eq!(
        SnarkjsLem::decode_many(&bytes, Validate::Yes),
        Ok(pts.clone())
    );
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

pub fn wrong_lengths<C: SerializableCurve>() {
    let g = Affine::<C>::generator();
    for e in encodings::<C>() {
        let mut bytes = (e.encode)(&g);
        for cut in [0, 1, e.len / 2, e.len - 1] {
            assert!(
                matches!((e.decode)(&bytes[..cut], Validate::Yes),
                    Err(SerializeError::WrongLength { expected, got, .. })
                        if expected == e.len && got == cut),
                "{} truncated to {cut}",
                e.name
            );
        }
        bytes.push(0);
        assert!(
            matches!(
                (e.decode)(&bytes, Validate::Yes),
                Err(SerializeError::WrongLength { .. })
            ),
            "{} extended",
            e.name
        );
    }
}

pub fn coordinate_not_below_modulus<C: SerializableCurve>() {
    let g = Affine::<C>::generator();
    let cb = <C::Base as Coordinate>::COMPONENT_BYTES;
    for e in encodings::<C>() {
        let orig = (e.encode)(&g);
        let p_bytes = modulus_bytes::<C>(e.endian == Endian::Be);
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
                matches!(
                    (e.decode)(&bytes, Validate::No),
                    Err(SerializeError::NonCanonicalCoordinate { .. })
                ),
                "{} component {comp} = p: {:?}",
                e.name,
                (e.decode)(&bytes, Validate::No)
            );
        }
    }
}

pub fn x_without_square_root<C: SerializableCurve>() {
    let x = non_residue_x::<C>();
    for y in [C::Base::ONE, -C::Base::ONE] {
        let fake = Affine::<C>::new_unchecked(x, y);
        for e in encodings::<C>().into_iter().filter(|e| e.compressed) {
            assert!(
                matches!(
                    (e.decode)(&(e.encode)(&fake), Validate::No),
                    Err(SerializeError::NoSquareRoot { .. })
                ),
                "{}",
                e.name
            );
        }
    }
}

pub fn off_curve<C: SerializableCurve>() {
    let g = Affine::<C>::generator();
    let fake = Affine::<C>::new_unchecked(g.x, g.y + C::Base::ONE);
    assert!(!fake.is_on_curve());
    for e in encodings::<C>().into_iter().filter(|e| !e.compressed) {
        let bytes = (e.encode)(&fake);
        for v in [Validate::No, Validate::Yes] {
            assert!(
                matches!(
                    (e.decode)(&bytes, v),
                    Err(SerializeError::NotOnCurve { .. })
                ),
                "{}: {:?}",
                e.name,
                (e.decode)(&bytes, v)
            );
        }
    }
}

pub fn outside_prime_order_subgroup<C: SerializableCurve + ArkCurve>() {
    if cofactor::<C>() == BigUint::from(1u8) {
        // Cofactor 1: every on-curve point is in the group.
        assert!(scan_points::<C>().next().unwrap().is_in_correct_subgroup());
        return;
    }
    let p = scan_points::<C>()
        .find(|p| !p.is_in_correct_subgroup())
        .expect("an on-curve point outside the subgroup");
    assert!(p.is_on_curve());
    type AA<C> = ark_ec::short_weierstrass::Affine<<C as ArkCurve>::Ark>;
    for q in [p, -p] {
        for e in encodings::<C>() {
            let bytes = (e.encode)(&q);
            assert!(
                matches!(
                    (e.decode)(&bytes, Validate::Yes),
                    Err(SerializeError::NotInSubgroup { .. })
                ),
                "{}",
                e.name
            );
            assert_eq!((e.decode)(&bytes, Validate::No), Ok(q), "{}", e.name);
        }
        // arkworks agrees.
        let mut c = Vec::new();
        C::to_ark(&q).serialize_compressed(&mut c).unwrap();
        assert!(AA::<C>::deserialize_compressed(&c[..]).is_err());
        assert_eq!(
            AA::<C>::deserialize_compressed_unchecked(&c[..]).unwrap(),
            C::to_ark(&q)
        );
    }
}

pub fn flag_misuse<C: SerializableCurve>() {
    let expect_flags = |name: &str, r: Result<Affine<C>, SerializeError>| {
        assert!(
            matches!(r, Err(SerializeError::InvalidFlags { .. })),
            "{name}: {r:?}"
        );
    };
    let expect_nonzero_inf = |name: &str, r: Result<Affine<C>, SerializeError>| {
        assert!(
            matches!(r, Err(SerializeError::NonZeroInfinity { .. })),
            "{name}: {r:?}"
        );
    };
    let g = Affine::<C>::generator();
    let gl = if g.y.is_lexicographically_largest() {
        g
    } else {
        -g
    };
    let id = Affine::<C>::identity();
    let dec = |e: &Enc<C>, b: &[u8]| (e.decode)(b, Validate::No);
    let encs = encodings::<C>();
    let (ark_c, ark_u, sj_u, sj_c) = (&encs[0], &encs[1], &encs[3], &encs[4]);

    if zcash::<C>() {
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
        assert!(matches!(
            dec(ark_u, &b),
            Err(SerializeError::SignMismatch { .. })
        ));
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

    // snarkjs uncompressed: the sign bit has no place; 0x40 ‖ 0… is the pure-JS
    // infinity; 0x40 with a payload is rejected.
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

/// The parallel validator and decoders against the serial ones, and the error they give:
/// the lowest bad index, as a serial pass would.
pub fn batch_validation_and_parallel_decoding<C: SerializableCurve>() {
    let mut rr = rng(11);
    let n = 1500;
    let mut pts: Vec<Affine<C>> = (0..n)
        .map(|i| {
            if i % 97 == 0 {
                Affine::identity()
            } else {
                Affine::random(&mut rr)
            }
        })
        .collect();
    assert_eq!(check_points(&pts, true), Ok(()));
    assert_eq!(check_points(&[] as &[Affine<C>], true), Ok(()));
    let lem = <SnarkjsLem as PointEncoding<C>>::encode_many(&pts);
    assert_eq!(
        <SnarkjsLem as PointEncoding<C>>::decode_many(&lem, Validate::Yes).unwrap(),
        pts
    );
    assert_eq!(
        <SnarkjsLem as PointEncoding<C>>::decode_many_serial(&lem, Validate::Yes).unwrap(),
        pts
    );
    let comp = <ArkCompressed as PointEncoding<C>>::encode_many(&pts);
    assert_eq!(
        <ArkCompressed as PointEncoding<C>>::decode_many(&comp, Validate::Yes).unwrap(),
        pts
    );

    // Failures: non-subgroup points at 1200 and 700, an off-curve one at 1300.
    pts[1200] = on_curve::<C>(&mut rr);
    pts[700] = on_curve::<C>(&mut rr);
    let mut off = Affine::<C>::random(&mut rr);
    off.y += C::Base::ONE;
    pts[1300] = off;
    // (With cofactor 1 every curve point is in the group.)
    let sub = cofactor::<C>() != BigUint::from(1u8);
    let first_yes = if sub {
        (700, CurveError::NotInSubgroup)
    } else {
        (1300, CurveError::NotOnCurve)
    };
    assert_eq!(check_points(&pts, true), Err(first_yes.clone()));
    assert_eq!(check_points_serial(&pts, true), check_points(&pts, true));
    assert_eq!(
        check_points(&pts, false),
        Err((1300, CurveError::NotOnCurve))
    );

    let lem = <SnarkjsLem as PointEncoding<C>>::encode_many(&pts);
    match <SnarkjsLem as PointEncoding<C>>::decode_many(&lem, Validate::Yes) {
        Err(SerializeError::AtIndex { index, source }) => {
            assert_eq!(index, first_yes.0);
            if sub {
                assert!(matches!(*source, SerializeError::NotInSubgroup { .. }));
            }
        }
        other => panic!("expected an error at {}, got {other:?}", first_yes.0),
    }
    match <SnarkjsLem as PointEncoding<C>>::decode_many(&lem, Validate::No) {
        Err(SerializeError::AtIndex { index, source }) => {
            assert_eq!(index, 1300);
            assert!(matches!(*source, SerializeError::NotOnCurve { .. }));
        }
        other => panic!("expected an error at 1300, got {other:?}"),
    }
    pts[1300] = Affine::identity();
    let lem = <SnarkjsLem as PointEncoding<C>>::encode_many(&pts);
    assert_eq!(
        <SnarkjsLem as PointEncoding<C>>::decode_many(&lem, Validate::No).unwrap(),
        pts
    );
    // Compressed: the subgroup failure at 700 is found, non-canonical x after it too.
    let mut comp = <ArkCompressed as PointEncoding<C>>::encode_many(&pts);
    let len = <ArkCompressed as PointEncoding<C>>::ENCODED_LEN;
    comp[1400 * len..1401 * len].fill(0xff);
    match <ArkCompressed as PointEncoding<C>>::decode_many(&comp, Validate::Yes) {
        Err(SerializeError::AtIndex { index, .. }) => {
            assert_eq!(index, if sub { 700 } else { 1400 })
        }
        other => panic!("expected an error, got {other:?}"),
    }
    match <ArkCompressed as PointEncoding<C>>::decode_many(&comp, Validate::No) {
        Err(SerializeError::AtIndex { index, .. }) => assert_eq!(index, 1400),
        other => panic!("expected an error at 1400, got {other:?}"),
    }
    // Length errors.
    assert!(matches!(
        <SnarkjsLem as PointEncoding<C>>::decode_many(&lem[..lem.len() - 1], Validate::No),
        Err(SerializeError::WrongLength { .. })
    ));
    let mut out = vec![Affine::<C>::identity(); 3];
    assert!(
        <SnarkjsLem as PointEncoding<C>>::decode_many_into(&lem, &mut out, Validate::No).is_err()
    );
}

/// The encoding suite for the group `C`, in module `name`.
#[macro_export]
macro_rules! serialize_tests {
    ($name:ident, $c:ty, snarkjs: ($curve:expr, $group:expr)) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $crate::__tests!(
                $crate::serialize,
                [$c],
                lengths,
                round_trip_every_encoding,
                arkworks_byte_equality,
                fuzz_random_bytes,
                fuzz_mutated_encodings,
                batch_helpers,
                wrong_lengths,
                coordinate_not_below_modulus,
                x_without_square_root,
                off_curve,
                outside_prime_order_subgroup,
                flag_misuse,
                batch_validation_and_parallel_decoding,
            );
            #[test]
            fn snarkjs_vectors() {
                $crate::serialize::snarkjs_vectors::<$c>($curve, $group);
            }
        }
    };
}
