//! circom's field multiplication rewritten with WebAssembly's wide arithmetic.
//!
//! circom's generators multiply field elements in `Fr_F1m_mul`, a Montgomery product on
//! 32-bit limbs (32×32-bit products in i64, carries by shifts and masks, 136
//! multiplications for a 256-bit field): about 40 % of the witness time of circomlib's
//! SHA-256. The wide-arithmetic proposal (`i64.mul_wide_u`, `i64.add128`,
//! `i64.sub128`), which Cranelift lowers to x86's `mul`/`adc`/`sbb`, does the same
//! product on 64-bit limbs with 36.
//!
//! The output is the same for every input, reduced or not: a word-by-word Montgomery
//! product computes T = (xy + mq) / 2^256 with m the one value in [0, 2^256) that makes
//! xy + mq ≡ 0 (mod 2^256), whatever the word size, and both versions subtract q once
//! when T ≥ q (T < 2^256 + q). [`patch`] still keeps circom's own body in the module
//! under [`REFERENCE_EXPORT`], and the calculator compares the two on edge cases and
//! random inputs before it uses the patched module (`crate::runtime`).
//!
//! Only a function that looks like circom's is touched: named `Fr_F1m_mul` in the name
//! section, of type `[i32 i32 i32] -> []`, with 8 limbs of locals, starting with its
//! `-q⁻¹ mod 2^32` constant, reading q from a data segment that agrees with that constant.
//! Anything else (another prime size, a module without names) is left as it is.

use std::ops::Range;

use wasm_encoder::{
    CodeSection, ExportKind, ExportSection, Function, FunctionSection, Instruction, MemArg, Module,
    RawSection, ValType,
};
use wasmparser::{DataKind, ExternalKind, Name, Operator, Parser, Payload, TypeRef};

/// The export of the rewritten multiplication, `(x, y, r)` as circom's.
pub const PATCHED_EXPORT: &str = "fastzk_wide_mul";
/// The export of circom's own multiplication, kept for the comparison.
pub const REFERENCE_EXPORT: &str = "fastzk_circom_mul";

const NAME: &str = "Fr_F1m_mul";
/// 64-bit limbs of the fields this rewrite handles (BN254's and BLS12-381's scalar fields).
const LIMBS: usize = 4;

/// The module with `Fr_F1m_mul` rewritten, and the prime it multiplies modulo; `None`
/// when the module has no function this rewrite recognises.
pub fn patch(wasm: &[u8]) -> Option<(Vec<u8>, [u64; LIMBS])> {
    let m = Scan::new(wasm)?;
    let index = m.function_named(NAME)?;
    let defined = usize::try_from(index.checked_sub(m.imported_funcs)?).ok()?;
    let type_index = *m.func_types.get(defined)?;
    if !m.is_mul_type(type_index) {
        return None;
    }
    let body = m.bodies.get(defined)?.clone();
    let (np32, q_addr) = circom_constants(&wasm[body.clone()])?;
    let q = m.read_data(q_addr)?;
    // circom's constant is -q⁻¹ mod 2^32, and the prime fills the eight limbs.
    if q[0].wrapping_mul(np32) & 0xffff_ffff != 0xffff_ffff || q[LIMBS - 1] >> 32 == 0 {
        return None;
    }

    let new_index = m.imported_funcs + m.func_types.len() as u32;
    let mut out = Module::new();
    for (id, range) in &m.sections {
        match id {
            3 => {
                let mut s = FunctionSection::new();
                for &t in m.func_types.iter().chain([&type_index]) {
                    s.function(t);
                }
                out.section(&s);
            }
            7 => {
                let mut s = ExportSection::new();
                for (name, kind, i) in &m.exports {
                    s.export(name, *kind, *i);
                }
                s.export(PATCHED_EXPORT, ExportKind::Func, index);
                s.export(REFERENCE_EXPORT, ExportKind::Func, new_index);
                out.section(&s);
            }
            10 => {
                let mut s = CodeSection::new();
                for (i, r) in m.bodies.iter().enumerate() {
                    if i == defined {
                        s.function(&wide_mul(&q));
                    } else {
                        s.raw(&wasm[r.clone()]);
                    }
                }
                s.raw(&wasm[body.clone()]);
                out.section(&s);
            }
            _ => {
                out.section(&RawSection {
                    id: *id,
                    data: &wasm[range.clone()],
                });
            }
        }
    }
    // A module without an export section (not circom's) gets none added.
    m.sections
        .iter()
        .any(|(id, _)| *id == 7)
        .then(|| (out.finish(), q))
}

