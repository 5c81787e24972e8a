// Runs pages in headless Chromium (WebGPU on SwiftShader, Debian's /usr/bin/chromium) through
// playwright-core, one after another in one browser, and waits for each to set
// body[data-status] to "done" (passed) or "error" (failed). Prints the pages' console.
// Usage: node tests/snarkjs/chromium.mjs URL...
// A page whose #result says {noAdapter: true} fails when CI=true and is skipped elsewhere.
import { chromium } from "playwright-core";
import { chromiumLaunchOptions } from "../../scripts/chromium-options.mjs";

const TIMEOUT_MS = 15 * 60 * 1000;
const ci = process.env.CI === "true";
const browser = await chromium.launch(chromiumLaunchOptions());

let passed = 0, failed = 0, skipped = 0;
try {
  for (const url of process.argv.slice(2)) {
    const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
    page.on("console", (msg) => console.log(`[page ${msg.type()}] ${msg.text()}`));
    page.on("pageerror", (err) => console.log(`[page error] ${err.message}`));
    console.log(`chromium: loading ${url}`);
    const start = Date.now();
    let status, result;
    try {
      await page.goto(url);
      await page.waitForSelector('body[data-status="done"], body[data-status="error"]', { timeout: TIMEOUT_MS });
      status = await page.evaluate(() => document.body.dataset.status);
      result = JSON.parse(await page.textContent("#result"));
    } catch (e) {
      status = "error";
      result = { error: String(e?.message ?? e) };
    }
    const shot = `/tmp/snarkjs-page-${passed + failed + skipped}.png`;
    await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
    console.log(`chromium: ${status} after ${((Date.now() - start) / 1000).toFixed(1)} s (screenshot ${shot}): ${JSON.stringify(result).slice(0, 500)}`);
    if (status === "done") passed++;
    else if (result?.noAdapter && !ci) {
      console.log("chromium: SKIPPED, no WebGPU adapter (with CI=true this fails)");
      skipped++;
    } else failed++;
    await page.close();
  }
} finally {
  await browser.close();
}
console.log(`snarkjs chromium test: ${passed} pages passed, ${failed} failed${skipped ? `, ${skipped} skipped (no adapter)` : ""}`);
process.exit(failed || (!passed && !skipped) ? 1 : 0);
