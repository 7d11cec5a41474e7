pragma circom 2.0.0;

// Small hand-written circuit: c = a * b, followed by a short chain of
// squarings so the Groth16 domain is more than a couple of rows.
// Public: input `a` and output `out`; `b` stays private.
template MultiplierChain(n) {
    signal input a;
    signal input b;
    signal output out;

    signal acc[n + 1];
    acc[0] <== a * b;
    for (var i = 0; i < n; i++) {
        // acc[i+1] = acc[i]^2 + a  (one multiplication constraint per step)
        acc[i + 1] <== acc[i] * acc[i] + a;
    }
    out <== acc[n];
}

component main {public [a]} = MultiplierChain(8);
