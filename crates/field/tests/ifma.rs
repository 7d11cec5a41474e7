//! The eight-lane IFMA arithmetic and the lane field types the MSM flush uses, on the
//! software model of the lanes (every host), on the CPU's AVX-512 IFMA instructions and on
//! the FMA lanes (AVX2; each reported ignored, with the reason, where it cannot run); and
//! each modelled operation against the real instruction and its FMA-lane emulation. A `libtest-mimic` harness, so that a check
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
    // The FMA lanes (AVX2): every operation and the product against the model, then the
    // limb arithmetic and the one lane field the MSM runs on them (BN254 G1's).
    t.on_fma("isa::model_matches_fma_lanes", || {
        #[cfg(target_arch = "x86_64")]
        fastzk_testing::ifma::model_matches_fma()
    });
    t.on_fma("bn254_fq::lanes_match_scalar", || {
        #[cfg(target_arch = "x86_64")]
        fastzk_testing::ifma::lanes_match_scalar::<bn254::Fq, fastzk_field::ifma::avx2::Avx2, 4, 5>(
        )
    });
    t.on_fma("bn254_fq_lanes::lane_field_matches_scalar", || {
        #[cfg(target_arch = "x86_64")]
        fastzk_testing::ifma::lane_field_matches_scalar::<
            Fq8<bn254::Fq, 4, 5, fastzk_field::ifma::avx2::Avx2>,
        >()
    });
    t.run()
}
