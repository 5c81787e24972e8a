#!/usr/bin/env bash
# Every test, in two lanes at once. One: native on lavapipe, then the doc tests. Two: browser
# (wasm-bindgen-test in headless Chromium on SwiftShader), the demo page, the npm package in
# Node.js (Dawn on SwiftShader, with snarkjs' proofs through webgpu-msm/snarkjs), snarkjs' proofs
# in Chromium, the package in Deno (lavapipe), a browser Web Worker and Firefox ESR (lavapipe), and
# native on SwiftShader.
# Each step installs what it needs on a fresh Debian machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

# step COMMAND...: runs one step and prints its wall and CPU time and the peak memory of its
# largest process (CI must stay well inside its limit; CPU time ÷ wall time says how much of the
# machine a step keeps busy).
step() { python3 scripts/measure.py test.sh "$@"; }

bash scripts/setup-native.sh

# lavapipe's LLVM optimization passes are about half the CPU of a cold kernel compile there, and
# the tests check answers, not lavapipe's speed: GALLIVM_PERF=nopt skips them (in Deno and the
# two-GPU test too). Mesa's shader cache does not tell such kernels from optimized ones, so the
# tests keep theirs apart, where a later benchmark on this machine will not load them.
export GALLIVM_PERF="${GALLIVM_PERF-nopt}"
export MESA_SHADER_CACHE_DIR="${MESA_SHADER_CACHE_DIR-$(realpath -m "${CARGO_TARGET_DIR:-target}")/mesa-shader-cache-tests}"

# Two lanes at once: each alone leaves much of a 2-core machine idle (a crate's front end, a
# kernel compile and most browser steps run on one core). The second lane installs Chromium,
# Node.js and its cargo tool first; the tool builds in a directory of its own beside the first
# lane's test build. Its output is kept in a file and printed when both are done.
web_lane() {
    # Only this lane runs apt after setup-native.sh (dpkg's lock admits one apt at a time); on a
    # bare machine these installs then overlap the native lane's build.
    step bash -c '. scripts/lib.sh && need_chromium && need_firefox && need_node'
    step bash -c '. scripts/lib.sh && need_wasm_bindgen_cli'
    step bash scripts/test-web.sh
    step bash scripts/test-page.sh
    step bash scripts/test-node.sh
    step bash scripts/test-snarkjs-browser.sh
    step bash scripts/test-deno.sh
    step bash scripts/test-worker.sh
    step bash scripts/test-firefox.sh
    # Native on SwiftShader last: the first lane's test build is done by then, and this lane,
    # without it, ends minutes before the first.
    step bash scripts/test-swiftshader.sh
}
web_log=$(mktemp)
show_web_log() {
    echo "test.sh: the browser and JS lane's output$1:" >&2
    cat "$web_log" >&2
}
set -m # the lane gets a process group of its own, so that a failure here can stop all of it
web_lane </dev/null >"$web_log" 2>&1 &
web=$!
set +m
# A failed native step stops the lane and shows what it had printed.
trap 'kill -- -$web 2>/dev/null || true; show_web_log " (stopped)"' EXIT

# lavapipe is what a bare machine has; set WEBGPU_MSM_EXPECT_ADAPTER= (empty) to run on another GPU.
# Every curve's tests in one run, the G2 groups' too: what each group runs is its test tier's
# (src/curve/registry.rs). A test process keeps every context it opens, and lavapipe keeps each
# context's compiled kernels in host memory: the step's line gives the largest process's peak.
# The examples are not built here: the lints (.ci/run) check them.
cargo test --lib --tests --no-run
step env WEBGPU_MSM_EXPECT_ADAPTER="${WEBGPU_MSM_EXPECT_ADAPTER-llvmpipe}" cargo test --lib --tests
step cargo test --doc

web_status=0
wait "$web" || web_status=$?
trap - EXIT
show_web_log ""
if [ "$web_status" != 0 ]; then
    echo "test.sh: the browser and JS lane failed (exit status $web_status)" >&2
    exit "$web_status"
fi
echo "test.sh: every step passed, $((SECONDS / 60)) min $((SECONDS % 60)) s in all" >&2
