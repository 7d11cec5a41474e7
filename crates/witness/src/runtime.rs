//! The WebAssembly side: compiling a module with wasmtime, the four imports, and the
//! calls that set inputs and read the witness back.

use num_bigint::{BigInt, BigUint, Sign};
use wasmtime::{Caller, Engine, Extern, Instance, Linker, Memory, Module, Store, TypedFunc};

use crate::{signal_hash, wide_mul, InputSignal, Witness, WitnessError};

type Result<T> = std::result::Result<T, WitnessError>;

/// A compiled witness generator.
pub struct WitnessCalculator {
    engine: Engine,
    module: Module,
}

fn engine() -> Engine {
    // Cranelift at its default (speed) level, compiling functions in parallel; wide
    // arithmetic for the rewritten field multiplication (`crate::wide_mul`).
    let mut config = wasmtime::Config::new();
    config.wasm_wide_arithmetic(true);
    Engine::new(&config).expect("wasmtime's default configuration with wide arithmetic")
}

/// `FASTZK_NO_WIDE_MUL=1` runs circom's modules as they are (to measure the rewrite, or
/// to rule it out); like fastzk's other switches, on when set to anything but empty or 0.
fn wide_mul_enabled() -> bool {
    !std::env::var_os("FASTZK_NO_WIDE_MUL").is_some_and(|v| !v.is_empty() && v != "0")
}

impl WitnessCalculator {
    /// Compiles a module (Cranelift; a large circuit takes seconds, hence
    /// [`Self::serialize`] for a cache).
    ///
    /// circom's field multiplication is replaced by a faster one when the module has
    /// it (`crate::wide_mul`), after the two are compared on this module; any doubt
    /// and the module runs as it is.
    pub fn compile(wasm: &[u8]) -> Result<Self> {
        if wide_mul_enabled() {
            if let Some((patched, q)) = wide_mul::patch(wasm) {
                if let Ok(calc) = Self::compile_as_is(&patched) {
                    if calc.wide_mul_agrees(&q) {
                        return Ok(calc);
                    }
                }
            }
        }
        Self::compile_as_is(wasm)
    }

    fn compile_as_is(wasm: &[u8]) -> Result<Self> {
        let engine = engine();
        let module =
            Module::new(&engine, wasm).map_err(|e| WitnessError::Compile(e.to_string()))?;
        check_exports(&module)?;
        Ok(Self { engine, module })
    }

    /// The compiled code, for a cache; [`Self::deserialize`] reads it back.
    pub fn serialize(&self) -> Result<Vec<u8>> {
        self.module
            .serialize()
            .map_err(|e| WitnessError::Compile(e.to_string()))
    }

    /// Reads what [`Self::serialize`] wrote; fails (and the caller compiles again) when
    /// the bytes come from another wasmtime version or configuration.
    ///
    /// # Safety
    /// The bytes are machine code that will run: they must come from
    /// [`Self::serialize`] and have been kept where only this user can write.
    pub unsafe fn deserialize(bytes: &[u8]) -> Result<Self> {
        let engine = engine();
        // SAFETY: per the caller, the bytes are this crate's own serialized module;
        // wasmtime checks the version and configuration header before using them.
        let module = unsafe { Module::deserialize(&engine, bytes) }
            .map_err(|e| WitnessError::Compile(e.to_string()))?;
        check_exports(&module)?;
        Ok(Self { engine, module })
    }

    /// [`Self::deserialize`] from a file, mapped rather than read (compiled circuits run
    /// to tens of megabytes).
    ///
    /// # Safety
    /// As for [`Self::deserialize`]; the file must also not change while it is used.
    pub unsafe fn deserialize_file(path: &std::path::Path) -> Result<Self> {
        let engine = engine();
        // SAFETY: per the caller (see `deserialize`).
        let module = unsafe { Module::deserialize_file(&engine, path) }
            .map_err(|e| WitnessError::Compile(e.to_string()))?;
        check_exports(&module)?;
        Ok(Self { engine, module })
    }

