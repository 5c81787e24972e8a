#!/usr/bin/env bash
# Every test, in two lanes at once. One: native on lavapipe, a single-curve build (bn254 alone)
# and native on SwiftShader. Two: browser (wasm-bindgen-test in headless Chromium on
# SwiftShader), the demo page, the npm package in Node.js (Dawn on SwiftShader, with snarkjs'
# proofs through webgpu-msm/snarkjs), snarkjs' proofs in Chromium, and the package in Deno
# (lavapipe) and a browser Web Worker. Each step installs what it needs on a fresh Debian machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

# step COMMAND...: runs one step and prints its wall and CPU time and the peak memory of its
# largest process (CI must stay well inside its limit; CPU time ÷ wall time says how much of the
# machine a step keeps busy).
step() { python3 scripts/measure.py test.sh "$@"; }

bash scripts/setup-native.sh
# What the browser and JS steps install from Debian, now: the two lanes below must not run apt at
# once (dpkg's lock).
. scripts/lib.sh
need_chromium
need_node

# Two lanes at once: the lavapipe steps keep about 1.8 cores of a 2-core machine busy, the
# browser and JS steps about one (their CPU time ÷ wall time), so one after the
# other left a core idle for half the run. The second lane installs its cargo tool first:
# it builds in a directory of its own, beside the first lane's test build, which holds
# target/ (the wasm builds would wait for it). Its output is kept in a file and printed when
# both are done.
web_lane() {
    step bash -c '. scripts/lib.sh && need_wasm_bindgen_cli'
    step bash scripts/test-web.sh
    step bash scripts/test-page.sh
    step bash scripts/test-node.sh
    step bash scripts/test-snarkjs-browser.sh
    step bash scripts/test-deno.sh
    step bash scripts/test-worker.sh
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
# A test process keeps every context it opens, and lavapipe keeps each context's compiled
# kernels in host memory: bn254-g2's tests alone peak at 13 GB. So each G2 group (a test module
# per group, named after it, e.g. bn254_g2::, from the curve registry's for_each_curve!) runs in
# a process of its own, found in the test binaries' list, and every other test in one more.
lavapipe_test() { step env WEBGPU_MSM_EXPECT_ADAPTER="${WEBGPU_MSM_EXPECT_ADAPTER-llvmpipe}" cargo test -- "$@"; }
cargo test --no-run
mapfile -t g2_groups < <(cargo test -q -- --list 2>/dev/null | grep -o '[a-z0-9_]*_g2::' | sort -u)
[ ${#g2_groups[@]} -gt 0 ] || { echo "test.sh: no G2 test groups found" >&2; exit 1; }
lavapipe_test --skip _g2::
# What each group runs is its test tier's (src/curve/registry.rs): the host's plans only in the
# representatives' groups (`every_plan`), so no filter here.
for group in "${g2_groups[@]}"; do
    lavapipe_test "$group"
done
step bash scripts/test-single-curve.sh bn254
step bash scripts/test-swiftshader.sh

web_status=0
wait "$web" || web_status=$?
trap - EXIT
show_web_log ""
if [ "$web_status" != 0 ]; then
    echo "test.sh: the browser and JS lane failed (exit status $web_status)" >&2
    exit "$web_status"
fi
echo "test.sh: every step passed, $((SECONDS / 60)) min $((SECONDS % 60)) s in all" >&2
