pragma circom 2.0.0;

// Uses circomlib gadgets (Poseidon, Num2Bits, comparators) with several
// public inputs: prove knowledge of a preimage (x0, x1) of a public Poseidon
// hash, and that a private value v lies in the public range [lo, hi).
// The public output is tag = x0 * v. Sized to fit a 2^10 Groth16 domain
// (a smaller powers of tau keeps the test quick).
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/bitify.circom";

template PoseidonRange(nBits) {
    signal input x[2];      // private preimage
    signal input v;         // private value
    signal input hash;      // public
    signal input lo;        // public
    signal input hi;        // public
    signal output tag;      // public

    component h = Poseidon(2);
    h.inputs[0] <== x[0];
    h.inputs[1] <== x[1];
    h.out === hash;

    // Range-check the operands so the comparators are sound.
    component vBits = Num2Bits(nBits);
    vBits.in <== v;
    component loBits = Num2Bits(nBits);
    loBits.in <== lo;
    component hiBits = Num2Bits(nBits);
    hiBits.in <== hi;

    component geLo = GreaterEqThan(nBits);
    geLo.in[0] <== v;
    geLo.in[1] <== lo;
    geLo.out === 1;

    component ltHi = LessThan(nBits);
    ltHi.in[0] <== v;
    ltHi.in[1] <== hi;
    ltHi.out === 1;

    tag <== x[0] * v;
}

component main {public [hash, lo, hi]} = PoseidonRange(64);
