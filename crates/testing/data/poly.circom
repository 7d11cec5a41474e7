pragma circom 2.0.0;

// A few constraints with coefficients other than 1 and a constant term.
template Poly(n) {
    signal input x;
    signal input k;
    signal output y;
    signal p[n];
    p[0] <== x * x;
    for (var i = 1; i < n; i++) {
        p[i] <== (p[i-1] + 2*k) * (3*x + i);
    }
    y <== p[n-1] * (x - 5);
}

component main {public [k]} = Poly(4);
