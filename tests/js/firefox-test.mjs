// Runs firefox-test.html in headless Firefox (Debian's firefox-esr, WebGPU switched on by
// preference in a fresh profile) without WebDriver: serves tests/js/ on a free local port,
// receives the page's lines and tally as POSTs (/log, /done), and ends Firefox when the tally
// comes or after 10 minutes.
// Usage: node tests/js/firefox-test.mjs [--worker] [CURVE,CURVE,...] (default: every curve)
// Prints every check line, then `firefox test: N passed, M failed`; exit status 1 on any failure
// or a timeout. FIREFOX names the binary (default firefox-esr); FIREFOX_LOG=1 prints Firefox's
// own output (stdout and stderr) as it comes rather than its last lines on a failure.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const TIMEOUT_MS = 10 * 60 * 1000;
const root = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const inWorker = args.includes("--worker");
const curves = args.find((a) => !a.startsWith("--")) ?? "";
const firefox = process.env.FIREFOX || "firefox-esr";
const verbose = !!process.env.FIREFOX_LOG;

// The profile's preferences. WebGPU: Firefox ESR 153 ships it off on Linux (without
// dom.webgpu.enabled, navigator.gpu is undefined, in Workers too), and its blocklist refuses the
// software adapter (without gfx.webgpu.ignore-blocklist, requestAdapter() gives null and the
// console says "WebGPU is disabled by blocklist."). Then nothing that reaches the network
// (updates, telemetry, remote settings, safe browsing, the new-tab page), and the page's console
// on stdout.
const PREFS = {
  "dom.webgpu.enabled": true,
  "gfx.webgpu.ignore-blocklist": true,
  "devtools.console.stdout.content": true,
  "browser.dom.window.dump.enabled": true,
  "app.update.enabled": false,
  "app.update.auto": false,
  "app.normandy.enabled": false,
  "browser.aboutwelcome.enabled": false,
  "browser.newtabpage.enabled": false,
  "browser.ping-centre.telemetry": false,
  "browser.safebrowsing.downloads.enabled": false,
  "browser.safebrowsing.malware.enabled": false,
  "browser.safebrowsing.phishing.enabled": false,
  "browser.safebrowsing.update.enabled": false,
  "browser.search.update": false,
  "browser.shell.checkDefaultBrowser": false,
  "browser.startup.homepage_override.mstone": "ignore",
  "browser.startup.page": 0,
  "browser.tabs.warnOnClose": false,
  "datareporting.healthreport.uploadEnabled": false,
  "datareporting.policy.dataSubmissionEnabled": false,
  "datareporting.policy.firstRunURL": "",
  "extensions.update.enabled": false,
  "extensions.getAddons.cache.enabled": false,
  "extensions.blocklist.enabled": false,
  "network.captive-portal-service.enabled": false,
  "network.connectivity-service.enabled": false,
  "network.dns.disablePrefetch": true,
  "network.prefetch-next": false,
  "services.settings.server": "http://127.0.0.1:1/", // heeded with MOZ_REMOTE_SETTINGS_DEVTOOLS=1
  "app.shield.optoutstudies.enabled": false,
  "browser.discovery.enabled": false,
  "browser.newtabpage.activity-stream.feeds.section.topstories": false,
  "browser.newtabpage.activity-stream.feeds.topsites": false,
  "browser.newtabpage.activity-stream.telemetry": false,
  "browser.region.network.url": "",
  "browser.topsites.contile.enabled": false,
  "extensions.systemAddon.update.enabled": false,
  "geo.provider.network.url": "",
  "messaging-system.rsexperimentloader.enabled": false,
  "network.trr.mode": 5,
  "toolkit.telemetry.enabled": false,
  "toolkit.telemetry.unified": false,
  "toolkit.telemetry.server": "",
  "toolkit.startup.max_resumed_crashes": -1,
  "browser.sessionstore.resume_from_crash": false,
};

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
};

