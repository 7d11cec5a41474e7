//! circom's WebAssembly witness generators (`circuit_js/circuit.wasm`), run in process
//! with wasmtime, so the whole circom pipeline needs no JavaScript runtime.
//!
//! The module talks to its host the way circom 2's `witness_calculator.js` does: the
//! field's size and prime come through a small shared read/write buffer; each input
//! value is written there and set by the 64-bit FNV-1a hash of its signal's qualified
//! name; the circuit runs as inputs arrive; the witness is read back value by value.
//! The host provides four imports: `exceptionHandler` (the circuit aborts: a failed
//! assert, an unknown signal, …), `printErrorMessage` (the circuit's own account of the
//! failure, such as the template and line, read character by character), and
//! `writeBufferMessage` / `showSharedRWMemory` (circom's `log`).
//!
//! The output is snarkjs' `.wtns` for any prime circom supports (BN254, BLS12-381,
//! Goldilocks, …): the same bytes `snarkjs wtns calculate` writes.

mod input;

#[cfg(feature = "runtime")]
mod runtime;
#[cfg(feature = "wide-mul")]
pub mod wide_mul;

use num_bigint::BigUint;

pub use input::{parse_inputs, InputSignal};
#[cfg(feature = "runtime")]
pub use runtime::WitnessCalculator;

/// What can go wrong between an input file and a witness.
#[derive(Debug, thiserror::Error)]
pub enum WitnessError {
    #[error("{file}: {}{message}", signal.as_ref().map(|s| format!("signal {s}: ")).unwrap_or_default())]
    Input {
        file: String,
        signal: Option<String>,
        message: String,
    },
    #[error("not a circom witness generator: {0}")]
    NotCircom(String),
    #[error("the WebAssembly module does not compile: {0}")]
    Compile(String),
    #[error("input signal {0} is not an input of the circuit")]
    UnknownSignal(String),
    #[error("input signal {signal} takes {expected} values, the input gives {got}")]
    WrongCount {
        signal: String,
        expected: usize,
        got: usize,
    },
    #[error("the input sets {set} of the circuit's {total} input values")]
    MissingInputs { set: usize, total: usize },
    #[error("{what}{}", context.as_ref().map(|c| format!(" ({c})")).unwrap_or_default())]
    Circuit {
        /// circom's own words for the abort ("Assert Failed", …), with the circuit's
        /// message (template and line) when it gives one.
        what: String,
        /// Which input was being set when the circuit ran and stopped.
        context: Option<String>,
    },
}

/// A witness: `len` values of `n32` 32-bit words each, least significant first, as the
/// `.wtns` file stores them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    pub n32: usize,
    pub prime: BigUint,
    words: Vec<u32>,
}

impl Witness {
    /// Number of values (`z[0] = 1` included).
    pub fn len(&self) -> usize {
        self.words.len() / self.n32
    }
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
    /// Value `i` as an integer below the prime.
    pub fn value(&self, i: usize) -> BigUint {
        BigUint::from_slice(&self.words[i * self.n32..(i + 1) * self.n32])
    }

    /// snarkjs' `.wtns` (version 2): section 1 holds `n8`, the prime and the count;
    /// section 2 the values, little-endian.
    pub fn to_wtns_bytes(&self) -> Vec<u8> {
        let n8 = 4 * self.n32;
        let mut b = Vec::with_capacity(44 + n8 + 4 * self.words.len());
        b.extend_from_slice(b"wtns");
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&(8 + n8 as u64).to_le_bytes());
        b.extend_from_slice(&(n8 as u32).to_le_bytes());
        b.extend_from_slice(&le_bytes(&self.prime, n8));
        b.extend_from_slice(&(self.len() as u32).to_le_bytes());
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&((n8 * self.len()) as u64).to_le_bytes());
        for w in &self.words {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b
    }
}

fn le_bytes(x: &BigUint, n: usize) -> Vec<u8> {
    let mut v = x.to_bytes_le();
    v.resize(n, 0);
    v
}

/// 64-bit FNV-1a over the name's UTF-16 code units, as circom's runtime hashes signal
/// names (JavaScript's `charCodeAt`).
pub fn signal_hash(name: &str) -> u64 {
    name.encode_utf16().fold(0xcbf2_9ce4_8422_2325, |h, c| {
        (h ^ u64::from(c)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