    /// Changes whenever compiled code from [`Self::serialize`] would not load (another
    /// wasmtime, CPU features or settings): part of a cache key.
    pub fn compatibility_tag() -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        engine().precompile_compatibility_hash().hash(&mut h);
        wide_mul_enabled().hash(&mut h);
        h.finish()
    }

    /// Whether circom's field multiplication was replaced (see [`Self::compile`]).
    pub fn uses_wide_mul(&self) -> bool {
        self.module.get_export(wide_mul::PATCHED_EXPORT).is_some()
    }

    /// Whether the rewritten multiplication gives circom's bytes on edge cases (0, 1,
    /// q − 1, q, 2^256 − 1, …, every pair of them), unreduced and reduced pseudo-random
    /// inputs, and with the result written over an input.
    fn wide_mul_agrees(&self, q: &[u64; 4]) -> bool {
        let check = || -> Option<bool> {
            let mut run = Run::new(self, Box::new(|_| {})).ok()?;
            let memory = run.instance.get_memory(&mut run.store, "memory")?;
            let patched = run
                .func::<(i32, i32, i32), ()>(wide_mul::PATCHED_EXPORT)
                .ok()?;
            let reference = run
                .func::<(i32, i32, i32), ()>(wide_mul::REFERENCE_EXPORT)
                .ok()?;
            // Scratch at the top of the memory: x, y, r for each version.
            let top = memory.data_size(&run.store).checked_sub(256)? & !63;
            let base = i32::try_from(top).ok()?;
            let (x, y, r1, r2) = (base, base + 32, base + 64, base + 96);
            let one = |store: &mut Store<State>, a: &[u8; 32], b: &[u8; 32]| {
                let mem = memory.data_mut(&mut *store);
                mem[top..top + 32].copy_from_slice(a);
                mem[top + 32..top + 64].copy_from_slice(b);
                reference.call(&mut *store, (x, y, r1)).ok()?;
                patched.call(&mut *store, (x, y, r2)).ok()?;
                // In place: r = x, as circom's code calls it.
                patched.call(&mut *store, (x, y, x)).ok()?;
                let mem = memory.data(&*store);
                let expected = &mem[top + 64..top + 96];
                Some(expected == &mem[top + 96..top + 128] && expected == &mem[top..top + 32])
            };
            let cases = wide_mul::test_values(q);
            for a in &cases {
                for b in &cases {
                    if !one(&mut run.store, a, b)? {
                        return Some(false);
                    }
                }
            }
            Some(true)
        };
        check() == Some(true)
    }

    /// Runs the circuit on `inputs`; the circuit's `log` lines go to `on_log`.
    pub fn calculate(
        &self,
        inputs: &[InputSignal],
        on_log: impl FnMut(&str) + Send + 'static,
    ) -> Result<Witness> {
        let mut run = Run::new(self, Box::new(on_log))?;
        let (prime, n32) = run.prime()?;
        run.set_inputs(inputs, &prime, n32)?;
        run.witness(prime, n32)
    }
}

const EXPORTS: [&str; 11] = [
    "getVersion",
    "getFieldNumLen32",
    "getRawPrime",
    "readSharedRWMemory",
    "writeSharedRWMemory",
    "init",
    "getInputSignalSize",
    "setInputSignal",
    "getWitnessSize",
    "getInputSize",
    "getWitness",
];

fn check_exports(module: &Module) -> Result<()> {
    let missing: Vec<&str> = EXPORTS
        .iter()
        .copied()
        .filter(|n| module.get_export(n).is_none())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(WitnessError::NotCircom(format!(
            "no export {} (circom 2 witness generators have them; circom 1's are not supported)",
            missing.join(", ")
        )))
    }
}

/// What the imports collect while the circuit runs.
struct State {
    /// `printErrorMessage`'s text, reported when the circuit aborts.
    errors: String,
    /// The `log` line being assembled.
    line: String,
    on_log: Box<dyn FnMut(&str) + Send>,
}

