// snarkjs prove time with and without webgpu-msm/snarkjs, in the same run: for each size and
// protocol, 1 cold + W warm proofs on snarkjs' CPU path (its WebAssembly on every core), then the
// same after accelerateSnarkjs (its default minPoints, no checks). Node (Dawn) and, given the
// served repository root (--base), Chromium through www/snarkjs.html. Every proof is verified.
// Usage (from scripts/bench-snarkjs.sh, which makes the keys and serves the root):
//   node tests/snarkjs/bench.mjs [--sizes 14,16] [--protocols groth16,plonk] [--warm 3]
//     [--base URL] [--chromium-only] [--min-points N] [--wait-ready] [--stand-in]
// Cold: the key's first proof on that path (on the GPU path it uploads the key's bases and waits
// for the kernels accelerateSnarkjs compiles in the background); the accelerateSnarkjs call before
// it is timed on its own, and "1st" is the two together: from the call to the first GPU proof.
// --wait-ready awaits the accelerator's ready() before the first proof (every kernel compiled
// first, as accelerateSnarkjs did before it prepared groups in the background). On a software
// GPU the measured default minPoints may keep every MSM on the CPU: --min-points 0.
import * as snarkjs from "snarkjs";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { BUILD, terminateCurves } from "./setup.mjs";
import { benchKeys, paths } from "./keys.mjs";
import { installWebGpu, loadAccelerator, uninstallWebGpu } from "./node-webgpu.mjs";
import { chromiumLaunchOptions } from "../../scripts/chromium-options.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const sizes = option("--sizes", "14,16").split(",").map(Number);
const protocols = option("--protocols", "groth16,plonk").split(",");
const warm = Number(option("--warm", "3"));
const base = option("--base", null);
const minPoints = option("--min-points", null);
const standIn = args.includes("--stand-in");
const waitReady = args.includes("--wait-ready");
const rows = [];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** 1 + warm timed proofs of one key in Node, each verified; `gpu` adds its MSM counts. */
async function proveNode(key, protocol, gpu) {
  const p = paths(key);
  const file = (f) => join(BUILD, f);
  const input = JSON.parse(readFileSync(file(p.input), "utf8"));
  const vkey = JSON.parse(readFileSync(file(p.vkey(protocol)), "utf8"));
  const times = [];
  for (let i = 0; i <= warm; i++) {
    const start = performance.now();
    const { proof, publicSignals } = await snarkjs[protocol].fullProve(input, file(p.wasm), file(p.zkey(protocol)));
    times.push(Math.round((performance.now() - start) * 10) / 10);
    if (!(await snarkjs[protocol].verify(vkey, publicSignals, proof))) {
      throw new Error(`${protocol} 2^${key.log}: a ${gpu ? "GPU" : "CPU"} proof does not verify`);
    }
  }
  return times;
}

async function nodeLane() {
  let accelerate;
  if (standIn) accelerate = (await import("./cpu-stand-in.mjs")).accelerateSnarkjs;
  else {
    const adapter = await installWebGpu();
    if (!adapter) throw new Error(`no WebGPU adapter in Node (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? "unset"})`);
    console.log(`bench: Node ${process.version}, adapter ${adapter}`);
    accelerate = await loadAccelerator();
  }
  for (const key of benchKeys(sizes)) {
    for (const protocol of protocols) {
      const cpu = await proveNode(key, protocol, null);
      // Only the groups the protocol uses: each installed group's kernels compile in accelerate.
      const options = { groups: { bn128: protocol === "groth16" ? ["G1", "G2"] : ["G1"] } };
      if (minPoints !== null) options.minPoints = Number(minPoints);
      const start = performance.now();
      const gpu = await accelerate(snarkjs, options);
      const accelerateMs = Math.round(performance.now() - start);
      const ready = gpu.ready().then(() => Math.round(performance.now() - start));
      if (waitReady) await ready;
      let times;
      try {
        times = await proveNode(key, protocol, gpu);
      } finally {
        gpu.restore();
      }
      const readyMs = await ready;
      // From the call to the first GPU proof's end (the proofs start at ready() with --wait-ready).
      const firstMs = Math.round((waitReady ? readyMs : accelerateMs) + times[0]);
      const row = { lane: "node", protocol, log: key.log, cpu, gpu: times, accelerateMs, readyMs, firstMs, stats: gpu.stats() };
      rows.push(row);
      console.log(`bench: ${JSON.stringify(row)}`);
    }
  }
  await terminateCurves();
  uninstallWebGpu();
}

