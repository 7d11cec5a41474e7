//! The eight-lane IFMA arithmetic and the lane field types the MSM flush uses, on the
//! software model of the lanes (every host) and on the CPU's AVX-512 IFMA instructions
//! (reported ignored, with the reason, where they cannot run); and each modelled
//! operation against the real instruction. A `libtest-mimic` harness, so that a check
//! that cannot run here says so instead of passing.

use fastzk_field::ifma::lanes::{Fq2x8, Fq8};
use fastzk_field::{bls12_381, bn254};
use fastzk_testing::ifma::Trials;
use fastzk_testing::{ifma_field_trials, lane_field_trials, ntt_lane_trials};

fn main() {
    let mut t = Trials::default();
    ifma_field_trials!(&mut t, "bn254_fq", bn254::Fq, 4, 5);
    ifma_field_trials!(&mut t, "bn254_fr", bn254::Fr, 4, 5);
    ifma_field_trials!(&mut t, "bls12_381_fq", bls12_381::Fq, 6, 8);
    ntt_lane_trials!(&mut t, "bn254_fr", bn254::Fr);
    ntt_lane_trials!(&mut t, "bn254_fq", bn254::Fq);
    lane_field_trials!(&mut t, "bn254_fq_lanes", Fq8<bn254::Fq, 4, 5>);
    lane_field_trials!(&mut t, "bls12_381_fq_lanes", Fq8<bls12_381::Fq, 6, 8>);
    lane_field_trials!(&mut t, "bn254_fq2_lanes", Fq2x8<bn254::Fq2Config, 4, 5>);
    lane_field_trials!(&mut t, "bls12_381_fq2_lanes", Fq2x8<bls12_381::Fq2Config, 6, 8>);
    t.on_avx512("isa::model_matches_instructions", || {
        #[cfg(target_arch = "x86_64")]
        fastzk_testing::ifma::model_matches_avx512()
    });
    t.run()
}
