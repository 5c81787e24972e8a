// webgpu-msm demo: GPU MSM (cold and warm) against arkworks in WASM, with a table and a chart.
// URL parameters: ?curve=ed-on-bls12-377&log=10&autorun=1 (or bench=1 for the size sweep).
import init, { MsmContext, curves, randomInputs, arkworksMsm } from "./node_modules/webgpu-msm/webgpu_msm.js";

const $ = (id) => document.getElementById(id);
const MIN_LOG = 10, MAX_LOG = 20, DEFAULT_LOG = 12;
const SERIES = [
  { key: "gpuColdMs", label: "GPU cold", color: "#d9822b" },
  { key: "gpuWarmMs", label: "GPU warm", color: "#2b7bd9" },
  { key: "cpuMs", label: "WASM CPU", color: "#5a9e3a" },
];

let ctx = null; // the MsmContext, created once on the first run
const results = []; // every finished run, in order

const setProgress = (text) => ($("progress").textContent = text);
const ms = (x) => (x == null ? "–" : x < 10 ? x.toFixed(2) : x.toFixed(0));
const sizeLabel = (log) => `2^${log} = ${(1 << log).toLocaleString("en-US")}`;

// Lets the browser paint the progress text before the next blocking WASM call.
const paint = () =>
  new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100); // rAF does not fire in background tabs
  });

// [value of f(), milliseconds rounded to 0.1].
async function timed(f) {
  const start = performance.now();
  const value = await f();
  return [value, Math.round((performance.now() - start) * 10) / 10];
}

const equalBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

// One verified MSM of 2^log random points: GPU cold, GPU warm, arkworks in WASM.
async function runOne(curve, log) {
  const n = 1 << log;
  const label = `${curve}, n = ${sizeLabel(log)}`;
  const result = {
    curve, n, verified: false, gpuColdMs: null, gpuWarmMs: null, cpuMs: null, adapter: null, backend: null,
  };
  try {
    setProgress(`${label}: generating inputs…`);
    await paint();
    const [points, scalars] = randomInputs(curve, n, BigInt(log));

    const firstRun = ctx === null;
    setProgress(`${label}: GPU cold run${firstRun ? " (creating the WebGPU device, compiling pipelines)" : ""}…`);
    await paint();
    let gpu;
    [gpu, result.gpuColdMs] = await timed(async () => {
      if (firstRun) {
        ctx = await MsmContext.create();
        showAdapter();
      }
      return ctx.msm(curve, points, scalars);
    });
    Object.assign(result, adapter());

    setProgress(`${label}: GPU warm run…`);
    await paint();
    let gpuWarm;
    [gpuWarm, result.gpuWarmMs] = await timed(() => ctx.msm(curve, points, scalars));

    setProgress(`${label}: arkworks MSM in WASM (CPU, blocks the page)…`);
    await paint();
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
  results.push(result);
  addRow(result);
  drawChart();
  const json = JSON.stringify(result);
  $("result").textContent = JSON.stringify(result, null, 2);
  console.log("MSM_RESULT " + json);
  return result;
}

// adapterInfo is "vendor / architecture / description", with empty fields on some adapters.
function adapter() {
  const info = ctx.adapterInfo.split(" / ").filter((s) => s.trim()).join(" / ");
  return { adapter: info || "(unnamed adapter)", backend: ctx.backend };
}

function showAdapter() {
  const { adapter: info, backend } = adapter();
  $("adapter").textContent = `${info} (backend: ${backend})`;
}

function addRow(r) {
  const empty = $("rows").querySelector(".empty");
  if (empty) empty.remove();
  const tr = document.createElement("tr");
  const cells = [r.curve, `2^${Math.log2(r.n)} = ${r.n.toLocaleString("en-US")}`,
    ms(r.gpuColdMs), ms(r.gpuWarmMs), ms(r.cpuMs)];
  for (const text of cells) {
    const td = document.createElement("td");
    td.textContent = text;
    tr.append(td);
  }
  const verdict = document.createElement("td");
  verdict.textContent = r.verified ? "yes" : "no";
  verdict.className = r.verified ? "ok" : "bad";
  tr.append(verdict);
  if (r.error) tr.className = "has-error";
  $("rows").append(tr);
  if (r.error) {
    // The message gets a full-width row of its own under the numbers.
    const errorRow = document.createElement("tr");
    errorRow.className = "error";
    const td = document.createElement("td");
    td.colSpan = 6;
    td.textContent = r.error;
    errorRow.append(td);
    $("rows").append(errorRow);
  }
}

// A log–log line chart (inline SVG) of the latest verified run per size for the chosen curve.
function drawChart() {
  const curve = $("curve").value;
  $("chart-curve").textContent = `(${curve})`;
  const bySize = new Map();
  for (const r of results) if (r.curve === curve && r.verified) bySize.set(r.n, r);
  const runs = [...bySize.values()].sort((a, b) => a.n - b.n);
  if (runs.length === 0) {
    $("chart").innerHTML = `<p class="dim">No verified runs for ${curve} yet: press Run or the benchmark.</p>`;
    return;
  }
  const W = 640, H = 300, L = 56, R = 130, T = 12, B = 44;
  const logs = runs.map((r) => Math.log2(r.n));
  const times = runs.flatMap((r) => SERIES.map((s) => r[s.key]));
  const single = runs.length === 1; // centre a lone size
  const x0 = Math.min(...logs) - single, x1 = Math.max(...logs) + single;
  const y0 = Math.floor(Math.log10(Math.max(Math.min(...times), 0.1)));
  const y1 = Math.max(Math.ceil(Math.log10(Math.max(...times))), y0 + 1);
  const px = (log) => L + ((log - x0) / (x1 - x0)) * (W - L - R);
  const py = (t) => T + (1 - (Math.log10(Math.max(t, 0.1)) - y0) / (y1 - y0)) * (H - T - B);

  let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="MSM time across sizes">`;
  for (let e = y0; e <= y1; e++) {
    const y = py(10 ** e);
    svg += `<line x1="${L}" x2="${W - R}" y1="${y}" y2="${y}" class="grid"/>`;
    svg += `<text x="${L - 6}" y="${y + 4}" text-anchor="end">${(10 ** e).toLocaleString("en-US")}</text>`;
  }
  for (let log = Math.ceil(x0); log <= x1; log++) {
    svg += `<text x="${px(log)}" y="${H - B + 20}" text-anchor="middle">2^${log}</text>`;
  }
  svg += `<text x="${(L + W - R) / 2}" y="${H - 4}" text-anchor="middle">n (points)</text>`;
  svg += `<text x="12" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 12 ${(T + H - B) / 2})">ms (log scale)</text>`;
  SERIES.forEach((s, i) => {
    const pts = runs.map((r) => `${px(Math.log2(r.n))},${py(r[s.key])}`);
    svg += `<polyline points="${pts.join(" ")}" fill="none" stroke="${s.color}" stroke-width="2"/>`;
    for (const p of pts) {
      const [cx, cy] = p.split(",");
      svg += `<circle cx="${cx}" cy="${cy}" r="3.5" fill="${s.color}"/>`;
    }
    const ly = T + 10 + i * 20;
    svg += `<line x1="${W - R + 16}" x2="${W - R + 36}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="3"/>`;
    svg += `<text x="${W - R + 42}" y="${ly + 4}">${s.label}</text>`;
  });
  $("chart").innerHTML = svg + "</svg>";
}

