#!/usr/bin/env bash
# Every test: native (lavapipe), a single-curve build (bn254 alone), native on SwiftShader,
# browser (wasm-bindgen-test in headless Chromium on SwiftShader), the demo page, and the npm
# package in Node.js (Dawn on SwiftShader), Deno (lavapipe) and a browser Web Worker. Each step
# installs what it needs on a fresh Debian machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

# step COMMAND...: runs one step and prints how long it took (CI must stay well inside its limit).
step() {
    local start=$SECONDS
    "$@"
    echo "test.sh: $* took $((SECONDS - start)) s" >&2
}

bash scripts/setup-native.sh
# lavapipe is what a bare machine has; set WEBGPU_MSM_EXPECT_ADAPTER= (empty) to run on another GPU.
# A test process keeps every context it opens, and lavapipe keeps each context's compiled
# kernels in host memory: bn254-g2's tests alone peak at 13 GB, all curves in one process went
# past this machine's 23 GB. So the G2 groups run in processes of their own (every test runs
# once: the per-curve modules are named after the curve, e.g. bn254_g2::).
lavapipe_test() { step env WEBGPU_MSM_EXPECT_ADAPTER="${WEBGPU_MSM_EXPECT_ADAPTER-llvmpipe}" cargo test -- "$@"; }
lavapipe_test --skip _g2::
lavapipe_test bn254_g2::
lavapipe_test bls12_381_g2:: bls12_377_g2::
step bash scripts/test-single-curve.sh bn254
step bash scripts/test-swiftshader.sh
step bash scripts/test-web.sh
step bash scripts/test-page.sh
step bash scripts/test-node.sh
step bash scripts/test-deno.sh
step bash scripts/test-worker.sh
