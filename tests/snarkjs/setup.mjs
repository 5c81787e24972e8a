// Makes the circuits' r1cs, witness wasm and proving keys with circom2 (circom 2 in WASM) and
// snarkjs, into tests/snarkjs/build/ (gitignored). Nothing is downloaded: the powers of tau are a
// fresh one-contributor ceremony, fine for tests and benchmarks, never for production.
// Usage:
//   node tests/snarkjs/setup.mjs                 the tests' keys (2^8, a few seconds)
//   node tests/snarkjs/setup.mjs --bench [14 16] the benchmark's BN254 Groth16 and PLONK keys
// Files that exist are kept (delete build/ to start over); each is written under a temporary
// name and renamed, so an interrupted run leaves no truncated key behind.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as snarkjs from "snarkjs";
import { TEST_KEYS, benchKeys, circuitInput, paths, ptauPower, templateArgs } from "./keys.mjs";

const here = dirname(fileURLToPath(import.meta.url));
export const BUILD = join(here, "build");
const require = createRequire(import.meta.url);
const quiet = { log() {}, debug() {}, info() {}, warn: console.warn, error: console.error };

/** Whether `file` exists and is newer than every source. */
const fresh = (file, sources) =>
  existsSync(file) && sources.every((s) => statSync(s).mtimeMs <= statSync(file).mtimeMs);

/** Runs `make(tmp)` unless `file` is fresh, then renames tmp to `file`; says whether it ran. */
async function produce(file, sources, make) {
  if (fresh(file, sources)) return false;
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  await make(tmp);
  renameSync(tmp, file);
  return true;
}

/** Times one step and prints it (the README and the benchmark quote setup times). */
async function timed(what, f) {
  const start = performance.now();
  const made = await f();
  if (made !== false) console.log(`setup: ${what} ${((performance.now() - start) / 1000).toFixed(1)} s`);
}

/** A prepared powers-of-tau file: new accumulator, one contribution, phase 2 Lagrange bases. */
async function ptau(curve, power) {
  const file = join(BUILD, "ptau", `${curve}_${power}.ptau`);
  await timed(`ptau ${curve} 2^${power}`, () =>
    produce(file, [], async (tmp) => {
      const curveObj = await snarkjs.curves.getCurveFromName(curve);
      await snarkjs.powersOfTau.newAccumulator(curveObj, power, `${tmp}.0`, quiet);
      await snarkjs.powersOfTau.contribute(`${tmp}.0`, `${tmp}.1`, "tests", randomBytes(32).toString("hex"), quiet);
      await snarkjs.powersOfTau.preparePhase2(`${tmp}.1`, tmp, quiet);
      execFileSync("rm", ["-f", `${tmp}.0`, `${tmp}.1`]);
    }),
  );
  return file;
}

/** Compiles the circuit instance (r1cs and witness wasm) with circom2's CLI. */
async function compile(key) {
  const p = paths(key);
  const dir = join(BUILD, p.dir);
  const template = join(here, "circuits", `${key.circuit}.circom`);
  const main = join(BUILD, p.main);
  const source = `pragma circom 2.0.0;\ninclude "${key.circuit}.circom";\n\n` +
    `component main {public [${key.circuit === "chain" ? "a, b" : "expected"}]} = ` +
    `${key.circuit === "chain" ? "Chain" : "Bits"}(${templateArgs(key.circuit, key.log).join(", ")});\n`;
  mkdirSync(dir, { recursive: true });
  // Rewritten when it or the template changed, so the r1cs below is remade.
  if (!existsSync(main) || readFileSync(main, "utf8") !== source || statSync(template).mtimeMs > statSync(main).mtimeMs) {
    writeFileSync(main, source);
  }
  await timed(`circom ${p.dir}`, async () => {
    // circom writes main.r1cs and main_js/ itself (the r1cs last).
    if (fresh(join(BUILD, p.r1cs), [main])) return false;
    // From tests/snarkjs: circom2's WASI sandbox opens the working directory and its parents, and
    // resolves includes through -l (a path with ".." in an include is not found).
    execFileSync(process.execPath, [require.resolve("circom2/cli.js"), main, "-l", join(here, "circuits"),
      "--r1cs", "--wasm", "--prime", key.curve, "-o", dir], { cwd: here, stdio: ["ignore", "ignore", "inherit"] });
  });
  writeFileSync(join(BUILD, p.input), JSON.stringify(circuitInput(key.circuit, key.log)) + "\n");
}

/** One protocol's zkey and verification key for a compiled circuit instance. */
async function zkey(key, protocol, ptauFile) {
  const p = paths(key);
  const r1cs = join(BUILD, p.r1cs), file = join(BUILD, p.zkey(protocol));
  await timed(`${protocol} zkey ${p.dir}`, () =>
    produce(file, [r1cs, ptauFile], async (tmp) => {
      if (protocol === "groth16") {
        // Phase 2 with one contribution, as a real Groth16 key has.
        await snarkjs.zKey.newZKey(r1cs, ptauFile, `${tmp}.0`, quiet);
        await snarkjs.zKey.contribute(`${tmp}.0`, tmp, "tests", randomBytes(32).toString("hex"), quiet);
        execFileSync("rm", ["-f", `${tmp}.0`]);
      } else {
        await snarkjs[protocol].setup(r1cs, ptauFile, tmp, quiet);
      }
    }),
  );
  await produce(join(BUILD, p.vkey(protocol)), [file], async (tmp) => {
    writeFileSync(tmp, JSON.stringify(await snarkjs.zKey.exportVerificationKey(file, quiet)));
  });
}

/**
 * The ptau file for `curve` at `power` or more: the smallest in build/ptau/ (made earlier, or a
 * prepared public one put there, e.g. Hermez's powersOfTau28_hez_final_16.ptau renamed
 * bn128_16.ptau), else a new one at `fallback` (the largest power this run needs).
 */
async function ptauFor(curve, power, fallback) {
  const dir = join(BUILD, "ptau");
  const have = existsSync(dir) ? readdirSync(dir) : [];
  const powers = have.map((f) => f.match(new RegExp(`^${curve}_(\\d+)\\.ptau$`))?.[1]).filter(Boolean).map(Number);
  const best = Math.min(...powers.filter((p) => p >= power));
  return ptau(curve, Number.isFinite(best) ? best : fallback);
}

/** Makes every file of `keys`. */
export async function setup(keys) {
  const start = performance.now();
  const largest = {};
  for (const k of keys) largest[k.curve] = Math.max(largest[k.curve] ?? 0, ptauPower(k.log, k.protocols));
  for (const key of keys) {
    const ptauFile = await ptauFor(key.curve, ptauPower(key.log, key.protocols), largest[key.curve]);
    await compile(key);
    for (const protocol of key.protocols) await zkey(key, protocol, ptauFile);
  }
  console.log(`setup: keys ready in ${BUILD} (${((performance.now() - start) / 1000).toFixed(1)} s)`);
}

/** Stops the curves' worker threads, which otherwise keep Node running. */
export async function terminateCurves() {
  for (const name of ["bn128", "bls12381"]) {
    const curve = globalThis[`curve_${name}`];
    if (curve) await curve.terminate();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const bench = args[0] === "--bench";
  const logs = args.slice(bench ? 1 : 0).map(Number);
  if (!bench && args.length) {
    console.error("usage: node setup.mjs [--bench [LOG...]]");
    process.exit(2);
  }
  await setup(bench ? benchKeys(logs.length ? logs : undefined) : TEST_KEYS);
  await terminateCurves();
}
