//! Every field here through the shared conformance suites (`crates/testing`): one line
//! per field and suite.

use fastzk_field::{bls12_381, bn254, Goldilocks, GoldilocksExt2Config};

fastzk_testing::montgomery_field_tests!(bn254_fr, bn254::Fr);
fastzk_testing::montgomery_field_tests!(bn254_fq, bn254::Fq);
fastzk_testing::montgomery_field_tests!(bls12_381_fr, bls12_381::Fr);
fastzk_testing::montgomery_field_tests!(bls12_381_fq, bls12_381::Fq);
fastzk_testing::prime_field_tests!(goldilocks, Goldilocks);
fastzk_testing::ntt_tests!(goldilocks_ntt, Goldilocks);

fastzk_testing::ark_field_tests!(bn254_fr_ark, bn254::Fr);
fastzk_testing::ark_field_tests!(bn254_fq_ark, bn254::Fq);
fastzk_testing::ark_field_tests!(bls12_381_fr_ark, bls12_381::Fr);
fastzk_testing::ark_field_tests!(bls12_381_fq_ark, bls12_381::Fq);
fastzk_testing::ark_field_tests!(goldilocks_ark, Goldilocks);

fastzk_testing::quad_ext_tests!(bn254_fq2, bn254::Fq2Config);
fastzk_testing::quad_ext_tests!(bls12_381_fq2, bls12_381::Fq2Config);
fastzk_testing::quad_ext_tests!(goldilocks_ext2, GoldilocksExt2Config);
fastzk_testing::ark_quad_ext_tests!(bn254_fq2_ark, bn254::Fq2Config);
fastzk_testing::ark_quad_ext_tests!(bls12_381_fq2_ark, bls12_381::Fq2Config);
