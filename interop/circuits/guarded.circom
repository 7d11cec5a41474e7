pragma circom 2.0.0;

// A small circuit with an assert and a log, over any prime circom supports: the
// witness step must name the failing assert (input x = 0 fails it) and pass log lines
// through. Used by the interop suite with --prime bn128, bls12381 and goldilocks.
template Guarded() {
    signal input x;
    signal input ys[2][2];
    signal output out;

    assert(x != 0);
    log("x is", x);
    signal s[4];
    s[0] <== x * ys[0][0];
    s[1] <== s[0] * ys[0][1];
    s[2] <== s[1] * ys[1][0];
    s[3] <== s[2] * ys[1][1];
    out <== s[3] * x;
}

component main {public [x]} = Guarded();
