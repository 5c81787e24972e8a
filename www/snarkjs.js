// snarkjs.html: one circuit proved by snarkjs on its CPU path, then with webgpu-msm/snarkjs's
// accelerateSnarkjs, with each proof's time in a table and a chart.
// URL parameters (defaults for the repository root served as /, the page at /www/snarkjs.html):
//   protocol=groth16|plonk|fflonk  circuit=chain_8 (a folder setup.mjs made)  curve=bn128
//   runs=2 (proofs on each path)  autorun=1 (prove on load)  check=1 (checkEachCall)
//   waitReady=1 (the GPU proofs begin once every kernel is compiled: accelerator.ready())
//   minPoints=N (default: the adapter's)  keys=URL of tests/snarkjs/build/
//   snarkjs=URL of snarkjs' browser bundle  pkg=URL of the package's folder (snarkjs.html)
//   accelerator=URL of another module exporting accelerateSnarkjs (the tests' CPU stand-in)
// When a run ends, body[data-status] is "done" (every proof verified, the GPU ran MSMs) or
// "error", and #result holds the result as JSON (also logged as SNARKJS_RESULT {json}).

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const here = (path) => new URL(path, location.href).href;
const KEYS = here(params.get("keys") ?? "../tests/snarkjs/build/");
const BUNDLE = here(params.get("snarkjs") ?? "../tests/snarkjs/node_modules/snarkjs/build/snarkjs.min.js");
const CURVE = params.get("curve") ?? "bn128";
const CIRCUITS = ["chain_6", "chain_8", "chain_14", "chain_16"];
const COLORS = { cpu: "#5a9e3a", gpu: "#2b7bd9" };

const setProgress = (text) => ($("progress").textContent = text);
const ms = (x) => (x < 10 ? x.toFixed(1) : x.toFixed(0));

/** snarkjs' browser bundle (a classic script that defines the global `snarkjs`). */
function loadBundle() {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = BUNDLE;
    script.onload = () => resolve(globalThis.snarkjs);
    script.onerror = () => reject(new Error(`could not load snarkjs' bundle from ${BUNDLE}`));
    document.head.append(script);
  });
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} (make the keys: node tests/snarkjs/setup.mjs)`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The circuit's witness wasm, zkey, verification key and input. */
async function loadCircuit(circuit, protocol) {
  const dir = `${KEYS}${CURVE}/${circuit}/`;
  const [wasm, zkey, vkey, input] = await Promise.all([
    fetchBytes(`${dir}main_js/main.wasm`), fetchBytes(`${dir}${protocol}.zkey`),
    fetchBytes(`${dir}${protocol}.vkey.json`), fetchBytes(`${dir}input.json`),
  ]);
  const text = (b) => JSON.parse(new TextDecoder().decode(b));
  return { wasm, zkey, vkey: text(vkey), input: text(input) };
}

/** One timed, verified proof; `gpu` (the accelerator, or null) counts the MSMs it ran. */
async function proveOnce(snarkjs, protocol, c, gpu) {
  const before = gpu?.stats().gpuCalls ?? 0;
  const start = performance.now();
  const { proof, publicSignals } = await snarkjs[protocol].fullProve(c.input, c.wasm, c.zkey);
  const elapsed = performance.now() - start;
  const gpuMsms = (gpu?.stats().gpuCalls ?? 0) - before;
  const verified = await snarkjs[protocol].verify(c.vkey, publicSignals, proof);
  return { ms: Math.round(elapsed * 10) / 10, gpuMsms, verified };
}

function addRow(path, index, r) {
  $("rows").querySelector(".empty")?.remove();
  const tr = document.createElement("tr");
  const cells = [path.toUpperCase(), `#${index + 1}${index === 0 ? " (cold)" : ""}`, ms(r.ms), String(r.gpuMsms)];
  for (const text of cells) tr.append(Object.assign(document.createElement("td"), { textContent: text }));
  tr.append(Object.assign(document.createElement("td"), { textContent: r.verified ? "yes" : "no", className: r.verified ? "ok" : "bad" }));
  $("rows").append(tr);
}

/** Horizontal bars (inline SVG), one per proof, CPU then GPU. */
function drawChart(result) {
  const bars = [...result.cpu.map((r, i) => ["cpu", i, r.ms]), ...result.gpu.map((r, i) => ["gpu", i, r.ms])];
  const W = 640, L = 90, R = 70, row = 24, H = bars.length * row + 10;
  const top = Math.max(...bars.map((b) => b[2]), 1);
  let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="prove time per proof">`;
  bars.forEach(([path, i, t], k) => {
    const y = 5 + k * row, w = ((W - L - R) * t) / top;
    svg += `<text x="${L - 8}" y="${y + 15}" text-anchor="end">${path.toUpperCase()} #${i + 1}</text>`;
    svg += `<rect x="${L}" y="${y + 2}" width="${Math.max(w, 1)}" height="${row - 6}" fill="${COLORS[path]}"/>`;
    svg += `<text x="${L + w + 6}" y="${y + 15}">${ms(t)} ms</text>`;
  });
  $("chart").innerHTML = `${svg}</svg>`;
  $("chart-title").textContent = `(${result.protocol}, ${result.curve} ${result.circuit})`;
}

