//! Every group here through the shared suites (`crates/testing`): the group laws, every
//! operation against arkworks, subgroup checks against `[r]P = 0`, and the five point
//! encodings, for G1 and G2 of every curve in the registry.
#![cfg(feature = "ark")]

use fastzk_testing::pairing_group_tests;

fastzk_pairing::for_each_pairing_curve!(pairing_group_tests);