/// What [`patch`] needs to know of a module, from one pass of the parser.
#[derive(Default)]
struct Scan<'a> {
    sections: Vec<(u8, Range<usize>)>,
    /// `[i32 i32 i32] -> []` per type index.
    mul_types: Vec<bool>,
    imported_funcs: u32,
    func_types: Vec<u32>,
    exports: Vec<(&'a str, ExportKind, u32)>,
    bodies: Vec<Range<usize>>,
    /// Active segments of memory 0 at constant offsets.
    data: Vec<(u64, &'a [u8])>,
    names: Vec<(u32, &'a str)>,
}

impl<'a> Scan<'a> {
    fn new(wasm: &'a [u8]) -> Option<Self> {
        let mut m = Scan::default();
        for payload in Parser::new(0).parse_all(wasm) {
            let payload = payload.ok()?;
            if let Some(section) = payload.as_section() {
                m.sections.push(section);
            }
            match payload {
                Payload::TypeSection(r) => {
                    for t in r.into_iter_err_on_gc_types() {
                        let t = t.ok()?;
                        m.mul_types.push(
                            t.params() == [wasmparser::ValType::I32; 3] && t.results().is_empty(),
                        );
                    }
                }
                Payload::ImportSection(r) => {
                    for import in r.into_imports() {
                        if matches!(import.ok()?.ty, TypeRef::Func(_)) {
                            m.imported_funcs += 1;
                        }
                    }
                }
                Payload::FunctionSection(r) => {
                    for t in r {
                        m.func_types.push(t.ok()?);
                    }
                }
                Payload::ExportSection(r) => {
                    for e in r {
                        let e = e.ok()?;
                        let kind = match e.kind {
                            ExternalKind::Func => ExportKind::Func,
                            ExternalKind::Table => ExportKind::Table,
                            ExternalKind::Memory => ExportKind::Memory,
                            ExternalKind::Global => ExportKind::Global,
                            _ => return None,
                        };
                        m.exports.push((e.name, kind, e.index));
                    }
                }
                Payload::CodeSectionEntry(body) => m.bodies.push(body.range()),
                Payload::DataSection(r) => {
                    for d in r {
                        let d = d.ok()?;
                        if let DataKind::Active {
                            memory_index: 0,
                            offset_expr,
                        } = d.kind
                        {
                            let mut ops = offset_expr.get_operators_reader();
                            if let Ok(Operator::I32Const { value }) = ops.read() {
                                m.data.push((u64::from(value as u32), d.data));
                            }
                        }
                    }
                }
                Payload::CustomSection(c) => {
                    if let wasmparser::KnownCustom::Name(names) = c.as_known() {
                        for n in names.into_iter().flatten() {
                            if let Name::Function(map) = n {
                                m.names
                                    .extend(map.into_iter().flatten().map(|n| (n.index, n.name)));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Some(m)
    }

    fn function_named(&self, name: &str) -> Option<u32> {
        let mut found = self.names.iter().filter(|(_, n)| *n == name);
        let (index, _) = found.next()?;
        found.next().is_none().then_some(*index)
    }

    fn is_mul_type(&self, type_index: u32) -> bool {
        self.mul_types.get(type_index as usize) == Some(&true)
    }

    /// The 256-bit little-endian number the data segments put at `addr` (later segments
    /// overwrite earlier ones, as instantiation does).
    fn read_data(&self, addr: u64) -> Option<[u64; LIMBS]> {
        let mut bytes = [None::<u8>; 8 * LIMBS];
        for (start, data) in &self.data {
            for (k, b) in bytes.iter_mut().enumerate() {
                let a = addr.checked_add(k as u64)?;
                let i = a.checked_sub(*start).and_then(|i| usize::try_from(i).ok());
                if let Some(v) = i.and_then(|i| data.get(i)) {
                    *b = Some(*v);
                }
            }
        }
        let mut q = [0u64; LIMBS];
        for (k, b) in bytes.iter().enumerate() {
            q[k / 8] |= u64::from((*b)?) << (8 * (k % 8));
        }
        Some(q)
    }
}

/// circom's `-q⁻¹ mod 2^32` (the body's first instruction) and the address it reads the
/// prime from (the first `i32.const 0; i64.load32_u offset=A`), after checking the
/// locals are those of eight limbs.
fn circom_constants(body_bytes: &[u8]) -> Option<(u64, u64)> {
    let body = wasmparser::FunctionBody::new(wasmparser::BinaryReader::new(body_bytes, 0));
    let locals: Vec<_> = body
        .get_locals_reader()
        .ok()?
        .into_iter()
        .collect::<Result<_, _>>()
        .ok()?;
    // c0, c1, np32 and x, y, m, q per 32-bit limb.
    let i64_locals: u32 = locals
        .iter()
        .map(|(n, t)| {
            if *t == wasmparser::ValType::I64 {
                *n
            } else {
                u32::MAX
            }
        })
        .fold(0u32, |a, n| a.saturating_add(n));
    if locals.is_empty() || i64_locals != 3 + 4 * 2 * LIMBS as u32 {
        return None;
    }
    let mut ops = body.get_operators_reader().ok()?;
    let Operator::I64Const { value } = ops.read().ok()? else {
        return None;
    };
    let np32 = u64::try_from(value).ok().filter(|v| *v >> 32 == 0)?;
    let mut previous = None;
    while !ops.eof() {
        let op = ops.read().ok()?;
        if let (Some(Operator::I32Const { value: 0 }), Operator::I64Load32U { memarg }) =
            (&previous, &op)
        {
            return Some((np32, memarg.offset));
        }
        previous = Some(op);
    }
    None
}

/// Inputs on which the two multiplications are compared (every pair of them): the edges
/// (0, 1, 2, q − 1, q, q + 1, 2^255, 2^256 − 1, 2^256 mod q) and 40 pseudo-random
/// values, half of them reduced.
pub fn test_values(q: &[u64; LIMBS]) -> Vec<[u8; 8 * LIMBS]> {
    let add = |a: &[u64; LIMBS], d: i64| {
        let mut r = *a;
        let mut carry = d as i128;
        for limb in r.iter_mut() {
            let s = *limb as i128 + carry;
            *limb = s as u64;
            carry = s >> 64;
        }
        r
    };
    let zero = [0u64; LIMBS];
    let mut values = vec![
        zero,
        add(&zero, 1),
        add(&zero, 2),
        add(q, -1),
        *q,
        add(q, 1),
        [0, 0, 0, 1 << 63],
        [u64::MAX; LIMBS],
        // 2^256 mod q = 2^256 − k·q for the largest k that fits: subtract until below q.
        {
            let mut r = [u64::MAX; LIMBS];
            while !less(&r, q) {
                r = sub(&r, q);
            }
            add(&r, 1)
        },
    ];
    // splitmix64: fixed, so a failure repeats.
    let mut state = 0x5eed_f00d_u64;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for i in 0..40 {
        let mut v = [next(), next(), next(), next()];
        if i % 2 == 0 {
            v[LIMBS - 1] %= q[LIMBS - 1];
        }
        values.push(v);
    }
    values
        .iter()
        .map(|v| {
            let mut b = [0u8; 8 * LIMBS];
            for (k, limb) in v.iter().enumerate() {
                b[8 * k..8 * k + 8].copy_from_slice(&limb.to_le_bytes());
            }
            b
        })
        .collect()
}

fn less(a: &[u64; LIMBS], b: &[u64; LIMBS]) -> bool {
    a.iter().rev().cmp(b.iter().rev()) == std::cmp::Ordering::Less
}

fn sub(a: &[u64; LIMBS], b: &[u64; LIMBS]) -> [u64; LIMBS] {
    let mut r = [0u64; LIMBS];
    let mut borrow = false;
    for k in 0..LIMBS {
        let (d, b1) = a[k].overflowing_sub(b[k]);
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        r[k] = d;
        borrow = b1 || b2;
    }
    r
}

/// `-q⁻¹ mod 2^64` by Newton's iteration (q odd).
fn neg_inverse(q0: u64) -> u64 {
    let mut inv = 1u64;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(q0.wrapping_mul(inv)));
    }
    inv.wrapping_neg()
}

/// The body: `r = x·y·2^-256 mod q` by CIOS on four 64-bit limbs, then one conditional
/// subtraction of q, stored to `r` after every input word is read (so `r` may alias).
fn wide_mul(q: &[u64; LIMBS]) -> Function {
    use Instruction as I;
    // Parameters 0..3 are x, y, r; then the i64 locals below.
    const X: u32 = 3;
    const Y: u32 = X + LIMBS as u32;
    const T: u32 = Y + LIMBS as u32; // t0..t5
    const C: u32 = T + LIMBS as u32 + 2;
    const M: u32 = C + 1;
    const D: u32 = M + 1; // T − q, limb by limb
    const SUBTRACT: u32 = D + LIMBS as u32; // the one i32 local
    let mut f = Function::new([(SUBTRACT - X, ValType::I64), (1, ValType::I32)]);
    let mem = |k: usize| MemArg {
        offset: 8 * k as u64,
        align: 3,
        memory_index: 0,
    };
    let q_const = |f: &mut Function, k: usize| {
        f.instruction(&I::I64Const(q[k] as i64));
    };
    for k in 0..LIMBS {
        for (param, base) in [(0, X), (1, Y)] {
            f.instruction(&I::LocalGet(param));
            f.instruction(&I::I64Load(mem(k)));
            f.instruction(&I::LocalSet(base + k as u32));
        }
    }
    // (C, dst) = a + b·c + C, as 128-bit sums that cannot overflow.
    let mul_add =
        |f: &mut Function, a: u32, b: &dyn Fn(&mut Function), c: u32, dst: Option<u32>| {
            b(f);
            f.instruction(&I::LocalGet(c));
            f.instruction(&I::I64MulWideU);
            f.instruction(&I::LocalGet(a));
            f.instruction(&I::I64Const(0));
            f.instruction(&I::I64Add128);
            f.instruction(&I::LocalGet(C));
            f.instruction(&I::I64Const(0));
            f.instruction(&I::I64Add128);
            f.instruction(&I::LocalSet(C));
            match dst {
                Some(d) => f.instruction(&I::LocalSet(d)),
                None => f.instruction(&I::Drop),
            };
        };
    for i in 0..LIMBS as u32 {
        f.instruction(&I::I64Const(0));
        f.instruction(&I::LocalSet(C));
        for j in 0..LIMBS as u32 {
            let xj = move |f: &mut Function| {
                f.instruction(&I::LocalGet(X + j));
            };
            mul_add(&mut f, T + j, &xj, Y + i, Some(T + j));
        }
        // (t5, t4) = t4 + C
        for op in [
            I::LocalGet(T + 4),
            I::I64Const(0),
            I::LocalGet(C),
            I::I64Const(0),
            I::I64Add128,
            I::LocalSet(T + 5),
            I::LocalSet(T + 4),
            // m = t0 · (−q⁻¹) mod 2^64
            I::LocalGet(T),
            I::I64Const(neg_inverse(q[0]) as i64),
            I::I64Mul,
            I::LocalSet(M),
            I::I64Const(0),
            I::LocalSet(C),
        ] {
            f.instruction(&op);
        }
        for j in 0..LIMBS {
            let qj = move |f: &mut Function| q_const(f, j);
            let dst = (j > 0).then(|| T + j as u32 - 1);
            mul_add(&mut f, T + j as u32, &qj, M, dst);
        }
        // (C, t3) = t4 + C; t4 = t5 + C
        for op in [
            I::LocalGet(T + 4),
            I::I64Const(0),
            I::LocalGet(C),
            I::I64Const(0),
            I::I64Add128,
            I::LocalSet(C),
            I::LocalSet(T + 3),
            I::LocalGet(T + 5),
            I::LocalGet(C),
            I::I64Add,
            I::LocalSet(T + 4),
        ] {
            f.instruction(&op);
        }
    }
    // D = T − q with the borrow in C as 0 or −1 (its 128-bit sign).
    f.instruction(&I::I64Const(0));
    f.instruction(&I::LocalSet(C));
    for k in 0..LIMBS as u32 {
        f.instruction(&I::LocalGet(T + k));
        f.instruction(&I::I64Const(0));
        q_const(&mut f, k as usize);
        for op in [
            I::I64Const(0),
            I::I64Sub128,
            I::LocalGet(C),
            I::LocalGet(C),
            I::I64Add128,
            I::LocalSet(C),
            I::LocalSet(D + k),
        ] {
            f.instruction(&op);
        }
    }
    // Subtract when T ≥ 2^256 (t4 ≠ 0) or T ≥ q (no borrow): circom's rule.
    f.instruction(&I::LocalGet(T + 4));
    f.instruction(&I::I64Const(0));
    f.instruction(&I::I64Ne);
    f.instruction(&I::LocalGet(C));
    f.instruction(&I::I64Eqz);
    f.instruction(&I::I32Or);
    f.instruction(&I::LocalSet(SUBTRACT));
    for k in 0..LIMBS {
        f.instruction(&I::LocalGet(2));
        f.instruction(&I::LocalGet(D + k as u32));
        f.instruction(&I::LocalGet(T + k as u32));
        f.instruction(&I::LocalGet(SUBTRACT));
        f.instruction(&I::Select);
        f.instruction(&I::I64Store(mem(k)));
    }
    f.instruction(&I::End);
    f
}

#[cfg(all(test, feature = "runtime"))]
mod tests {
    use num_bigint::BigUint;
    use wasm_encoder::{
        CodeSection, ExportKind, ExportSection, FunctionSection, MemorySection, MemoryType, Module,
        TypeSection, ValType,
    };

    use super::*;

    fn limbs(hex: &str) -> [u64; LIMBS] {
        let n = BigUint::parse_bytes(hex.as_bytes(), 16).unwrap();
        let mut q = [0u64; LIMBS];
        for (k, d) in n.to_u64_digits().into_iter().enumerate() {
            q[k] = d;
        }
        q
    }

    /// x·y·2^-256 as any word-by-word Montgomery product gives it, with circom's final
    /// subtraction: T = (xy + mq) / 2^256, minus q when T ≥ q.
    fn reference(x: &[u8], y: &[u8], q: &BigUint) -> Vec<u8> {
        let r = BigUint::from(1u8) << 256;
        let (x, y) = (BigUint::from_bytes_le(x), BigUint::from_bytes_le(y));
        let xy = &x * &y;
        // m = −xy·q⁻¹ mod 2^256
        let q_inv = q.modpow(&((BigUint::from(1u8) << 255) - 1u8), &r); // q^(2^255−1) = q⁻¹ mod 2^256
        let m = ((&r - (&xy % &r)) * q_inv) % &r;
        let t: BigUint = (xy + m * q) >> 256;
        let t = if t >= *q { t - q } else { t };
        let mut out = t.to_bytes_le();
        out.resize(32, 0);
        out
    }

    /// A module with only the rewritten function, exported as `mul`, and one page.
    fn module(q: &[u64; LIMBS]) -> Vec<u8> {
        let mut m = Module::new();
        let mut types = TypeSection::new();
        types.ty().function([ValType::I32; 3], []);
        m.section(&types);
        let mut funcs = FunctionSection::new();
        funcs.function(0);
        m.section(&funcs);
        let mut mem = MemorySection::new();
        mem.memory(MemoryType {
            minimum: 1,
            maximum: None,
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        m.section(&mem);
        let mut exports = ExportSection::new();
        exports.export("mul", ExportKind::Func, 0);
        exports.export("memory", ExportKind::Memory, 0);
        m.section(&exports);
        let mut code = CodeSection::new();
        code.function(&wide_mul(q));
        m.section(&code);
        m.finish()
    }

    #[test]
    fn wide_mul_is_the_montgomery_product_for_every_input() {
        let mut config = wasmtime::Config::new();
        config.wasm_wide_arithmetic(true);
        let engine = wasmtime::Engine::new(&config).unwrap();
        for hex in [
            // BN254 r, BLS12-381 r, Pallas p, P-256's p (T ≥ 2^256 happens), 2^255 + 95
            "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001",
            "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001",
            "40000000000000000000000000000000224698fc094cf91b992d30ed00000001",
            "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
            "800000000000000000000000000000000000000000000000000000000000005f",
        ] {
            let q = limbs(hex);
            let q_big = BigUint::parse_bytes(hex.as_bytes(), 16).unwrap();
            let wasm = module(&q);
            let module = wasmtime::Module::new(&engine, &wasm).unwrap();
            let mut store = wasmtime::Store::new(&engine, ());
            let instance = wasmtime::Instance::new(&mut store, &module, &[]).unwrap();
            let mul = instance
                .get_typed_func::<(i32, i32, i32), ()>(&mut store, "mul")
                .unwrap();
            let memory = instance.get_memory(&mut store, "memory").unwrap();
            let values = test_values(&q);
            assert_eq!(values.len(), 49);
            for a in &values {
                for b in &values {
                    let mem = memory.data_mut(&mut store);
                    mem[..32].copy_from_slice(a);
                    mem[32..64].copy_from_slice(b);
                    mul.call(&mut store, (0, 32, 64)).unwrap();
                    let got = memory.data(&store)[64..96].to_vec();
                    assert_eq!(got, reference(a, b, &q_big), "q = {hex}");
                    // The result written over the first input.
                    mul.call(&mut store, (0, 32, 0)).unwrap();
                    assert_eq!(memory.data(&store)[..32], got[..]);
                }
            }
        }
    }

    #[test]
    fn neg_inverse_inverts() {
        for q0 in [
            1u64,
            3,
            0xf000_0001,
            0xffff_ffff_ffff_ffff,
            0x43e1_f593_f000_0001,
        ] {
            assert_eq!(q0.wrapping_mul(neg_inverse(q0)), u64::MAX);
        }
    }

    #[test]
    fn modules_without_circom_multiplication_are_left_alone() {
        assert!(patch(b"").is_none());
        assert!(patch(b"\0asm\x01\0\0\0garbage").is_none());
        let q = limbs("30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");
        // The rewritten function itself is not circom's (no name section, no constants).
        assert!(patch(&module(&q)).is_none());
    }
}
