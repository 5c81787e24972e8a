// The webgpu-msm npm package in Deno, with Deno's built-in WebGPU (wgpu on Vulkan: lavapipe on a
// machine without a GPU). Usage (from scripts/test-deno.sh):
//   deno run --allow-read --allow-env tests/js/deno-test.mjs [CURVE...]
// Deno defines `navigator.gpu` and `Window`, and its fetch reads file: URLs, so a plain init()
// loads the .wasm next to the module: nothing to set up.
import init, * as m from "webgpu-msm";
import { runChecks } from "./checks.mjs";

const start = Date.now();
await init();
const curves = Deno.args;
const tally = await runChecks(m, curves.length ? { curves } : {});
console.log(`deno test (Deno ${Deno.version.deno}): ${tally.passed} passed, ${tally.failed} failed in ${((Date.now() - start) / 1000).toFixed(1)} s`);
Deno.exit(tally.failed || !tally.passed ? 1 : 0);
