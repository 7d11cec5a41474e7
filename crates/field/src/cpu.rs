//! What this CPU offers fastzk, detected once per process, and the environment switches
//! that turn each fast path off (to measure the others, or as an escape hatch).
//!
//! | capability | hardware | switch (any value but `0` turns it off) | used by |
//! |---|---|---|---|
//! | [`Capability::Adx`] | BMI2 + ADX | `FASTZK_NO_ADX` | Montgomery multiplication, 4 and 6 limbs |
//! | [`Capability::Avx2`] | AVX2 | `FASTZK_GOLDILOCKS_BACKEND=scalar` | packed Goldilocks, 4 lanes |
//! | [`Capability::Avx512`] | AVX-512F | `FASTZK_GOLDILOCKS_BACKEND=scalar\|avx2` | packed Goldilocks, 8 lanes; kernels on lanes (`FASTZK_NO_KERNEL_LANES` alone) |
//! | [`Capability::Ifma`] | AVX-512F + IFMA + VL | `FASTZK_NO_IFMA` | the MSM bucket flush on eight 52-bit lanes |
//! | [`Capability::Fma`] | AVX2 + FMA | `FASTZK_NO_FMA_LANES` | the same flush with products on FMA, where IFMA is absent or off (BN254 G1) |
//!
//! Every kernel asks here rather than detecting on its own, so `fastzk info` reports
//! exactly what the kernels will use.

use std::sync::OnceLock;

/// A CPU feature set one of fastzk's fast paths needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Capability {
    /// MULX/ADCX/ADOX (BMI2 and ADX): two carry chains in Montgomery multiplication.
    Adx,
    /// 256-bit vectors: four Goldilocks lanes.
    Avx2,
    /// 512-bit vectors: eight Goldilocks lanes.
    Avx512,
    /// AVX-512 IFMA (with F and VL): 52-bit multiply-add on eight lanes.
    Ifma,
    /// AVX2 and FMA: the eight 52-bit lanes on two 256-bit vectors, products on
    /// double-precision FMA.
    Fma,
}

impl Capability {
    pub const ALL: [Capability; 5] = [
        Capability::Adx,
        Capability::Avx2,
        Capability::Avx512,
        Capability::Ifma,
        Capability::Fma,
    ];

    /// Short name, as `fastzk info` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Capability::Adx => "mulx/adx",
            Capability::Avx2 => "avx2",
            Capability::Avx512 => "avx512f",
            Capability::Ifma => "avx512ifma",
            Capability::Fma => "avx2+fma",
        }
    }

    /// What fastzk runs on it.
    pub fn used_for(self) -> &'static str {
        match self {
            Capability::Adx => "Montgomery multiplication (4 and 6 limbs)",
            Capability::Avx2 => "packed Goldilocks, 4 lanes",
            Capability::Avx512 => "packed Goldilocks, 8 lanes; kernel lanes",
            Capability::Ifma => "MSM bucket flush, 8 lanes of 52 bits",
            Capability::Fma => "MSM flush on FMA lanes (BN254 G1, no IFMA)",
        }
    }

    /// The environment setting that turns it off.
    pub fn switch(self) -> &'static str {
        match self {
            Capability::Adx => "FASTZK_NO_ADX=1",
            Capability::Avx2 => "FASTZK_GOLDILOCKS_BACKEND=scalar",
            Capability::Avx512 => "FASTZK_GOLDILOCKS_BACKEND=avx2",
            Capability::Ifma => "FASTZK_NO_IFMA=1",
            Capability::Fma => "FASTZK_NO_FMA_LANES=1",
        }
    }

    /// Whether the CPU has it (regardless of the switches).
    pub fn in_hardware(self) -> bool {
        static HW: OnceLock<[bool; 5]> = OnceLock::new();
        HW.get_or_init(|| Capability::ALL.map(detect))[self as usize]
    }

    /// Whether fastzk uses it: the CPU has it and no switch turned it off.
    pub fn enabled(self) -> bool {
        match self {
            Capability::Adx => adx(),
            Capability::Avx2 => self.in_hardware() && goldilocks_lanes_cap() >= 4,
            Capability::Avx512 => self.in_hardware() && goldilocks_lanes_cap() >= 8,
            Capability::Ifma => {
                static IFMA: OnceLock<bool> = OnceLock::new();
                *IFMA.get_or_init(|| self.in_hardware() && !switched_off("FASTZK_NO_IFMA"))
            }
            Capability::Fma => {
                static FMA: OnceLock<bool> = OnceLock::new();
                *FMA.get_or_init(|| self.in_hardware() && !switched_off("FASTZK_NO_FMA_LANES"))
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn detect(c: Capability) -> bool {
    use std::is_x86_feature_detected as has;
    match c {
        Capability::Adx => has!("bmi2") && has!("adx"),
        Capability::Avx2 => has!("avx2"),
        Capability::Avx512 => has!("avx512f"),
        // Only 512-bit forms are used, but every CPU with IFMA so far has VL too, and
        // SimdMSM's engines assume it; requiring it keeps the rule simple.
        Capability::Ifma => has!("avx512f") && has!("avx512ifma") && has!("avx512vl"),
        Capability::Fma => has!("avx2") && has!("fma"),
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect(_: Capability) -> bool {
    false
}

/// Whether the switch `name` is set: to anything but empty or `0`.
/// Whether the switch `name` is set (to anything but empty or `0`).
pub fn switched_off(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The most Goldilocks lanes `FASTZK_GOLDILOCKS_BACKEND` allows (1, 4 or 8).
fn goldilocks_lanes_cap() -> usize {
    static CAP: OnceLock<usize> = OnceLock::new();
    *CAP.get_or_init(
        || match std::env::var("FASTZK_GOLDILOCKS_BACKEND").as_deref() {
            Ok("scalar") => 1,
            Ok("avx2") => 4,
            _ => 8,
        },
    )
}

/// The CPU's model name as the OS reports it (Linux: `/proc/cpuinfo`), for reports and
/// figures that must name their machine.
pub fn model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim().to_string())
}

/// Whether Montgomery multiplication uses the MULX/ADX assembly. This sits on the
/// multiplication's hot path: one relaxed atomic load once detected.
#[inline(always)]
pub fn adx() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use core::sync::atomic::{AtomicU8, Ordering};
        static ADX: AtomicU8 = AtomicU8::new(0);
        match ADX.load(Ordering::Relaxed) {
            2 => true,
            1 => false,
            _ => {
                let yes = Capability::Adx.in_hardware() && !switched_off("FASTZK_NO_ADX");
                ADX.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
                yes
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enabled_implies_hardware_and_switches_are_named() {
        for c in Capability::ALL {
            assert!(!c.enabled() || c.in_hardware(), "{c:?}");
            assert!(c.switch().starts_with("FASTZK_"));
            assert!(!c.name().is_empty() && !c.used_for().is_empty());
        }
        // Eight lanes imply four: the caps are nested.
        assert!(!Capability::Avx512.enabled() || goldilocks_lanes_cap() >= 4);
    }
}
