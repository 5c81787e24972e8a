// The webgpu-msm npm package in Node.js, with WebGPU from the `webgpu` npm package (Dawn).
// Usage (from scripts/test-node.sh): node tests/js/node-test.mjs [--snarkjs] [CURVE...]
// --snarkjs: then tests/snarkjs/checks.mjs (real snarkjs proofs through webgpu-msm/snarkjs) on
// the same context (a context of its own would compile bn254's kernels again: a minute on
// SwiftShader), and without the check of the top-level msm()'s shared context, which Deno and the
// Worker run.
// Dawn needs a Vulkan driver it accepts: lavapipe lacks features Dawn requires, so the script
// points VK_ICD_FILENAMES at SwiftShader's driver from Debian's chromium package.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { create, globals } from "webgpu";
import init, * as m from "webgpu-msm";
import { runChecks } from "./checks.mjs";

const start = Date.now();
// What the package needs from a browser: navigator.gpu, the WebGPU constants (GPUBufferUsage, …)
// and, for wgpu to look for navigator.gpu at all, a global scope it recognises
// (Window or WorkerGlobalScope must be defined).
Object.assign(globalThis, globals);
const gpu = create([]);
Object.defineProperty(globalThis, "navigator", { value: { gpu }, configurable: true, writable: true });

// Node's fetch does not read file: URLs: hand init the module's bytes.
const require = createRequire(import.meta.url);
await init({ module_or_path: readFileSync(require.resolve("webgpu-msm/webgpu_msm_bg.wasm")) });

// Without a global scope wgpu recognises, the package rejects with what to define (wgpu itself
// would abort the whole module), and keeps working once it is defined.
let scopeCheck = "passed";
try {
  await m.MsmContext.create();
  scopeCheck = "failed: MsmContext.create() resolved without Window or WorkerGlobalScope";
} catch (e) {
  if (!String(e?.message).includes("WorkerGlobalScope")) scopeCheck = `failed: ${e?.message ?? e}`;
}
console.log(`node test: without WorkerGlobalScope, create() rejects naming it: ${scopeCheck}`);
globalThis.WorkerGlobalScope ??= class WorkerGlobalScope {};

const snarkjsChecks = process.argv.includes("--snarkjs");
// Before any context: the snarkjs checks lose the checks' device to test the CPU fallback.
const loseDevice = snarkjsChecks ? (await import("../snarkjs/checks.mjs")).captureDevices() : undefined;
const curves = process.argv.slice(2).filter((a) => a !== "--snarkjs");
const tally = await runChecks(m, {
  ...(curves.length ? { curves } : {}),
  ...(snarkjsChecks ? { more: runSnarkjsChecks, sharedContext: false } : {}),
});
if (snarkjsChecks) await (await import("../snarkjs/setup.mjs")).terminateCurves();
/** tests/snarkjs's checks on `ctx`, with snarkjs from tests/snarkjs's own packages. */
async function runSnarkjsChecks(ctx) {
  const { BUILD, setup } = await import("../snarkjs/setup.mjs");
  const { TEST_KEYS } = await import("../snarkjs/keys.mjs");
  const { runChecks: runSnarkjs } = await import("../snarkjs/checks.mjs");
  const snarkjs = await import(new URL("../snarkjs/node_modules/snarkjs/main.js", import.meta.url));
  const { accelerateSnarkjs } = await import("webgpu-msm/snarkjs");
  await setup(TEST_KEYS);
  // Copies (new Uint8Array): Buffer.slice would share memory with the cached original.
  const load = (path) => new Uint8Array(readFileSync(new URL(path, `file://${BUILD}/`)));
  return runSnarkjs({ snarkjs, accelerateSnarkjs, load, options: { context: ctx }, loseDevice });
}

// Dawn keeps Node alive while the GPU object is referenced (see the webgpu package's README).
delete globalThis.navigator;
console.log(`node test (Node.js ${process.version}): ${tally.passed} passed, ${tally.failed} failed in ${((Date.now() - start) / 1000).toFixed(1)} s`);
process.exitCode = tally.failed || !tally.passed || scopeCheck !== "passed" ? 1 : 0;