impl State {
    /// One piece of a `log` call: its items are joined by spaces, and every call ends
    /// with a lone "\n", which completes the line.
    fn log_piece(&mut self, piece: &str) {
        if piece == "\n" {
            let line = std::mem::take(&mut self.line);
            (self.on_log)(&line);
        } else {
            if !self.line.is_empty() {
                self.line.push(' ');
            }
            self.line.push_str(piece);
        }
    }
}

/// The circuit aborted through `exceptionHandler`.
#[derive(Debug)]
struct Abort(i32);

/// circom's abort codes 1 to 7, in its runtime's words.
const ABORT_REASONS: [&str; 7] = [
    "signal not found",
    "too many signals set",
    "signal already set",
    "assert failed",
    "not enough memory",
    "input signal array access exceeds the size",
    "out of bounds array access",
];

impl std::fmt::Display for Abort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reason = usize::try_from(self.0)
            .ok()
            .and_then(|code| ABORT_REASONS.get(code.checked_sub(1)?));
        f.write_str(reason.copied().unwrap_or("unknown error"))
    }
}

impl std::error::Error for Abort {}

/// The text the module offers through `getMessageChar`, up to its terminating zero.
fn take_message(caller: &mut Caller<'_, State>) -> wasmtime::Result<String> {
    let Some(Extern::Func(f)) = caller.get_export("getMessageChar") else {
        return Ok(String::new());
    };
    let f = f.typed::<(), i32>(&caller)?;
    let mut s = String::new();
    loop {
        let c = f.call(&mut *caller, ())?;
        if c == 0 || s.len() > 1 << 16 {
            return Ok(s);
        }
        // Bytes as JavaScript's String.fromCharCode takes them.
        s.push(char::from_u32(c as u32).unwrap_or(char::REPLACEMENT_CHARACTER));
    }
}

/// The value in the shared buffer, as `showSharedRWMemory` prints it.
fn shared_value(caller: &mut Caller<'_, State>) -> wasmtime::Result<String> {
    let func = |caller: &mut Caller<'_, State>, name: &str| match caller.get_export(name) {
        Some(Extern::Func(f)) => Ok(f),
        _ => Err(wasmtime::Error::msg(format!("no export {name}"))),
    };
    let n32 = func(caller, "getFieldNumLen32")?
        .typed::<(), i32>(&caller)?
        .call(&mut *caller, ())?;
    let read = func(caller, "readSharedRWMemory")?.typed::<i32, i32>(&caller)?;
    let mut words = Vec::new();
    for j in 0..n32.clamp(0, 64) {
        words.push(read.call(&mut *caller, j)? as u32);
    }
    Ok(BigUint::from_slice(&words).to_string())
}

fn linker(engine: &Engine) -> wasmtime::Result<Linker<State>> {
    let mut l = Linker::new(engine);
    l.func_wrap(
        "runtime",
        "exceptionHandler",
        |_: Caller<'_, State>, code: i32| -> wasmtime::Result<()> { Err(Abort(code).into()) },
    )?;
    l.func_wrap(
        "runtime",
        "printErrorMessage",
        |mut caller: Caller<'_, State>| -> wasmtime::Result<()> {
            let m = take_message(&mut caller)?;
            let errors = &mut caller.data_mut().errors;
            if !errors.is_empty() {
                errors.push_str("; ");
            }
            errors.push_str(m.trim_end());
            Ok(())
        },
    )?;
    l.func_wrap(
        "runtime",
        "writeBufferMessage",
        |mut caller: Caller<'_, State>| -> wasmtime::Result<()> {
            let m = take_message(&mut caller)?;
            caller.data_mut().log_piece(&m);
            Ok(())
        },
    )?;
    l.func_wrap(
        "runtime",
        "showSharedRWMemory",
        |mut caller: Caller<'_, State>| -> wasmtime::Result<()> {
            let v = shared_value(&mut caller)?;
            caller.data_mut().log_piece(&v);
            Ok(())
        },
    )?;
    Ok(l)
}