async function withButtonsDisabled(f) {
  document.body.dataset.status = "running";
  for (const b of [$("run"), $("bench")]) b.disabled = true;
  let ok = false;
  try {
    ok = await f();
  } finally {
    for (const b of [$("run"), $("bench")]) b.disabled = false;
    document.body.dataset.status = ok ? "done" : "error";
  }
}

async function run() {
  await withButtonsDisabled(async () => {
    const r = await runOne($("curve").value, Number($("log").value));
    setProgress(r.verified ? "done." : `failed: ${r.error}`);
    return r.verified;
  });
}

async function bench() {
  await withButtonsDisabled(async () => {
    const curve = $("curve").value, top = Number($("log").value);
    for (let log = Math.min(MIN_LOG, top); log <= top; log++) {
      const r = await runOne(curve, log);
      if (!r.verified) {
        setProgress(`benchmark stopped at 2^${log}: ${r.error}`);
        return false;
      }
    }
    setProgress("benchmark done.");
    return true;
  });
}

function setUpControls(params) {
  const select = $("log");
  const wanted = Number(params.get("log") ?? DEFAULT_LOG);
  const logs = [];
  for (let log = MIN_LOG; log <= MAX_LOG; log++) logs.push(log);
  // Smaller sizes (e.g. ?log=8 for a quick test) are accepted from the URL.
  if (Number.isInteger(wanted) && wanted >= 0 && wanted < MIN_LOG) logs.unshift(wanted);
  for (const log of logs) select.add(new Option(sizeLabel(log), log));
  select.value = logs.includes(wanted) ? wanted : DEFAULT_LOG;
  $("curve").addEventListener("change", drawChart);
  $("run").addEventListener("click", run);
  $("bench").addEventListener("click", bench);
  drawChart();
}

async function main() {
  const params = new URLSearchParams(location.search);
  setUpControls(params);
  try {
    await init();
  } catch (e) {
    setProgress(`could not load the WebAssembly module: ${e}`);
    $("result").textContent = JSON.stringify({ error: String(e) });
    document.body.dataset.status = "error";
    return;
  }
  // The curve menu lists the curves this build of the package has (its curve registry).
  for (const name of curves()) $("curve").add(new Option(name, name));
  const curve = params.get("curve");
  if (curves().includes(curve)) $("curve").value = curve;
  drawChart();
  if (!navigator.gpu) $("adapter").textContent = "navigator.gpu is missing: this browser has no WebGPU";
  for (const b of [$("run"), $("bench")]) b.disabled = false;
  document.body.dataset.status = "ready";
  setProgress("ready.");
  if (params.get("bench") === "1") await bench();
  else if (params.get("autorun") === "1") await run();
}

main();
