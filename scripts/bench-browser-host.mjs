// Opens www/host-share.html in headless Chromium (WebGPU on SwiftShader) and prints its result:
// the time from a JS ctx.msm call to its first GPU submission. Usage: node scripts/bench-browser-host.mjs URL
import { createRequire } from "node:module";
import { chromiumLaunchOptions } from "./chromium-options.mjs";

const require = createRequire(new URL("../www/package.json", import.meta.url));
const { chromium } = require("playwright-core");

const browser = await chromium.launch(chromiumLaunchOptions());
let ok = false;
try {
  const page = await browser.newPage();
  page.on("console", (msg) => console.log(`[page ${msg.type()}] ${msg.text()}`));
  page.on("pageerror", (err) => console.log(`[page error] ${err.message}`));
  await page.goto(process.argv[2]);
  await page.waitForSelector('body[data-status="done"], body[data-status="error"]', { timeout: 20 * 60 * 1000 });
  const result = await page.textContent("#result");
  console.log(`host share: ${result}`);
  ok = (await page.evaluate(() => document.body.dataset.status)) === "done";
} finally {
  await browser.close();
}
process.exit(ok ? 0 : 1);
