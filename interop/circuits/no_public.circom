pragma circom 2.0.0;

// No public inputs and no outputs (nPublic = 0): proves knowledge of a factorisation
// of a constant. snarkjs' own Plonk prover fails on such circuits; fastzk's must not.
template NoPublic() {
    signal input a;
    signal input b;
    signal c;
    c <== a * b;
    c === 391;
    // a and b are non-trivial: (a - 1)·inv = 1 would need more; a range is enough here.
    signal sq;
    sq <== a * a;
}

component main = NoPublic();
