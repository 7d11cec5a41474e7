//! The GPUs the model speaks of, with every constant's source, and the occupancy formula.

use serde::Serialize;

use crate::ModelError;

/// A GPU: its architecture's limits per SM (from the CUDA C Programming Guide, "Technical
/// Specifications per Compute Capability" and "Arithmetic Instructions") and the product's
/// size, clock and memory (from its datasheet).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Arch {
    /// `sm_90`.
    pub name: &'static str,
    pub product: &'static str,
    pub sms: u32,
    /// Boost clock, GHz.
    pub clock_ghz: f64,
    /// Warp instructions issued per clock per SM (four schedulers, one each).
    pub issue_per_sm: u32,
    /// 32-bit integer multiply-add results per clock per SM.
    pub imad_per_sm: u32,
    /// Device memory bandwidth, bytes/s.
    pub memory_bandwidth: f64,
    /// Host link bandwidth (PCIe, one direction), bytes/s.
    pub host_link: f64,
    pub registers_per_sm: u32,
    /// Registers are allocated per warp in units of this many.
    pub register_unit: u32,
    pub max_registers_per_thread: u32,
    pub max_warps_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub shared_per_sm: u32,
    /// Shared memory the system reserves per block.
    pub shared_reserved_per_block: u32,
    pub shared_unit: u32,
    /// Where the figures come from.
    pub sources: &'static str,
}

/// H100 SXM5 80 GB.
pub const SM_90: Arch = Arch {
    name: "sm_90",
    product: "H100 SXM5",
    sms: 132,
    // 67 TFLOPS FP32 (datasheet) = 132 SMs × 128 lanes × 2 flops × 1.98 GHz.
    clock_ghz: 1.98,
    issue_per_sm: 4,
    imad_per_sm: 64,
    memory_bandwidth: 3.35e12,
    // PCIe Gen5 x16: 64 GB/s raw per direction, ~50 GB/s achieved.
    host_link: 50e9,
    registers_per_sm: 65536,
    register_unit: 256,
    max_registers_per_thread: 255,
    max_warps_per_sm: 64,
    max_blocks_per_sm: 32,
    shared_per_sm: 233_472,
    shared_reserved_per_block: 1024,
    shared_unit: 128,
    sources: "NVIDIA H100 Tensor Core GPU datasheet (SXM5: 132 SMs, 67 TFLOPS FP32, HBM3 \
              3.35 TB/s, PCIe Gen5); NVIDIA Hopper architecture whitepaper (4 warp schedulers \
              per SM); CUDA C Programming Guide 13.0, Technical Specifications for compute \
              capability 9.0 (65536 registers, 64 warps, 32 blocks, 228 KB shared per SM) \
              and Arithmetic Instructions (64 32-bit integer multiply-adds per clock per SM)",
};

/// A100 SXM4 80 GB.
pub const SM_80: Arch = Arch {
    name: "sm_80",
    product: "A100 SXM4",
    sms: 108,
    // 19.5 TFLOPS FP32 = 108 SMs × 64 lanes × 2 flops × 1.41 GHz.
    clock_ghz: 1.41,
    issue_per_sm: 4,
    imad_per_sm: 64,
    memory_bandwidth: 2.039e12,
    host_link: 25e9,
    registers_per_sm: 65536,
    register_unit: 256,
    max_registers_per_thread: 255,
    max_warps_per_sm: 64,
    max_blocks_per_sm: 32,
    shared_per_sm: 167_936,
    shared_reserved_per_block: 1024,
    shared_unit: 128,
    sources: "NVIDIA A100 Tensor Core GPU datasheet (SXM4 80 GB: 108 SMs, 19.5 TFLOPS FP32, \
              HBM2e 2,039 GB/s, PCIe Gen4); CUDA C Programming Guide 13.0, Technical \
              Specifications for compute capability 8.0 (164 KB shared per SM) and \
              Arithmetic Instructions",
};