let settle;
const done = new Promise((resolve) => (settle = resolve));
const server = createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  if (req.method === "POST") {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      res.writeHead(204).end();
      let data;
      try {
        data = JSON.parse(body);
      } catch {
        console.log(`firefox test: a POST to ${url.pathname} that is not JSON: ${body.slice(0, 200)}`);
        return;
      }
      if (url.pathname === "/log") console.log(data.line);
      else if (url.pathname === "/done") settle(data);
    });
    return;
  }
  try {
    const path = normalize(join(root, decodeURIComponent(url.pathname)));
    if (!path.startsWith(root + sep)) return res.writeHead(403).end();
    const body = readFileSync(path);
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream", "cache-control": "no-store" }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const query = new URLSearchParams();
if (curves) query.set("curves", curves);
if (inWorker) query.set("worker", "1");
const pageUrl = `http://127.0.0.1:${server.address().port}/firefox-test.html?${query}`;

const profile = mkdtempSync(join(tmpdir(), "webgpu-msm-firefox-"));
writeFileSync(join(profile, "user.js"), Object.entries(PREFS).map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});\n`).join(""));
const ownRuntimeDir = process.env.XDG_RUNTIME_DIR ? null : mkdtempSync(join(tmpdir(), "webgpu-msm-xdg-"));
const runtimeDir = process.env.XDG_RUNTIME_DIR || ownRuntimeDir;

const start = Date.now();
console.log(`firefox test: loading ${pageUrl} in ${firefox} (profile ${profile})`);
const browser = spawn(firefox, ["--headless", "--no-remote", "--profile", profile, pageUrl], {
  env: { ...process.env, MOZ_HEADLESS: "1", XDG_RUNTIME_DIR: runtimeDir, MOZ_CRASHREPORTER_DISABLE: "1", MOZ_REMOTE_SETTINGS_DEVTOOLS: "1" },
  stdio: ["ignore", "pipe", "pipe"],
  detached: true, // its own process group: the content and GPU processes end with it
});
// Firefox has a process group of its own (above), so it ends with this script however this
// script ends: a signal (test.sh stopping its lane), an error, a closed stdout.
const killFirefox = (signal) => {
  try {
    if (browser.pid) process.kill(-browser.pid, signal);
  } catch {}
};
process.on("exit", () => {
  killFirefox("SIGKILL");
  for (const dir of [profile, ownRuntimeDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => process.exit(1));
// Firefox's own output: kept (the last 200 lines) for a failure, or printed as it comes.
const firefoxLines = [];
for (const stream of [browser.stdout, browser.stderr]) {
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop();
    for (const line of lines) {
      if (verbose) console.log(`[firefox] ${line}`);
      firefoxLines.push(line);
      if (firefoxLines.length > 200) firefoxLines.shift();
    }
  });
}
browser.on("error", (e) => settle({ error: `${firefox} did not start: ${e.message}` }));
browser.on("exit", (code, signal) => settle({ error: `Firefox exited (${signal ?? `status ${code}`}) before the page's tally` }));
const timer = setTimeout(() => settle({ error: `no tally after ${TIMEOUT_MS / 60000} minutes` }), TIMEOUT_MS);

const result = await done;
clearTimeout(timer);
console.log(`firefox test: ${JSON.stringify(result)} after ${((Date.now() - start) / 1000).toFixed(1)} s`);
if (browser.pid && browser.exitCode === null && browser.signalCode === null) {
  const exited = new Promise((resolve) => browser.once("exit", resolve));
  killFirefox("SIGTERM");
  const killer = setTimeout(() => killFirefox("SIGKILL"), 5000);
  await exited;
  clearTimeout(killer);
}
server.close();

const passed = result.passed ?? 0;
const failed = result.error ? Math.max(result.failed ?? 0, 1) : result.failed ?? 1;
if ((result.error || failed || !passed) && !verbose && firefoxLines.length) {
  console.log(`firefox test: Firefox's last ${firefoxLines.length} lines of output:`);
  for (const line of firefoxLines) console.log(`[firefox] ${line}`);
}
console.log(`firefox test: ${passed} passed, ${failed} failed`);
process.exit(failed || !passed ? 1 : 0);
