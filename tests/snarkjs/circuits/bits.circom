pragma circom 2.0.0;

// Decomposes W private words into bits and sums the bits of each word: a witness of mostly 0 and
// 1, the skewed scalars a Groth16 prover meets in practice (range checks, hashes), and Groth16
// bases with many identity points (signals that appear in no constraint's A or B). The public
// input is the number of words' set bits, checked against the output.
template Bits(W, BITS) {
    signal input words[W];
    signal input expected;
    signal output total;

    signal bit[W][BITS];
    var sum = 0;
    for (var w = 0; w < W; w++) {
        var value = 0;
        for (var i = 0; i < BITS; i++) {
            bit[w][i] <-- (words[w] >> i) & 1;
            bit[w][i] * (bit[w][i] - 1) === 0;
            value += bit[w][i] * (1 << i);
            sum += bit[w][i];
        }
        value === words[w];
    }
    total <== sum;
    total === expected;
}
