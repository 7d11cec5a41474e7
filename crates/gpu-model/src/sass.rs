//! Reading what ptxas and nvdisasm print: resources per function (`ptxas -v`) and the SASS
//! instruction mix per function (`nvdisasm -c`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What `ptxas -v` reports for one function.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resources {
    /// Registers per thread (entry functions; 0 for called functions, which use the
    /// caller's).
    pub registers: u32,
    pub stack_frame: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    /// Static shared memory per block, bytes.
    pub shared: u32,
}

impl Resources {
    pub fn spill_bytes(&self) -> u32 {
        self.spill_stores + self.spill_loads
    }
}

/// `ptxas -v` output: resources by (mangled) function name.
pub fn parse_ptxas_verbose(log: &str) -> BTreeMap<String, Resources> {
    let mut out: BTreeMap<String, Resources> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in log.lines() {
        let line = line.trim();
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            let name = rest.trim().to_string();
            out.entry(name.clone()).or_default();
            current = Some(name);
        } else if let Some(name) = current.as_ref() {
            let r = out.get_mut(name).expect("inserted above");
            if line.contains("bytes stack frame") {
                for part in line.split(',') {
                    let v = leading_number(part);
                    if part.contains("stack frame") {
                        r.stack_frame = v;
                    } else if part.contains("spill stores") {
                        r.spill_stores = v;
                    } else if part.contains("spill loads") {
                        r.spill_loads = v;
                    }
                }
            } else if let Some(rest) = line.split("Used ").nth(1) {
                for part in rest.split(',') {
                    let v = leading_number(part);
                    if part.contains("registers") {
                        r.registers = v;
                    } else if part.contains("bytes smem") {
                        r.shared = v;
                    }
                }
            }
        }
    }
    out
}

fn leading_number(s: &str) -> u32 {
    s.split_whitespace()
        .find_map(|w| w.parse().ok())
        .unwrap_or(0)
}

/// One function's SASS: the kernel it was compiled into (called functions are copied into
/// each kernel that calls them), its name, and its instructions by opcode (with modifiers,
/// `IMAD.WIDE.U32`); padding `NOP`s are not counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Function {
    pub kernel: String,
    /// The source-level name (demangled to its last component).
    pub name: String,
    /// The symbol ptxas reports resources under (mangled for called functions).
    pub symbol: String,
    pub entry: bool,
    pub mix: BTreeMap<String, u32>,
    /// Call sites by callee symbol (static: a call in a loop or a branch counts once).
    pub calls: BTreeMap<String, u32>,
}

impl Function {
    pub fn instructions(&self) -> u32 {
        self.mix.values().sum()
    }

    /// Issue slots on the integer multiply-add pipe: the wide and high forms produce two
    /// words and take two (an assumption stated in docs/GPU-MODEL.md).
    pub fn imad_slots(&self) -> u32 {
        self.mix
            .iter()
            .filter(|(op, _)| op.starts_with("IMAD"))
            .map(|(op, &n)| {
                if op.starts_with("IMAD.WIDE") || op.starts_with("IMAD.HI") {
                    2 * n
                } else {
                    n
                }
            })
            .sum()
    }
}

/// `nvdisasm -c` output: every function's instruction mix.
pub fn parse_nvdisasm(text: &str) -> Vec<Function> {
    let mut out: Vec<Function> = Vec::new();
    for line in text.lines() {
        if !line.starts_with(' ') && !line.starts_with('\t') && line.ends_with(':') {
            let label = &line[..line.len() - 1];
            if label.starts_with(".L") || label.starts_with(".text") {
                continue;
            }
            // `kernel:` for an entry, `$kernel$callee:` for a function it calls.
            let (kernel, symbol, entry) = match label.strip_prefix('$') {
                Some(rest) => match rest.split_once('$') {
                    Some((k, f)) => (k, f, false),
                    None => continue,
                },
                None => (label, label, true),
            };
            out.push(Function {
                kernel: kernel.to_string(),
                name: demangle_last(symbol),
                symbol: symbol.to_string(),
                entry,
                mix: BTreeMap::new(),
                calls: BTreeMap::new(),
            });
            continue;
        }
        let Some(f) = out.last_mut() else { continue };
        let Some(op) = opcode(line) else { continue };
        if op != "NOP" {
            *f.mix.entry(op.to_string()).or_default() += 1;
        }
        if op.starts_with("CALL") {
            // CALL.REL.NOINC `($kernel$callee) ;
            if let Some(target) = line.split("`($").nth(1).and_then(|t| t.split(')').next()) {
                if let Some((_, callee)) = target.split_once('$') {
                    *f.calls.entry(callee.to_string()).or_default() += 1;
                }
            }
        }
    }
    out
}