/// One instance of the module and the calls into it.
struct Run {
    store: Store<State>,
    read: TypedFunc<i32, i32>,
    write: TypedFunc<(i32, i32), ()>,
    instance: Instance,
    /// The module's memory and where its shared buffer starts, when it exports them:
    /// the witness is then read straight from memory (a call per word costs about as
    /// much as the rest of reading).
    shared: Option<(Memory, usize)>,
}

impl Run {
    fn new(calc: &WitnessCalculator, on_log: Box<dyn FnMut(&str) + Send>) -> Result<Self> {
        let state = State {
            errors: String::new(),
            line: String::new(),
            on_log,
        };
        let mut store = Store::new(&calc.engine, state);
        let not_circom = |e: wasmtime::Error| WitnessError::NotCircom(format!("{e:#}"));
        let instance = linker(&calc.engine)
            .and_then(|l| l.instantiate(&mut store, &calc.module))
            .map_err(not_circom)?;
        let read = instance
            .get_typed_func(&mut store, "readSharedRWMemory")
            .map_err(not_circom)?;
        let write = instance
            .get_typed_func(&mut store, "writeSharedRWMemory")
            .map_err(not_circom)?;
        let mut run = Self {
            store,
            read,
            write,
            instance,
            shared: None,
        };
        let version = run.call0("getVersion")?;
        if version != 2 {
            return Err(WitnessError::NotCircom(format!(
                "made by circom {version}; fastzk runs circom 2 witness generators"
            )));
        }
        let memory = run.instance.get_memory(&mut run.store, "memory");
        if let (Some(m), Ok(start)) = (memory, run.func::<(), i32>("getSharedRWMemoryStart")) {
            let start = start
                .call(&mut run.store, ())
                .map_err(|e| run.abort(e, None))?;
            run.shared = Some((m, start as u32 as usize));
        }
        Ok(run)
    }

    fn func<P: wasmtime::WasmParams, R: wasmtime::WasmResults>(
        &mut self,
        name: &str,
    ) -> Result<TypedFunc<P, R>> {
        self.instance
            .get_typed_func(&mut self.store, name)
            .map_err(|e| WitnessError::NotCircom(format!("export {name}: {e:#}")))
    }

    fn call0(&mut self, name: &str) -> Result<i32> {
        let f = self.func::<(), i32>(name)?;
        f.call(&mut self.store, ()).map_err(|e| self.abort(e, None))
    }

    /// An error from a call: the circuit's abort with its message, or a trap.
    fn abort(&mut self, e: wasmtime::Error, context: Option<String>) -> WitnessError {
        let errors = std::mem::take(&mut self.store.data_mut().errors);
        let what = match e.downcast_ref::<Abort>() {
            Some(a) if errors.is_empty() => a.to_string(),
            Some(a) => format!("{a}: {errors}"),
            None => format!("the circuit trapped: {e:#}"),
        };
        WitnessError::Circuit { what, context }
    }

    fn read_shared(&mut self, n32: usize, out: &mut Vec<u32>) -> Result<()> {
        if let Some((m, start)) = self.shared {
            let bytes = m
                .data(&self.store)
                .get(start..start + 4 * n32)
                .ok_or_else(|| {
                    WitnessError::NotCircom("the shared buffer lies outside memory".into())
                })?;
            out.extend(
                bytes
                    .chunks_exact(4)
                    .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes"))),
            );
            return Ok(());
        }
        for j in 0..n32 {
            let w =
                self.read
                    .call(&mut self.store, j as i32)
                    .map_err(|e| WitnessError::Circuit {
                        what: format!("reading the shared buffer: {e:#}"),
                        context: None,
                    })?;
            out.push(w as u32);
        }
        Ok(())
    }

