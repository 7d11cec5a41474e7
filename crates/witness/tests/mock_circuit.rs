//! The runtime interface against a hand-written module that speaks circom 2's protocol
//! (a Goldilocks field, one input `in[2]`, witness `[1, in0, in1, in0 + in1]`, an assert
//! that fails on `in0 = 13` and a `log` on `in1 = 7`), so every error path is reached
//! without compiling a circuit. Real circom circuits are checked byte for byte against
//! snarkjs in the interop suite.

use std::sync::{Arc, Mutex};

use fastzk_field::{Field, Goldilocks};
use fastzk_witness::{parse_inputs, signal_hash, WitnessCalculator, WitnessError};
use num_bigint::BigUint;

const P: u64 = 0xffff_ffff_0000_0001;

/// The mock module; `shared_export` adds `getSharedRWMemoryStart` (direct reads).
fn mock(shared_export: bool, version: u32, missing_witness: bool) -> Vec<u8> {
    wat::parse_str(mock_text(shared_export, version, missing_witness)).expect("mock WAT parses")
}

fn mock_text(shared_export: bool, version: u32, missing_witness: bool) -> String {
    let h = signal_hash("in");
    let (msb, lsb) = ((h >> 32) as u32 as i32, h as u32 as i32);
    let shared = if shared_export {
        r#"(func (export "getSharedRWMemoryStart") (result i32) i32.const 0)"#
    } else {
        ""
    };
    let get_witness = if missing_witness {
        ""
    } else {
        r#"(func (export "getWitness") (param i32)
             (i64.store (i32.const 0)
               (i64.load (i32.add (i32.const 64) (i32.shl (local.get 0) (i32.const 3))))))"#
    };
    format!(
        r#"(module
  (import "runtime" "exceptionHandler" (func $exc (param i32)))
  (import "runtime" "printErrorMessage" (func $perr))
  (import "runtime" "writeBufferMessage" (func $wbuf))
  (import "runtime" "showSharedRWMemory" (func $show))
  (memory (export "memory") 1)
  (data (i32.const 16) "\01\00\00\00\ff\ff\ff\ff")
  (data (i32.const 256) "Error in template Mock_0 line: 7\00")
  (data (i32.const 320) "hello\00")
  (data (i32.const 336) "\n\00")
  (global $msg (mut i32) (i32.const 0))
  (global $set (mut i32) (i32.const 0))
  (func (export "getVersion") (result i32) i32.const {version})
  {shared}
  (func (export "readSharedRWMemory") (param i32) (result i32)
    (i32.load (i32.shl (local.get 0) (i32.const 2))))
  (func (export "writeSharedRWMemory") (param i32 i32)
    (i32.store (i32.shl (local.get 0) (i32.const 2)) (local.get 1)))
  (func (export "init") (param i32) (global.set $set (i32.const 0)))
  (func (export "getFieldNumLen32") (result i32) i32.const 2)
  (func (export "getRawPrime") (i64.store (i32.const 0) (i64.load (i32.const 16))))
  (func (export "getInputSize") (result i32) i32.const 2)
  (func (export "getWitnessSize") (result i32) i32.const 4)
  (func (export "getInputSignalSize") (param i32 i32) (result i32)
    (if (result i32)
      (i32.and (i32.eq (local.get 0) (i32.const {msb})) (i32.eq (local.get 1) (i32.const {lsb})))
      (then (i32.const 2)) (else (i32.const -1))))
  (func (export "setInputSignal") (param i32 i32 i32)
    (if (i32.ge_u (local.get 2) (i32.const 2)) (then (call $exc (i32.const 6))))
    (i64.store (i32.add (i32.const 32) (i32.shl (local.get 2) (i32.const 3))) (i64.load (i32.const 0)))
    (global.set $set (i32.add (global.get $set) (i32.const 1)))
    (if (i32.eq (global.get $set) (i32.const 2)) (then (call $run))))
  (func $run
    (i64.store (i32.const 64) (i64.const 1))
    (i64.store (i32.const 72) (i64.load (i32.const 32)))
    (i64.store (i32.const 80) (i64.load (i32.const 40)))
    (i64.store (i32.const 88) (i64.add (i64.load (i32.const 32)) (i64.load (i32.const 40))))
    (if (i64.eq (i64.load (i32.const 32)) (i64.const 13))
      (then (global.set $msg (i32.const 256)) (call $perr) (call $exc (i32.const 4))))
    (if (i64.eq (i64.load (i32.const 40)) (i64.const 7))
      (then
        (global.set $msg (i32.const 320)) (call $wbuf)
        (i64.store (i32.const 0) (i64.load (i32.const 40))) (call $show)
        (global.set $msg (i32.const 336)) (call $wbuf))))
  {get_witness}
  (func (export "getMessageChar") (result i32) (local $c i32)
    (local.set $c (i32.load8_u (global.get $msg)))
    (if (local.get $c) (then (global.set $msg (i32.add (global.get $msg) (i32.const 1)))))
    (local.get $c)))"#
    )
}

