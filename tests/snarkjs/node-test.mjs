// snarkjs 0.7.6 with `webgpu-msm/snarkjs` in Node.js, WebGPU from the `webgpu` npm package (Dawn).
// Usage (from scripts/test-snarkjs-node.sh): node tests/snarkjs/node-test.mjs [--stand-in]
// Makes the test keys if missing (setup.mjs), then runs checks.mjs. Without a WebGPU adapter it
// fails when CI=true and skips, saying so, elsewhere. --stand-in runs the checks against
// cpu-stand-in.mjs instead of the package (to check the tests themselves without a GPU).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as snarkjs from "snarkjs";
import { runChecks } from "./checks.mjs";
import { BUILD, setup, terminateCurves } from "./setup.mjs";
import { TEST_KEYS } from "./keys.mjs";
import { installWebGpu, loadAccelerator, uninstallWebGpu } from "./node-webgpu.mjs";

const start = Date.now();
const standIn = process.argv.includes("--stand-in");
const ci = process.env.CI === "true";
const done = async (passed, failed, note = "") => {
  await terminateCurves();
  uninstallWebGpu();
  console.log(`snarkjs node test (Node.js ${process.version}${standIn ? ", CPU STAND-IN, not the package" : ""}): ` +
    `${passed} passed, ${failed} failed in ${((Date.now() - start) / 1000).toFixed(1)} s${note}`);
  process.exitCode = failed || (!passed && !note) ? 1 : 0;
};

await setup(TEST_KEYS);

let accelerateSnarkjs;
if (standIn) {
  ({ accelerateSnarkjs } = await import("./cpu-stand-in.mjs"));
} else {
  const adapter = await installWebGpu();
  if (!adapter) {
    console.log(`snarkjs node test: no WebGPU adapter (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? "unset"})`);
    if (ci) await done(0, 1, ": CI=true needs a WebGPU adapter");
    else await done(0, 0, ": SKIPPED, no WebGPU adapter (with CI=true this fails)");
    process.exit();
  }
  console.log(`snarkjs node test: adapter ${adapter}`);
  try {
    accelerateSnarkjs = await loadAccelerator();
  } catch (e) {
    console.log(`FAIL loading webgpu-msm/snarkjs: ${e?.stack ?? e}`);
    await done(0, 1);
    process.exit();
  }
}

// Copies (new Uint8Array): Buffer.slice would share memory with the cached original.
const load = (path) => new Uint8Array(readFileSync(join(BUILD, path)));
const tally = await runChecks({ snarkjs, accelerateSnarkjs, load });
await done(tally.passed, tally.failed);