/// The opcode of an instruction line `/*0040*/  @!P0 IMAD.WIDE.U32 R2, ... ;`.
fn opcode(line: &str) -> Option<&str> {
    let start = line.find("/*")?;
    let rest = &line[start + 2..];
    let end = rest.find("*/")?;
    if !rest[..end].chars().all(|c| c.is_ascii_hexdigit()) || end == 0 {
        return None;
    }
    let mut words = rest[end + 2..].split_whitespace();
    let first = words.next()?;
    let op = if first.starts_with('@') {
        words.next()?
    } else {
        first
    };
    Some(op.trim_end_matches(';'))
}

/// The last component of an Itanium-mangled name (`_ZN…9probe_mulE…` → `probe_mul`,
/// `_ZL9probe_mul…` → `probe_mul`); a plain name as it is.
pub fn demangle_last(mangled: &str) -> String {
    let Some(rest) = mangled.strip_prefix("_Z") else {
        return mangled.to_string();
    };
    let bytes = rest.as_bytes();
    let mut i = 0;
    if i < bytes.len() && (bytes[i] == b'N' || bytes[i] == b'L') {
        i += 1;
    }
    let mut last = None;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let len: usize = rest[start..i].parse().unwrap_or(0);
        if i + len > bytes.len() {
            break;
        }
        last = Some(&rest[i..i + len]);
        i += len;
    }
    last.map_or_else(|| mangled.to_string(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The shapes of the tools' output, written out (not captured from a kernel).
    const PTXAS: &str = "\
ptxas info    : 64 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
    8 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 368 bytes cmem[0]
ptxas info    : Compile time = 1.000 ms
ptxas info    : Function properties for _ZN3ns4helpE2ff
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
";

    #[test]
    fn ptxas_resources() {
        let r = parse_ptxas_verbose(PTXAS);
        assert_eq!(
            r["k"],
            Resources {
                registers: 40,
                stack_frame: 8,
                spill_stores: 12,
                spill_loads: 16,
                shared: 2048
            }
        );
        assert_eq!(r["k"].spill_bytes(), 28);
        assert_eq!(r["_ZN3ns4helpE2ff"], Resources::default());
    }

    const DIS: &str = "\
        .text.k:
k:
.text.k:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   IMAD.WIDE.U32 R2, R5, UR4, R2 ;
        /*0020*/              @!P0 IMAD.WIDE.U32.X R2, R5, UR4, R2, P1 ;
        /*0030*/                   CALL.REL.NOINC `($k$_ZN15_INTERNAL_abcde9probe_mulE8bn254_frS0_) ;
.L_x_0:
        /*0040*/                   EXIT ;
        /*0050*/                   NOP;
$k$_ZN15_INTERNAL_abcde9probe_mulE8bn254_frS0_:
        /*0060*/                   IMAD.HI.U32 R2, R5, R4, RZ ;
        /*0070*/                   IMAD.X R2, R5, R4, RZ, P0 ;
        /*0080*/                   RET.REL.NODEC R4 `(k) ;
";

    #[test]
    fn nvdisasm_mix() {
        let f = parse_nvdisasm(DIS);
        assert_eq!(f.len(), 2);
        assert_eq!((f[0].kernel.as_str(), f[0].name.as_str()), ("k", "k"));
        assert!(f[0].entry);
        assert_eq!(f[0].instructions(), 5); // the NOP is padding
        assert_eq!(f[0].mix["IMAD.WIDE.U32"], 1);
        assert_eq!(f[0].mix["IMAD.WIDE.U32.X"], 1);
        assert_eq!(f[0].imad_slots(), 4);
        assert_eq!(f[0].calls["_ZN15_INTERNAL_abcde9probe_mulE8bn254_frS0_"], 1);
        assert_eq!(
            (f[1].kernel.as_str(), f[1].name.as_str()),
            ("k", "probe_mul")
        );
        assert!(!f[1].entry);
        assert_eq!(f[1].instructions(), 3);
        assert_eq!(f[1].imad_slots(), 3);
    }

    #[test]
    fn demangling() {
        assert_eq!(
            demangle_last("_ZN15_INTERNAL_abcde9probe_mulE8bn254_frS0_"),
            "probe_mul"
        );
        assert_eq!(demangle_last("_ZL12bn254_g1_dblP2xy"), "bn254_g1_dbl");
        assert_eq!(demangle_last("plain"), "plain");
        assert_eq!(demangle_last("_Z"), "_Z");
        assert_eq!(demangle_last("_ZN99short"), "_ZN99short");
    }
}
