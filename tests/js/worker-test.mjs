// Loads worker-test.html in headless Chromium (WebGPU on SwiftShader) through playwright-core and
// waits for the module Worker's checks. Usage: node tests/js/worker-test.mjs URL
// Prints every check line, then `worker test: N passed, M failed`; exit status 1 on any failure.
import { chromium } from "playwright-core";
import { chromiumLaunchOptions } from "../../scripts/chromium-options.mjs";

const url = process.argv[2];
const TIMEOUT_MS = 10 * 60 * 1000;
const browser = await chromium.launch(chromiumLaunchOptions());

let result = { passed: 0, failed: 1 };
try {
  const page = await browser.newPage();
  page.on("console", (msg) => console.log(msg.type() === "log" ? msg.text() : `[page ${msg.type()}] ${msg.text()}`));
  page.on("pageerror", (err) => console.log(`[page error] ${err.message}`));
  const start = Date.now();
  console.log(`worker test: loading ${url}`);
  await page.goto(url);
  await page.waitForSelector('body[data-status="done"], body[data-status="error"]', { timeout: TIMEOUT_MS });
  result = JSON.parse(await page.textContent("#result"));
  console.log(`worker test: ${JSON.stringify(result)} after ${((Date.now() - start) / 1000).toFixed(1)} s`);
  if (result.error) result.failed = (result.failed ?? 0) + 1;
} catch (e) {
  console.log(`worker test: FAILED: ${e?.message ?? e}`);
} finally {
  await browser.close();
}
const failed = result.failed ?? 1, passed = result.passed ?? 0;
console.log(`worker test: ${passed} passed, ${failed} failed`);
process.exit(failed || !passed ? 1 : 0);
