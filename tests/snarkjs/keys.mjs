// Where setup.mjs puts each circuit's files and which keys the tests and the benchmark use: one
// table shared by the setup, the Node and Chromium tests, the page and the benchmark.
// Plain ES module without imports, so the browser page can load it too (paths are relative
// to tests/snarkjs/build/).

/** Protocols snarkjs 0.7.6 can set up and prove on each curve (fflonk is BN254 only). */
export const PROTOCOLS = { bn128: ["groth16", "plonk", "fflonk"], bls12381: ["groth16", "plonk"] };

/**
 * A circuit instance: `circuit` (a template in circuits/), `log` (it fills a 2^log domain),
 * `curve` (snarkjs' name, also circom's --prime) and the protocols to make keys for.
 */
export const TEST_KEYS = [
  { circuit: "chain", log: 8, curve: "bn128", protocols: ["groth16", "plonk"] },
  // fflonk's SRS holds 9n + 18 points: at 2^6 its MSMs are as large as the others' at 2^8, and its
  // powers of tau (2^9) prepare in a fifth of the time 2^11 takes (preparePhase2 is most of setup).
  { circuit: "chain", log: 6, curve: "bn128", protocols: ["fflonk"] },
  { circuit: "bits", log: 8, curve: "bn128", protocols: ["groth16"] },
  { circuit: "chain", log: 8, curve: "bls12381", protocols: ["groth16", "plonk"] },
];

/** The benchmark's keys: BN254 Groth16 and PLONK at each requested size (default 2^14, 2^16). */
export const benchKeys = (logs = [14, 16]) =>
  logs.map((log) => ({ circuit: "chain", log, curve: "bn128", protocols: ["groth16", "plonk"] }));

/** Relative paths (under build/) of one circuit instance's files. */
export function paths({ circuit, log, curve }) {
  const dir = `${curve}/${circuit}_${log}`;
  return {
    dir,
    main: `${dir}/main.circom`,
    r1cs: `${dir}/main.r1cs`,
    wasm: `${dir}/main_js/main.wasm`,
    input: `${dir}/input.json`,
    zkey: (protocol) => `${dir}/${protocol}.zkey`,
    vkey: (protocol) => `${dir}/${protocol}.vkey.json`,
  };
}

/** The template's parameters for a 2^log domain (see the circuits' comments). */
export function templateArgs(circuit, log) {
  if (circuit === "chain") return [2 ** log - 16];
  // 2^log − 32 booleanity constraints in 32-bit words.
  if (circuit === "bits") return [(2 ** log - 32) / 32, 32];
  throw new Error(`unknown circuit ${circuit}`);
}

/**
 * A valid input for the circuit: `seed` varies it, so repeated proofs differ in their witness.
 * Values are decimal strings, as snarkjs' JSON inputs are.
 */
export function circuitInput(circuit, log, seed = 1) {
  if (circuit === "chain") return { a: String(3 + seed), b: String(5 + 2 * seed), x: String(7 + 3 * seed) };
  const [words] = templateArgs(circuit, log);
  const list = [];
  let total = 0;
  for (let w = 0; w < words; w++) {
    // A deterministic spread of 32-bit values.
    const value = Number((BigInt(w + 1) * 2654435761n * BigInt(seed)) % 4294967296n);
    list.push(String(value));
    total += value.toString(2).split("1").length - 1;
  }
  return { words: list, expected: String(total) };
}

/** The powers-of-tau size a set of protocols needs for a 2^log circuit. */
export function ptauPower(log, protocols) {
  // fflonk commits to polynomials of degree up to 9n + 18; a ptau of power p has 2^(p+1) − 1
  // powers in G1.
  if (protocols.includes("fflonk")) {
    let p = log;
    while (2 ** (p + 1) - 1 < 9 * 2 ** log + 18) p++;
    return p;
  }
  return log;
}
