// How every playwright-core driver of this repository launches Debian's Chromium: headless,
// never a downloaded browser, WebGPU on SwiftShader's Vulkan (the software GPU of CI), or with
// WebGPU switched off (`{ webgpu: false }`, for the pages' "WebGPU unavailable" checks).
// Plain data, so that each driver passes it to the playwright-core of its own node_modules.
export function chromiumLaunchOptions({ webgpu = true } = {}) {
  const gpu = webgpu
    ? ["--enable-unsafe-webgpu", "--enable-features=Vulkan", "--use-angle=swiftshader", "--use-vulkan=swiftshader"]
    : ["--disable-features=WebGPU,Vulkan"];
  return {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", ...gpu, "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
      "--no-first-run"],
  };
}

// `node scripts/chromium-options.mjs webdriver [ARG...]` prints the same launch as the
// webdriver.json of wasm-bindgen-test-runner (scripts/test-web.sh, scripts/bench-peer.sh write
// it), with any extra Chromium arguments.
if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "webdriver") {
  const { executablePath, args } = chromiumLaunchOptions();
  // wasm-bindgen-test-runner gives ChromeDriver "--headless" itself.
  const options = { binary: executablePath, args: [...args, ...process.argv.slice(3)] };
  console.log(JSON.stringify({ "goog:chromeOptions": options }, null, 2));
}
