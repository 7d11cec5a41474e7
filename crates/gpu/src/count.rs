//! Counting mode: a device opened with [`Device::open_counting`](crate::Device) compiles
//! every kernel with `FZ_COUNT`, so each counts under its id the primitives it calls and
//! the bytes it reads and writes in device memory. The static model checks its analytic
//! operation counts against these on PoCL. The ids here are the only definition: `Source`
//! writes them into every kernel source.

/// Kernels that count, by the name they have after the type prefix (`bn254_g1_msm_reduce`
/// is `msm_reduce`).
pub const KERNELS: [&str; 11] = [
    "msm_digits",
    "msm_scatter",
    "msm_chunk_sums",
    "msm_bucket_sums",
    "msm_reduce",
    "ntt_bit_reverse",
    "ntt_tile",
    "ntt_scale",
    "spmv_chunks",
    "spmv_rows",
    "mul_sub",
];

/// What is counted: bytes read and written in device memory, and primitive calls.
pub const OPS: [&str; 6] = [
    "read",
    "write",
    "xyzz_add_affine",
    "xyzz_add",
    "butterfly",
    "mul",
];

/// The `#define`s of the ids, for the kernel source.
pub(crate) fn defines() -> String {
    let mut s = String::new();
    for (i, k) in KERNELS.iter().enumerate() {
        s.push_str(&format!("#define FZ_K_{} {i}\n", k.to_uppercase()));
    }
    for (i, op) in OPS.iter().enumerate() {
        s.push_str(&format!("#define FZ_OP_{} {i}\n", op.to_uppercase()));
    }
    s.push_str(&format!("#define FZ_OP_COUNT {}\n", OPS.len()));
    s
}

/// Words of the counter table.
pub(crate) const WORDS: usize = KERNELS.len() * OPS.len();

/// The counters read back from a counting device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counts(pub(crate) Vec<u32>);

impl Counts {
    /// What `kernel` counted of `op` since the last reset.
    pub fn get(&self, kernel: &str, op: &str) -> u64 {
        let k = KERNELS
            .iter()
            .position(|&x| x == kernel)
            .unwrap_or_else(|| panic!("no counting kernel {kernel}"));
        let o = OPS
            .iter()
            .position(|&x| x == op)
            .unwrap_or_else(|| panic!("no counted operation {op}"));
        u64::from(self.0[k * OPS.len() + o])
    }
}
