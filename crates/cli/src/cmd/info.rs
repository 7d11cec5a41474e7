//! `fastzk info`: what this CPU offers fastzk and what is in use (from
//! [`fastzk_field::cpu`], the one place every kernel asks).

use fastzk_field::cpu::Capability;

/// The CPU's model name, where the OS says it (else the architecture).
fn cpu_model() -> String {
    fastzk_field::cpu::model().unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

pub fn run() {
    println!(
        "fastzk {} on {} ({}, {} threads)",
        env!("CARGO_PKG_VERSION"),
        cpu_model(),
        std::env::consts::ARCH,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let yes = |b: bool| if b { "yes" } else { "no" };
    println!(
        "{:<12} {:<9} {:<7} {:<42} switch",
        "capability", "hardware", "in use", "used for"
    );
    for c in Capability::ALL {
        println!(
            "{:<12} {:<9} {:<7} {:<42} {}",
            c.name(),
            yes(c.in_hardware()),
            yes(c.enabled()),
            c.used_for(),
            c.switch()
        );
    }
    println!("feature level (BENCHMARKS.md's tables): {}", level());
    println!(
        "kernel lanes (the single-source layer's CPU loop): {} (FASTZK_NO_KERNEL_LANES=1 turns them off)",
        match fastzk_runtime::lanes::LaneChoice::detect() {
            fastzk_runtime::lanes::LaneChoice::Avx512 => "avx512, 8 lanes",
            fastzk_runtime::lanes::LaneChoice::Avx2 => "avx2, 8 lanes",
            _ => "off, one index at a time",
        }
    );
    println!("devices (--device cuda|opencl|auto):");
    print_devices();
    println!(
        "circom witness generators (.wasm): {}",
        if cfg!(feature = "witness-runtime") {
            "run in process (wasmtime)"
        } else {
            "not built in (the default feature witness-runtime): .wtns files only"
        }
    );
    println!(
        "distributed proving (--distributed under mpirun): {}",
        if cfg!(feature = "mpi") {
            "built in (MPI)"
        } else {
            "not built in (cargo build --release --features mpi)"
        }
    );
}

/// Which of the levels BENCHMARKS.md measures the MSM and the provers at is in use.
fn level() -> &'static str {
    if Capability::Ifma.enabled() {
        "ifma (the MSM flush, BN254 NTT rows and Plonk's round 3 on IFMA lanes)"
    } else if Capability::Adx.enabled() {
        "adx (MULX/ADX products; the MSM flush on FMA lanes for BN254 G1 where AVX2 and FMA are in use, else scalar; FASTZK_NO_IFMA=1 on an IFMA CPU)"
    } else {
        "portable (u128 products: MUL/UMULH on ARM64; FASTZK_NO_ADX=1 FASTZK_NO_IFMA=1 FASTZK_NO_FMA_LANES=1 on x86-64)"
    }
}

/// The devices each GPU API offers, or why it offers none.
pub fn print_devices() {
    for b in [fastzk_gpu::Backend::Cuda, fastzk_gpu::Backend::OpenCl] {
        match fastzk_gpu::devices(b) {
            Ok(ds) if ds.is_empty() => println!("{b}: no devices"),
            Ok(ds) => ds.iter().for_each(|d| println!("{d}")),
            Err(e) => println!("{e}"),
        }
    }
}
