// WebGPU for the package in Node.js, as tests/js/node-test.mjs sets it up: Dawn from the `webgpu`
// npm package as navigator.gpu, the WebGPU constants (GPUBufferUsage, …) and a global scope wgpu
// recognises (WorkerGlobalScope). Which Vulkan driver Dawn uses is VK_ICD_FILENAMES' choice.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** Installs navigator.gpu; returns the adapter's description, or null when there is no adapter. */
export async function installWebGpu() {
  const { create, globals } = await import("webgpu");
  Object.assign(globalThis, globals);
  Object.defineProperty(globalThis, "navigator", { value: { gpu: create([]) }, configurable: true, writable: true });
  globalThis.WorkerGlobalScope ??= class WorkerGlobalScope {};
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) return null;
  const info = adapter.info ?? {};
  return [info.vendor, info.architecture, info.description].filter(Boolean).join(" / ") || "(unnamed adapter)";
}

/** Dawn keeps Node alive while the GPU object is referenced (see the webgpu package's README). */
export const uninstallWebGpu = () => delete globalThis.navigator;

/** Initialises the package as an app does (Node's fetch reads no file: URLs) and returns accelerateSnarkjs. */
export async function loadAccelerator() {
  const require = createRequire(import.meta.url);
  const { default: init } = await import("webgpu-msm");
  await init({ module_or_path: readFileSync(require.resolve("webgpu-msm/webgpu_msm_bg.wasm")) });
  return (await import("webgpu-msm/snarkjs")).accelerateSnarkjs;
}
