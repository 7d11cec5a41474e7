//! `fastzk info`: what this CPU offers fastzk and what is in use (from
//! [`fastzk_field::cpu`], the one place every kernel asks).

use fastzk_field::cpu::Capability;

/// The CPU's model name, where the OS says it (else the architecture).
fn cpu_model() -> String {
    fastzk_field::cpu::model().unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

pub fn run() {
    println!(
        "fastzk {} on {} ({} threads)",
        env!("CARGO_PKG_VERSION"),
        cpu_model(),
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
        "distributed proving (--distributed under mpirun): {}",
        if cfg!(feature = "mpi") {
            "built in (MPI)"
        } else {
            "not built in (cargo build --release --features mpi)"
        }
    );
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