/** The same through www/snarkjs.html in headless Chromium, one page per size and protocol. */
async function chromiumLane() {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch(chromiumLaunchOptions());
  try {
    for (const key of benchKeys(sizes)) {
      for (const protocol of protocols) {
        const q = new URLSearchParams({ protocol, circuit: `chain_${key.log}`, runs: String(warm + 1), autorun: "1",
          pkg: "../tests/snarkjs/node_modules/webgpu-msm/" });
        if (minPoints !== null) q.set("minPoints", minPoints);
        if (standIn) q.set("accelerator", "../tests/snarkjs/cpu-stand-in.mjs");
        if (waitReady) q.set("waitReady", "1");
        const page = await browser.newPage();
        page.on("console", (msg) => msg.type() === "error" && console.log(`[page error] ${msg.text()}`));
        await page.goto(`${base}/www/snarkjs.html?${q}`);
        await page.waitForSelector('body[data-status="done"], body[data-status="error"]', { timeout: 60 * 60 * 1000 });
        const result = JSON.parse(await page.textContent("#result"));
        if (result.error) throw new Error(`Chromium ${protocol} 2^${key.log}: ${result.error}`);
        const row = { lane: "chromium", protocol, log: key.log, cpu: result.cpu.map((r) => r.ms),
          gpu: result.gpu.map((r) => r.ms), accelerateMs: result.accelerateMs, readyMs: result.readyMs,
          firstMs: result.firstMs, stats: result.stats };
        rows.push(row);
        console.log(`bench: ${JSON.stringify(row)}`);
        await page.close();
      }
    }
  } finally {
    await browser.close();
  }
}

function printTable() {
  const f = (ms) => (ms / 1000).toFixed(2).padStart(8);
  const r = (x) => `${x.toFixed(2)}×`.padStart(7);
  console.log(`\nsnarkjs prove time, s (cold: a key's first proof on that path; warm: median of ${warm})${standIn ? " — CPU STAND-IN, not the GPU" : ""}`);
  console.log("lane      protocol  size   CPU cold CPU warm  accel.   ready      1st GPU cold GPU warm  cold ×  warm ×  GPU MSMs  minPoints");
  for (const row of rows) {
    const [cc, cw, gc, gw] = [row.cpu[0], median(row.cpu.slice(1)), row.gpu[0], median(row.gpu.slice(1))];
    const msms = `${row.stats?.gpuCalls ?? "?"}/${(row.stats?.gpuCalls ?? 0) + (row.stats?.cpuCalls ?? 0)}`;
    console.log(`${row.lane.padEnd(9)} ${row.protocol.padEnd(9)} 2^${row.log}  ${f(cc)} ${f(cw)} ${f(row.accelerateMs ?? NaN)} ` +
      `${f(row.readyMs ?? NaN)} ${f(row.firstMs ?? NaN)} ${f(gc)} ${f(gw)} ${r(cc / gc)} ${r(cw / gw)}  ${msms.padStart(8)}  ${row.stats?.minPoints ?? "?"}`);
  }
  console.log(`accel.: the accelerateSnarkjs call (the WebGPU device); ready: from it to ready() (kernels compiled and checked, minPoints measured); 1st: from it to the first GPU proof's end${waitReady ? " (--wait-ready: proofs began at ready())" : ""}.`);
  console.log("×: CPU time ÷ GPU time (above 1: the GPU path is faster). GPU MSMs: on the GPU / all while accelerated (proofs and their verification).");
}

try {
  if (warm < 1) throw new Error("--warm must be at least 1");
  if (!args.includes("--chromium-only")) await nodeLane();
  if (base) await chromiumLane();
} finally {
  if (rows.length) printTable();
}