/// BN254's scalar field, as circom's `bn128` generators multiply in.
const BN254_R: &str = "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001";

/// The mock with a `Fr_F1m_mul` of circom's shape (its constant `-q⁻¹ mod 2^32` first,
/// q read from a data segment at 608, 35 locals, all i64): a Montgomery product on 32-bit
/// limbs written here independently of fastzk's rewrite, with the final subtraction of
/// q, or without it when `subtract` is false (right on most inputs, wrong on some).
fn mock_with_mul(subtract: bool) -> Vec<u8> {
    let q = BigUint::parse_bytes(BN254_R.as_bytes(), 16).unwrap();
    let mut q_bytes = q.to_bytes_le();
    q_bytes.resize(32, 0);
    let q_data: String = q_bytes.iter().map(|b| format!("\\{b:02x}")).collect();
    let q0 = u64::from(q.iter_u32_digits().next().unwrap());
    let np32 = (1u64 << 32) - mod_inverse_u32(q0);
    let result = if subtract {
        "(select (i32.const 2096) (i32.const 2048) \
           (i32.or (i64.ne (call $t (i64.const 8)) (i64.const 0)) (i64.eqz (local.get $c))))"
    } else {
        "(i32.const 2048)"
    };
    let padding = " i64".repeat(26);
    let mul = format!(
        r#"
  (data (i32.const 608) "{q_data}")
  (func $t (param $j i64) (result i64) (call $ld (i32.const 2048) (local.get $j)))
  (func $set_t (param $j i64) (param $v i64)
    (i32.store (i32.add (i32.const 2048) (i32.wrap_i64 (i64.shl (local.get $j) (i64.const 2))))
      (i32.wrap_i64 (local.get $v))))
  (func $ld (param $base i32) (param $j i64) (result i64)
    (i64.load32_u (i32.add (local.get $base) (i32.wrap_i64 (i64.shl (local.get $j) (i64.const 2))))))
  (func $Fr_F1m_mul (param $x i32) (param $y i32) (param $r i32)
    (local $np i64) (local $q0 i64) (local $i i64) (local $j i64) (local $c i64) (local $s i64)
    (local $m i64) (local $yi i64) (local{padding}) (local $src i64)
    (local.set $np (i64.const {np32}))
    (local.set $q0 (i64.load32_u offset=608 (i32.const 0)))
    (i64.store (i32.const 2048) (i64.const 0))
    (i64.store (i32.const 2056) (i64.const 0))
    (i64.store (i32.const 2064) (i64.const 0))
    (i64.store (i32.const 2072) (i64.const 0))
    (i64.store (i32.const 2080) (i64.const 0))
    (loop $outer
      (local.set $yi (call $ld (local.get $y) (local.get $i)))
      (local.set $c (i64.const 0))
      (local.set $j (i64.const 0))
      (loop $mul
        (local.set $s (i64.add (i64.add (call $t (local.get $j))
          (i64.mul (call $ld (local.get $x) (local.get $j)) (local.get $yi))) (local.get $c)))
        (call $set_t (local.get $j) (local.get $s))
        (local.set $c (i64.shr_u (local.get $s) (i64.const 32)))
        (local.set $j (i64.add (local.get $j) (i64.const 1)))
        (br_if $mul (i64.lt_u (local.get $j) (i64.const 8))))
      (local.set $s (i64.add (call $t (i64.const 8)) (local.get $c)))
      (call $set_t (i64.const 8) (local.get $s))
      (call $set_t (i64.const 9) (i64.shr_u (local.get $s) (i64.const 32)))
      (local.set $m (i64.and (i64.mul (call $t (i64.const 0)) (local.get $np)) (i64.const 0xffffffff)))
      (local.set $c (i64.shr_u (i64.add (call $t (i64.const 0)) (i64.mul (local.get $m) (local.get $q0)))
        (i64.const 32)))
      (local.set $j (i64.const 1))
      (loop $reduce
        (local.set $s (i64.add (i64.add (call $t (local.get $j))
          (i64.mul (call $ld (i32.const 608) (local.get $j)) (local.get $m))) (local.get $c)))
        (call $set_t (i64.sub (local.get $j) (i64.const 1)) (local.get $s))
        (local.set $c (i64.shr_u (local.get $s) (i64.const 32)))
        (local.set $j (i64.add (local.get $j) (i64.const 1)))
        (br_if $reduce (i64.lt_u (local.get $j) (i64.const 8))))
      (local.set $s (i64.add (call $t (i64.const 8)) (local.get $c)))
      (call $set_t (i64.const 7) (local.get $s))
      (call $set_t (i64.const 8) (i64.add (call $t (i64.const 9)) (i64.shr_u (local.get $s) (i64.const 32))))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br_if $outer (i64.lt_u (local.get $i) (i64.const 8))))
    ;; T − q at 2096, the borrow in $c
    (local.set $c (i64.const 0))
    (local.set $j (i64.const 0))
    (loop $sub
      (local.set $s (i64.sub (i64.sub (call $t (local.get $j)) (call $ld (i32.const 608) (local.get $j)))
        (local.get $c)))
      (i32.store (i32.add (i32.const 2096) (i32.wrap_i64 (i64.shl (local.get $j) (i64.const 2))))
        (i32.wrap_i64 (local.get $s)))
      (local.set $c (i64.shr_u (local.get $s) (i64.const 63)))
      (local.set $j (i64.add (local.get $j) (i64.const 1)))
      (br_if $sub (i64.lt_u (local.get $j) (i64.const 8))))
    (local.set $src (i64.extend_i32_u {result}))
    (i64.store (local.get $r) (i64.load (i32.wrap_i64 (local.get $src))))
    (i64.store offset=8 (local.get $r) (i64.load offset=8 (i32.wrap_i64 (local.get $src))))
    (i64.store offset=16 (local.get $r) (i64.load offset=16 (i32.wrap_i64 (local.get $src))))
    (i64.store offset=24 (local.get $r) (i64.load offset=24 (i32.wrap_i64 (local.get $src)))))
)"#
    );
    let mut text = mock_text(true, 2, false);
    assert_eq!(text.pop(), Some(')'));
    wat::parse_str(text + &mul).expect("mock WAT parses")
}