impl Arch {
    pub fn named(name: &str) -> Result<Arch, ModelError> {
        match name {
            "sm_90" => Ok(SM_90),
            "sm_80" => Ok(SM_80),
            other => Err(ModelError::UnknownArch(other.to_string())),
        }
    }

    /// Thread instructions issued per second by the whole device.
    pub fn issue_rate(&self) -> f64 {
        f64::from(self.sms * self.issue_per_sm * 32) * self.clock_ghz * 1e9
    }

    /// Integer multiply-add slots per second by the whole device.
    pub fn imad_rate(&self) -> f64 {
        f64::from(self.sms * self.imad_per_sm) * self.clock_ghz * 1e9
    }

    /// Theoretical occupancy of a kernel using `registers` per thread and `shared` bytes
    /// per block at `block` threads per block: resident blocks per SM and the fraction of
    /// the SM's warps they fill (the CUDA occupancy calculator's formula).
    pub fn occupancy(&self, registers: u32, shared: u32, block: u32) -> Occupancy {
        let warps_per_block = block.div_ceil(32);
        let by_warps = self.max_warps_per_sm / warps_per_block;
        let regs = registers.max(1).min(self.max_registers_per_thread);
        let per_warp = (regs * 32).div_ceil(self.register_unit) * self.register_unit;
        let by_registers = (self.registers_per_sm / per_warp) / warps_per_block;
        let by_shared = if shared == 0 {
            u32::MAX
        } else {
            let per_block = (shared + self.shared_reserved_per_block).div_ceil(self.shared_unit)
                * self.shared_unit;
            self.shared_per_sm / per_block
        };
        let blocks = by_warps
            .min(by_registers)
            .min(by_shared)
            .min(self.max_blocks_per_sm);
        let limit = if blocks == by_registers {
            "registers"
        } else if blocks == by_shared {
            "shared memory"
        } else if blocks == self.max_blocks_per_sm {
            "blocks"
        } else {
            "warps"
        };
        Occupancy {
            blocks,
            fraction: f64::from(blocks * warps_per_block) / f64::from(self.max_warps_per_sm),
            limit,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Occupancy {
    pub blocks: u32,
    pub fraction: f64,
    /// What bounds it.
    pub limit: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occupancy_formula() {
        // 32 registers: 1024 a warp, 64 warps fit; 8 blocks of 256.
        let o = SM_90.occupancy(32, 0, 256);
        assert_eq!((o.blocks, o.fraction), (8, 1.0));
        // 64 registers: 2048 a warp, 32 warps, 4 blocks of 8 warps.
        let o = SM_90.occupancy(64, 0, 256);
        assert_eq!((o.blocks, o.fraction, o.limit), (4, 0.5, "registers"));
        // 255 registers round to 256: 8192 a warp, 8 warps: one block of 256.
        assert_eq!(SM_90.occupancy(255, 0, 256).fraction, 0.125);
        // 168 registers round to 5376 a warp: 12 warps, one block of 8.
        assert_eq!(SM_90.occupancy(168, 0, 256).blocks, 1);
        // Shared memory: 100 KB + 1 KB reserved per block, two fit in 228 KB.
        let o = SM_90.occupancy(32, 100 << 10, 256);
        assert_eq!((o.blocks, o.limit), (2, "shared memory"));
        // Small blocks hit the block limit.
        assert_eq!(SM_90.occupancy(32, 0, 32).limit, "blocks");
        assert_eq!(SM_90.occupancy(32, 0, 32).fraction, 0.5);
    }

    #[test]
    fn rates() {
        // 132 × 4 × 32 × 1.98e9
        assert!((SM_90.issue_rate() - 3.345e13).abs() < 1e10);
        assert!((SM_90.imad_rate() - 1.6727e13).abs() < 1e10);
        assert!(Arch::named("sm_70").is_err());
    }
}
