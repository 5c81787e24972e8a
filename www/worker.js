// The demo's MSMs, off the page's main thread: this module Worker loads the webgpu-msm package
// and runs each step (inputs, GPU cold, GPU warm, arkworks), reporting every step to the page, so
// the page keeps responding even while arkworks (synchronous WASM) runs for seconds.
// Messages to the page: {type: "ready", curves} | {type: "init-error", error}
//   | {type: "progress", id, step, text} | {type: "result", id, result}
// Messages from the page: {type: "run", id, curve, log}
import init, { MsmContext, curves, randomInputs, arkworksMsm } from "./node_modules/webgpu-msm/webgpu_msm.js";

let ctx = null; // the MsmContext, created on the first run and kept while it works

const sizeLabel = (log) => `2^${log} = ${(1 << log).toLocaleString("en-US")}`;
const equalBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

// [value of f(), milliseconds rounded to 0.1].
async function timed(f) {
  const start = performance.now();
  const value = await f();
  return [value, Math.round((performance.now() - start) * 10) / 10];
}

// adapterInfo is "vendor / architecture / description", with empty fields on some adapters.
function adapter() {
  const info = ctx.adapterInfo.split(" / ").filter((s) => s.trim()).join(" / ");
  return { adapter: info || "(unnamed adapter)", backend: ctx.backend };
}

// One verified MSM of 2^log random points: GPU cold, GPU warm, arkworks in WASM.
async function runOne(id, curve, log) {
  const n = 1 << log;
  const label = `${curve}, n = ${sizeLabel(log)}`;
  const progress = (step, text) => self.postMessage({ type: "progress", id, step, text: `${label}: ${text}` });
  const result = {
    curve, n, verified: false, gpuColdMs: null, gpuWarmMs: null, cpuMs: null, adapter: null, backend: null,
    inWorker: typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope,
  };
  try {
    progress("inputs", "generating inputs…");
    const [points, scalars] = randomInputs(curve, n, BigInt(log));

    const firstRun = ctx === null;
    progress("gpu-cold", `GPU cold run${firstRun ? " (creating the WebGPU device, compiling pipelines)" : ""}…`);
    let gpu;
    [gpu, result.gpuColdMs] = await timed(async () => {
      if (firstRun) {
        ctx = await MsmContext.create();
        self.postMessage({ type: "adapter", id, ...adapter() });
      }
      return ctx.msm(curve, points, scalars);
    });
    Object.assign(result, adapter());

    progress("gpu-warm", "GPU warm run…");
    let gpuWarm;
    [gpuWarm, result.gpuWarmMs] = await timed(() => ctx.msm(curve, points, scalars));

    progress("cpu", "arkworks MSM in WASM (CPU, in the worker)…");
    let cpu;
    [cpu, result.cpuMs] = await timed(() => arkworksMsm(curve, points, scalars));

    result.verified = equalBytes(gpu, cpu) && equalBytes(gpuWarm, cpu);
    if (!result.verified) result.error = "GPU result differs from arkworks";
  } catch (e) {
    result.error = String(e?.message ?? e);
    if (ctx && !result.adapter) Object.assign(result, adapter());
    // A lost device (or a failed creation) leaves nothing to reuse: start over next time.
    if (ctx) ctx.free();
    ctx = null;
  }
  self.postMessage({ type: "result", id, result });
}

// Runs one request at a time, in order.
let queue = Promise.resolve();
self.onmessage = ({ data }) => {
  if (data.type === "run") queue = queue.then(() => runOne(data.id, data.curve, data.log));
};

try {
  await init();
  self.postMessage({ type: "ready", curves: curves() });
} catch (e) {
  self.postMessage({ type: "init-error", error: String(e?.message ?? e) });
}
