pragma circom 2.0.0;

// Benchmark circuit: circomlib SHA-256 of a 64-byte (512-bit) message.
// The message bits are private; the 256 digest bits are the public output.
include "circomlib/circuits/sha256/sha256.circom";

component main = Sha256(512);
