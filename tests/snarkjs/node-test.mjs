// snarkjs 0.7.6 with `webgpu-msm/snarkjs` in Node.js, WebGPU from the `webgpu` npm package (Dawn).
// Usage (from scripts/test-snarkjs-node.sh): node tests/snarkjs/node-test.mjs [--stand-in]
// Makes the test keys if missing (setup.mjs), then runs checks.mjs. Without a WebGPU adapter it
// fails when CI=true and skips, saying so, elsewhere. --stand-in runs the checks against
// cpu-stand-in.mjs instead of the package (to check the tests themselves without a GPU).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import * as snarkjs from "snarkjs";
import { runChecks } from "./checks.mjs";
import { BUILD, setup, terminateCurves } from "./setup.mjs";
import { TEST_KEYS } from "./keys.mjs";

const start = Date.now();
const standIn = process.argv.includes("--stand-in");
const ci = process.env.CI === "true";
const done = async (passed, failed, note = "") => {
  await terminateCurves();
  // Dawn keeps Node alive while the GPU object is referenced (see the webgpu package's README).
  delete globalThis.navigator;
  console.log(`snarkjs node test (Node.js ${process.version}${standIn ? ", CPU STAND-IN, not the package" : ""}): ` +
    `${passed} passed, ${failed} failed in ${((Date.now() - start) / 1000).toFixed(1)} s${note}`);
  process.exitCode = failed || (!passed && !note) ? 1 : 0;
};

await setup(TEST_KEYS);

let accelerateSnarkjs;
if (standIn) {
  ({ accelerateSnarkjs } = await import("./cpu-stand-in.mjs"));
} else {
  // What the package needs from a browser, as in tests/js/node-test.mjs: navigator.gpu, the WebGPU
  // constants and a global scope wgpu recognises.
  const { create, globals } = await import("webgpu");
  Object.assign(globalThis, globals);
  Object.defineProperty(globalThis, "navigator", { value: { gpu: create([]) }, configurable: true, writable: true });
  globalThis.WorkerGlobalScope ??= class WorkerGlobalScope {};
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) {
    console.log(`snarkjs node test: no WebGPU adapter (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? "unset"})`);
    if (ci) await done(0, 1, ": CI=true needs a WebGPU adapter");
    else await done(0, 0, ": SKIPPED, no WebGPU adapter (with CI=true this fails)");
    process.exit();
  }
  const info = adapter.info ?? {};
  console.log(`snarkjs node test: adapter ${[info.vendor, info.architecture, info.description].filter(Boolean).join(" / ")}`);
  // The app initialises the package as it does today; Node's fetch does not read file: URLs.
  const require = createRequire(import.meta.url);
  const { default: init } = await import("webgpu-msm");
  await init({ module_or_path: readFileSync(require.resolve("webgpu-msm/webgpu_msm_bg.wasm")) });
  ({ accelerateSnarkjs } = await import("webgpu-msm/snarkjs"));
}

// Copies (new Uint8Array): Buffer.slice would share memory with the cached original.
const load = (path) => new Uint8Array(readFileSync(join(BUILD, path)));
const tally = await runChecks({ snarkjs, accelerateSnarkjs, load });
await done(tally.passed, tally.failed);