    fn prime(&mut self) -> Result<(BigUint, usize)> {
        let n32 = self.call0("getFieldNumLen32")?;
        if !(1..=64).contains(&n32) {
            return Err(WitnessError::NotCircom(format!(
                "field of {n32} 32-bit words"
            )));
        }
        let n32 = n32 as usize;
        let f = self.func::<(), ()>("getRawPrime")?;
        f.call(&mut self.store, ())
            .map_err(|e| self.abort(e, None))?;
        let mut words = Vec::with_capacity(n32);
        self.read_shared(n32, &mut words)?;
        let prime = BigUint::from_slice(&words);
        if prime < BigUint::from(2u8) {
            return Err(WitnessError::NotCircom(format!("prime {prime}")));
        }
        Ok((prime, n32))
    }

    fn set_inputs(&mut self, inputs: &[InputSignal], prime: &BigUint, n32: usize) -> Result<()> {
        let init = self.func::<i32, ()>("init")?;
        // No sanity check, as `snarkjs wtns calculate`: the circuit's own asserts run.
        init.call(&mut self.store, 0)
            .map_err(|e| self.abort(e, None))?;
        let size = self.func::<(i32, i32), i32>("getInputSignalSize")?;
        let set = self.func::<(i32, i32, i32), ()>("setInputSignal")?;
        let p = BigInt::from_biguint(Sign::Plus, prime.clone());
        let mut count = 0usize;
        for s in inputs {
            let h = signal_hash(&s.name);
            let (msb, lsb) = ((h >> 32) as u32 as i32, h as u32 as i32);
            let expected = size
                .call(&mut self.store, (msb, lsb))
                .map_err(|e| self.abort(e, Some(format!("looking up input signal {}", s.name))))?;
            if expected < 0 {
                return Err(WitnessError::UnknownSignal(s.name.clone()));
            }
            if expected as usize != s.values.len() {
                return Err(WitnessError::WrongCount {
                    signal: s.name.clone(),
                    expected: expected as usize,
                    got: s.values.len(),
                });
            }
            for (i, v) in s.values.iter().enumerate() {
                let reduced = ((v % &p) + &p) % &p;
                let mut words = reduced.magnitude().to_u32_digits();
                words.resize(n32, 0);
                for (j, w) in words.iter().enumerate() {
                    self.write
                        .call(&mut self.store, (j as i32, *w as i32))
                        .map_err(|e| self.abort(e, None))?;
                }
                set.call(&mut self.store, (msb, lsb, i as i32))
                    .map_err(|e| {
                        let at = if s.values.len() > 1 {
                            format!(
                                "raised while setting input signal {}, value {} of {}",
                                s.name,
                                i + 1,
                                s.values.len()
                            )
                        } else {
                            format!("raised while setting input signal {}", s.name)
                        };
                        self.abort(e, Some(at))
                    })?;
                count += 1;
            }
        }
        let total = self.call0("getInputSize")?.max(0) as usize;
        if count < total {
            return Err(WitnessError::MissingInputs { set: count, total });
        }
        Ok(())
    }

    fn witness(&mut self, prime: BigUint, n32: usize) -> Result<Witness> {
        let n = self.call0("getWitnessSize")?.max(0) as usize;
        let get = self.func::<i32, ()>("getWitness")?;
        let mut words = Vec::with_capacity(n * n32);
        for i in 0..n {
            get.call(&mut self.store, i as i32)
                .map_err(|e| self.abort(e, Some(format!("reading witness value {i}"))))?;
            self.read_shared(n32, &mut words)?;
        }
        Ok(Witness { n32, prime, words })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abort_codes_read_as_circom_words_and_unknown_codes_do_not_panic() {
        assert_eq!(Abort(1).to_string(), "signal not found");
        assert_eq!(Abort(4).to_string(), "assert failed");
        assert_eq!(Abort(7).to_string(), "out of bounds array access");
        for code in [0, 8, -1, i32::MIN, i32::MAX] {
            assert_eq!(Abort(code).to_string(), "unknown error");
        }
    }
}
