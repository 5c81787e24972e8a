// checks.mjs in a page (browser-test.html), driven by chromium.mjs. ?standin=1 runs them against
// cpu-stand-in.mjs instead of the package; ?curves=bn128 keeps the keys of the curves listed;
// ?g2=0 accelerates the G1 groups only (the Node lane runs BN254's G2 on the same Dawn and
// SwiftShader; compiling it again here costs about 100 s). Ends with body[data-status] "done"
// (every check passed) or "error", and #result {passed, failed, noAdapter?, error?}.
import { TEST_GROUPS, captureDevices, runChecks } from "./checks.mjs";
import { TEST_KEYS } from "./keys.mjs";

const params = new URLSearchParams(location.search);
const standIn = params.get("standin") === "1";
const curves = params.get("curves")?.split(",");
const groups = params.get("g2") === "0" ? { bn128: ["G1"], bls12381: ["G1"] } : TEST_GROUPS;
const keys = curves ? TEST_KEYS.filter((k) => curves.includes(k.curve)) : TEST_KEYS;
const log = (line) => {
  console.log(line);
  document.getElementById("log").textContent += `${line}\n`;
};
const finish = (result, ok) => {
  document.getElementById("result").textContent = JSON.stringify(result);
  document.body.dataset.status = ok ? "done" : "error";
};

try {
  let accelerateSnarkjs;
  let loseDevice;
  const options = {};
  if (standIn) {
    ({ accelerateSnarkjs } = await import("./cpu-stand-in.mjs"));
  } else if (!(await navigator.gpu?.requestAdapter())) {
    throw Object.assign(new Error(navigator.gpu ? "no WebGPU adapter" : "navigator.gpu is missing"), { noAdapter: true });
  } else {
    const { default: init, MsmContext } = await import("webgpu-msm");
    await init();
    ({ accelerateSnarkjs } = await import("webgpu-msm/snarkjs"));
    // One context for every accelerateSnarkjs call: each group's kernels compile once.
    loseDevice = captureDevices();
    options.context = await MsmContext.create();
  }
  const load = async (path) => {
    const response = await fetch(`build/${path}`);
    if (!response.ok) throw new Error(`build/${path}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  };
  const tally = await runChecks({ snarkjs: globalThis.snarkjs, accelerateSnarkjs, load, log, keys, options, groups, loseDevice });
  finish({ passed: tally.passed, failed: tally.failed, standIn }, tally.failed === 0 && tally.passed > 0);
} catch (e) {
  log(`FAIL the page: ${e?.stack ?? e}`);
  finish({ passed: 0, failed: 1, error: String(e?.message ?? e), noAdapter: e?.noAdapter === true }, false);
}
