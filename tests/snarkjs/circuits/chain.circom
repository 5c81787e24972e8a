pragma circom 2.0.0;

// A chain of N multiplications, sized by N to fill a 2^k evaluation domain in Groth16, PLONK and
// fflonk alike (setup.mjs picks N = 2^k − 16: each R1CS product is one PLONK gate, and the public
// signals and the linear output add a few more).
// Two public inputs (a, b), one private (x) and two outputs: the public signals the tests tamper
// with. The products alternate factors so the witness holds dense, unrelated field elements.
template Chain(N) {
    signal input a;
    signal input b;
    signal input x;
    signal output out;
    signal output sum;

    signal s[N];
    s[0] <== x * a;
    for (var i = 1; i < N; i++) {
        if (i % 2 == 0) {
            s[i] <== s[i - 1] * x;
        } else {
            s[i] <== s[i - 1] * b;
        }
    }
    out <== s[N - 1];
    // A linear constraint: PLONK and fflonk turn it into an addition gate.
    sum <== a + b + x;
}
