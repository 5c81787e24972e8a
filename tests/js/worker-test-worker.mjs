// Module Worker of worker-test.html (and of firefox-test.html with ?worker=1): loads the
// webgpu-msm package inside the worker (where wgpu finds `WorkerGlobalScope` and `navigator.gpu`)
// and runs checks.mjs, reporting each line.
import init, * as m from "./node_modules/webgpu-msm/webgpu_msm.js";
import { errorText, runChecks, Tally } from "./checks.mjs";

self.onmessage = async ({ data }) => {
  const log = (line) => self.postMessage({ type: "log", line });
  let tally = new Tally(log);
  try {
    await tally.check("running in a dedicated Worker", () => {
      if (typeof WorkerGlobalScope === "undefined" || !(self instanceof WorkerGlobalScope)) throw new Error("not a worker scope");
      if (typeof document !== "undefined") throw new Error("document is defined");
      if (!navigator.gpu) throw new Error("navigator.gpu is missing in the worker");
    });
    await init();
    const inWorker = tally;
    tally = await runChecks(m, { curves: data.curves ?? m.curves(), log, blankAdapterInfo: !!data.blankAdapterInfo });
    tally.passed += inWorker.passed;
    tally.failed += inWorker.failed;
  } catch (e) {
    log(`FAIL worker: ${errorText(e)}`);
    tally.failed++;
  }
  self.postMessage({ type: "done", passed: tally.passed, failed: tally.failed });
};
