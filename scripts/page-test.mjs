// Loads the demo page in headless Chromium (WebGPU on SwiftShader), waits for the autorun to
// finish and checks the verified result. Usage: node scripts/page-test.mjs URL [SCREENSHOT] [--no-webgpu]
// With --no-webgpu, Chromium starts without WebGPU and the page must report "WebGPU unavailable".
// The page runs the package in a module Worker: the result must say so and list its steps.
import { createRequire } from "node:module";
import { chromiumLaunchOptions } from "./chromium-options.mjs";

const require = createRequire(new URL("../www/package.json", import.meta.url));
const { chromium } = require("playwright-core");

const url = process.argv[2];
const screenshot = process.argv[3] ?? "/tmp/page.png";
const noWebGpu = process.argv.includes("--no-webgpu");
const TIMEOUT_MS = 10 * 60 * 1000;
// The progress messages the page's Worker (www/worker.js) sends for one run, in order.
const STEPS = ["inputs", "gpu-cold", "gpu-warm", "cpu"];

const browser = await chromium.launch(chromiumLaunchOptions({ webgpu: !noWebGpu }));

let failure = null;
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
  page.on("console", (msg) => console.log(`[page ${msg.type()}] ${msg.text()}`));
  page.on("pageerror", (err) => console.log(`[page error] ${err.message}`));
  console.log(`page test: loading ${url}`);
  const start = Date.now();
  await page.goto(url);
  await page.waitForSelector('body[data-status="done"], body[data-status="error"]', { timeout: TIMEOUT_MS });
  const status = await page.evaluate(() => document.body.dataset.status);
  const text = await page.textContent("#result");
  console.log(`page test: status ${status} after ${((Date.now() - start) / 1000).toFixed(1)} s`);
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`page test: screenshot ${screenshot}`);
  const result = JSON.parse(text);
  console.log(`page test: result ${JSON.stringify(result)}`);
  if (noWebGpu) {
    if (status !== "error" || !String(result.error).includes("WebGPU unavailable")) {
      failure = `expected a "WebGPU unavailable" error, got status ${status}: ${result.error}`;
    } else if (result.steps?.join() !== "inputs,gpu-cold") failure = `worker steps ${result.steps}, expected inputs,gpu-cold`;
  } else if (status !== "done") failure = `status is ${status}: ${result.error}`;
  else if (result.curve !== new URL(url).searchParams.get("curve")) failure = `ran ${result.curve}, not the URL's curve`;
  else if (result.verified !== true) failure = "result is not verified";
  else if (!result.adapter?.trim() || !result.backend?.trim()) failure = "adapter or backend is empty";
  else if (!(result.gpuColdMs > 0 && result.gpuWarmMs > 0 && result.cpuMs >= 0)) failure = "missing timings";
  else if (result.inWorker !== true) failure = "the MSM did not run in the page's Worker";
  else if (result.steps?.join() !== STEPS.join()) failure = `worker steps ${result.steps}, expected ${STEPS}`;
} catch (e) {
  failure = String(e?.message ?? e);
} finally {
  await browser.close();
}

if (failure) console.log(`page test: FAILED: ${failure}`);
console.log(`page test: ${failure ? "0 passed, 1 failed" : "1 passed, 0 failed"}`);
process.exit(failure ? 1 : 0);