async function run(snarkjs, accelerateSnarkjs) {
  document.body.dataset.status = "running";
  $("run").disabled = true;
  const protocol = $("protocol").value, circuit = $("circuit").value, runs = Number($("runs").value);
  const result = { protocol, curve: CURVE, circuit, runs, cpu: [], gpu: [], verified: false };
  let gpu = null;
  try {
    setProgress(`loading ${circuit}'s ${protocol} key…`);
    const c = await loadCircuit(circuit, protocol);
    for (let i = 0; i < runs; i++) {
      setProgress(`CPU proof ${i + 1} of ${runs}…`);
      result.cpu.push(await proveOnce(snarkjs, protocol, c, null));
      addRow("cpu", i, result.cpu[i]);
    }
    // Only the groups this protocol uses (Groth16's B2 is in G2): each group's kernels compile
    // in the background after accelerateSnarkjs returns, for minutes on a software GPU for
    // BLS12-381's G2; the first proof's large MSMs wait for them.
    const groups = { [CURVE]: protocol === "groth16" ? ["G1", "G2"] : ["G1"] };
    const options = { groups, checkEachCall: params.get("check") === "1" };
    if (params.has("minPoints")) options.minPoints = Number(params.get("minPoints"));
    setProgress("accelerateSnarkjs: creating the WebGPU device…");
    const start = performance.now();
    gpu = await accelerateSnarkjs(snarkjs, options);
    result.accelerateMs = Math.round(performance.now() - start);
    const ready = gpu.ready().then((s) => {
      result.readyMs = Math.round(performance.now() - start);
      $("accelerate").textContent = `${ms(result.accelerateMs)} ms; kernels compiled and checked ${ms(result.readyMs)} ms ` +
        `after the call (MSMs of ${s.minPoints} points or more on the GPU)`;
    });
    $("accelerate").textContent = `${ms(result.accelerateMs)} ms; kernels compiling in the background…`;
    const waitReady = params.get("waitReady") === "1";
    if (waitReady) await ready;
    for (let i = 0; i < runs; i++) {
      setProgress(`GPU proof ${i + 1} of ${runs}${i === 0 ? " (waits for the kernels, uploads the bases)" : ""}…`);
      result.gpu.push(await proveOnce(snarkjs, protocol, c, gpu));
      addRow("gpu", i, result.gpu[i]);
    }
    await ready;
    result.firstMs = Math.round((waitReady ? result.readyMs : result.accelerateMs) + result.gpu[0].ms);
    result.stats = gpu.stats();
    const all = [...result.cpu, ...result.gpu];
    result.verified = all.every((r) => r.verified);
    if (!result.verified) result.error = "a proof did not verify";
    else if (!(result.stats.gpuCalls > 0)) result.error = "no MSM ran on the GPU";
    const warm = (list) => (list.length > 1 ? list.slice(1).reduce((s, r) => s + r.ms, 0) / (list.length - 1) : list[0].ms);
    result.warmRatio = Math.round((warm(result.cpu) / warm(result.gpu)) * 100) / 100;
    drawChart(result);
  } catch (e) {
    result.error = String(e?.message ?? e);
  } finally {
    gpu?.restore();
  }
  $("result").textContent = JSON.stringify(result, null, 2);
  console.log(`SNARKJS_RESULT ${JSON.stringify(result)}`);
  setProgress(result.error ? `failed: ${result.error}` : `done: warm GPU proofs ${result.warmRatio}× the CPU's speed.`);
  document.body.dataset.status = result.error ? "error" : "done";
  $("run").disabled = false;
}

async function main() {
  for (const name of CIRCUITS) $("circuit").add(new Option(`${name.replace("_", " 2^")} (${CURVE})`, name));
  $("circuit").value = CIRCUITS.includes(params.get("circuit")) ? params.get("circuit") : "chain_8";
  if (params.has("protocol")) $("protocol").value = params.get("protocol");
  const runs = params.get("runs");
  if (runs && ![...$("runs").options].some((o) => o.value === runs)) $("runs").add(new Option(runs));
  if (runs) $("runs").value = runs;
  let snarkjs, accelerateSnarkjs;
  try {
    snarkjs = await loadBundle();
    if (params.has("accelerator")) ({ accelerateSnarkjs } = await import(here(params.get("accelerator"))));
    else {
      const { default: init } = await import("webgpu-msm");
      await init();
      ({ accelerateSnarkjs } = await import("webgpu-msm/snarkjs"));
    }
  } catch (e) {
    const error = String(e?.message ?? e);
    setProgress(`could not load: ${error}`);
    $("result").textContent = JSON.stringify({ error });
    document.body.dataset.status = "error";
    return;
  }
  const adapter = await navigator.gpu?.requestAdapter();
  const info = adapter?.info;
  $("adapter").textContent = !navigator.gpu ? "navigator.gpu is missing: this browser has no WebGPU"
    : !adapter ? "no adapter" : [info?.vendor, info?.architecture, info?.description].filter(Boolean).join(" / ") || "(unnamed adapter)";
  $("run").addEventListener("click", () => run(snarkjs, accelerateSnarkjs));
  $("run").disabled = false;
  document.body.dataset.status = "ready";
  setProgress("ready.");
  if (params.get("autorun") === "1") await run(snarkjs, accelerateSnarkjs);
}

main();
