// webgpu-msm demo: GPU MSM (cold and warm) against arkworks in WASM, with a table and a chart.
// URL parameters: ?curve=ed-on-bls12-377&log=10&autorun=1 (or bench=1 for the size sweep).
// The package runs in a module Worker (worker.js): this page only sends requests and shows the
// worker's progress messages, so it stays responsive during long runs.

const $ = (id) => document.getElementById(id);
const MIN_LOG = 10, MAX_LOG = 20, DEFAULT_LOG = 12;
const SERIES = [
  { key: "gpuColdMs", label: "GPU cold", color: "#d9822b" },
  { key: "gpuWarmMs", label: "GPU warm", color: "#2b7bd9" },
  { key: "cpuMs", label: "WASM CPU", color: "#5a9e3a" },
];

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
const pending = new Map(); // run id → {resolve, steps}
let nextId = 1;
const results = []; // every finished run, in order

const setProgress = (text) => ($("progress").textContent = text);
const ms = (x) => (x == null ? "–" : x < 10 ? x.toFixed(2) : x.toFixed(0));
const sizeLabel = (log) => `2^${log} = ${(1 << log).toLocaleString("en-US")}`;

// One verified MSM of 2^log random points in the worker: GPU cold, GPU warm, arkworks in WASM.
// The result lists the worker's steps as the page received them.
async function runOne(curve, log) {
  const id = nextId++;
  const steps = [];
  const result = await new Promise((resolve) => {
    pending.set(id, { resolve, steps, curve, n: 1 << log });
    worker.postMessage({ type: "run", id, curve, log });
  });
  pending.delete(id);
  result.steps = steps;
  results.push(result);
  addRow(result);
  drawChart();
  const json = JSON.stringify(result);
  $("result").textContent = JSON.stringify(result, null, 2);
  console.log("MSM_RESULT " + json);
  return result;
}

function onWorkerMessage({ data }) {
  const run = pending.get(data.id);
  if (data.type === "progress" && run) {
    run.steps.push(data.step);
    setProgress(data.text);
  } else if (data.type === "adapter") {
    $("adapter").textContent = `${data.adapter} (backend: ${data.backend})`;
  } else if (data.type === "result" && run) {
    run.resolve(data.result);
  }
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
  // The worker loads the package and answers "ready" with the curves of this build.
  const ready = await new Promise((resolve) => {
    worker.onmessage = ({ data }) => {
      if (data.type === "ready") resolve({ curves: data.curves });
      else if (data.type === "init-error") resolve({ error: data.error });
    };
    worker.onerror = (e) => resolve({ error: `the worker failed: ${e.message ?? "could not load worker.js"}` });
  });
  if (ready.error) {
    setProgress(`could not load the WebAssembly module: ${ready.error}`);
    $("result").textContent = JSON.stringify({ error: ready.error });
    document.body.dataset.status = "error";
    return;
  }
  worker.onmessage = onWorkerMessage;
  // A worker that dies (out of memory, a crash) fails the runs waiting on it instead of hanging.
  worker.onerror = (e) => {
    for (const run of pending.values()) {
      run.resolve({ curve: run.curve, n: run.n, verified: false, error: `the worker failed: ${e.message}` });
    }
  };
  // The curve menu lists the curves this build of the package has (its curve registry).
  for (const name of ready.curves) $("curve").add(new Option(name, name));
  const curve = params.get("curve");
  if (ready.curves.includes(curve)) $("curve").value = curve;
  drawChart();
  if (!navigator.gpu) $("adapter").textContent = "navigator.gpu is missing: this browser has no WebGPU";
  for (const b of [$("run"), $("bench")]) b.disabled = false;
  document.body.dataset.status = "ready";
  setProgress("ready.");
  if (params.get("bench") === "1") await bench();
  else if (params.get("autorun") === "1") await run();
}

main();
