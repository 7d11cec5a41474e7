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
    let wat = format!(
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
    );
    wat::parse_str(wat).expect("mock WAT parses")
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
fn signal_hash_is_fnv1a_64() {
    assert_eq!(signal_hash(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(signal_hash("a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(signal_hash("foobar"), 0x8594_4171_f739_67e8);
}