/// The inverse of an odd `a` modulo 2^32.
fn mod_inverse_u32(a: u64) -> u64 {
    let mut inv = 1u64;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(a.wrapping_mul(inv))) & 0xffff_ffff;
    }
    inv
}

fn run(module: &[u8], input: &str) -> Result<fastzk_witness::Witness, WitnessError> {
    let calc = WitnessCalculator::compile(module)?;
    calc.calculate(&parse_inputs(input, "input.json")?, |_| {})
}

#[test]
fn computes_the_witness_and_writes_snarkjs_wtns() {
    for shared in [true, false] {
        let w = run(&mock(shared, 2, false), r#"{"in": [3, "5"]}"#).unwrap();
        assert_eq!(w.len(), 4);
        assert_eq!(w.prime, BigUint::from(P));
        // Read back by the project's own .wtns reader, over Goldilocks.
        let z: Vec<Goldilocks> =
            fastzk_formats::wtns_from_bytes(&w.to_wtns_bytes(), "mock.wtns").unwrap();
        let expect = [1u64, 3, 5, 8].map(Goldilocks::from_u64);
        assert_eq!(z, expect, "shared export {shared}");
    }
}

#[test]
fn reduces_negative_and_oversized_inputs_mod_p() {
    let big = BigUint::from(P) * 3u8 + 4u8;
    let w = run(
        &mock(true, 2, false),
        &format!(r#"{{"in": ["-1", "{big}"]}}"#),
    )
    .unwrap();
    assert_eq!(w.value(1), BigUint::from(P - 1));
    assert_eq!(w.value(2), BigUint::from(4u8));
    assert_eq!(w.value(1), BigUint::from((-Goldilocks::ONE).value()));
}

#[test]
fn a_failed_assert_names_the_template_and_the_input_being_set() {
    let e = run(&mock(true, 2, false), r#"{"in": [13, 1]}"#).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, WitnessError::Circuit { .. }), "{e:?}");
    assert!(msg.contains("assert failed"), "{msg}");
    assert!(msg.contains("Error in template Mock_0 line: 7"), "{msg}");
    assert!(
        msg.contains("raised while setting input signal in, value 2 of 2"),
        "{msg}"
    );
}

#[test]
fn log_lines_reach_the_callback() {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let calc = WitnessCalculator::compile(&mock(true, 2, false)).unwrap();
    let inputs = parse_inputs(r#"{"in": [1, 7]}"#, "input.json").unwrap();
    calc.calculate(&inputs, move |l| sink.lock().unwrap().push(l.to_string()))
        .unwrap();
    assert_eq!(*lines.lock().unwrap(), vec!["hello 7".to_string()]);
}

#[test]
fn input_mismatches_are_named() {
    let m = mock(true, 2, false);
    match run(&m, r#"{"in": [1, 2], "out": 3}"#).unwrap_err() {
        WitnessError::UnknownSignal(s) => assert_eq!(s, "out"),
        e => panic!("{e:?}"),
    }
    match run(&m, r#"{"in": [1, 2, 3]}"#).unwrap_err() {
        WitnessError::WrongCount {
            signal,
            expected,
            got,
        } => assert_eq!((signal.as_str(), expected, got), ("in", 2, 3)),
        e => panic!("{e:?}"),
    }
    match run(&m, r#"{}"#).unwrap_err() {
        WitnessError::MissingInputs { set, total } => assert_eq!((set, total), (0, 2)),
        e => panic!("{e:?}"),
    }
}

#[test]
fn refuses_what_is_not_a_circom_2_generator() {
    let e = run(&mock(true, 1, false), r#"{"in": [1, 2]}"#).unwrap_err();
    assert!(e.to_string().contains("circom 1"), "{e}");
    let e = WitnessCalculator::compile(&mock(true, 2, true))
        .err()
        .unwrap();
    assert!(e.to_string().contains("getWitness"), "{e}");
    let e = WitnessCalculator::compile(b"\0asm\x01\0\0\0garbage")
        .err()
        .unwrap();
    assert!(matches!(e, WitnessError::Compile(_)), "{e:?}");
    let e = WitnessCalculator::compile(b"").err().unwrap();
    assert!(matches!(e, WitnessError::Compile(_)), "{e:?}");
}

#[test]
fn compiled_code_round_trips_through_the_cache_form() {
    let calc = WitnessCalculator::compile(&mock(true, 2, false)).unwrap();
    let bytes = calc.serialize().unwrap();
    // SAFETY: the bytes were just produced by `serialize`.
    let again = unsafe { WitnessCalculator::deserialize(&bytes) }.unwrap();
    let inputs = parse_inputs(r#"{"in": [9, 10]}"#, "input.json").unwrap();
    assert_eq!(
        calc.calculate(&inputs, |_| {}).unwrap(),
        again.calculate(&inputs, |_| {}).unwrap()
    );
    // Bytes that are not wasmtime's are refused, not run.
    // SAFETY: deserialize checks the header; these bytes fail that check.
    assert!(unsafe { WitnessCalculator::deserialize(b"not compiled code") }.is_err());
}

#[test]
fn circom_multiplication_is_replaced_only_when_the_two_agree() {
    let inputs = parse_inputs(r#"{"in": [3, 5]}"#, "input.json").unwrap();
    let plain = WitnessCalculator::compile(&mock(true, 2, false)).unwrap();
    assert!(!plain.uses_wide_mul(), "nothing to replace");
    let expected = plain.calculate(&inputs, |_| {}).unwrap();

    let faithful = WitnessCalculator::compile(&mock_with_mul(true)).unwrap();
    assert!(
        faithful.uses_wide_mul(),
        "a Montgomery product of circom's shape"
    );
    assert_eq!(faithful.calculate(&inputs, |_| {}).unwrap(), expected);
    // Kept through the cache form.
    // SAFETY: the bytes were just produced by `serialize`.
    let again = unsafe { WitnessCalculator::deserialize(&faithful.serialize().unwrap()) };
    assert!(again.unwrap().uses_wide_mul());

    let unfaithful = WitnessCalculator::compile(&mock_with_mul(false)).unwrap();
    assert!(
        !unfaithful.uses_wide_mul(),
        "differs on unreduced results: kept as it is"
    );
    assert_eq!(unfaithful.calculate(&inputs, |_| {}).unwrap(), expected);
}

#[test]
fn signal_hash_is_fnv1a_64() {
    assert_eq!(signal_hash(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(signal_hash("a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(signal_hash("foobar"), 0x8594_4171_f739_67e8);
}
