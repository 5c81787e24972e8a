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
step env WEBGPU_MSM_EXPECT_ADAPTER="${WEBGPU_MSM_EXPECT_ADAPTER-llvmpipe}" cargo test
step bash scripts/test-single-curve.sh bn254
step bash scripts/test-swiftshader.sh
step bash scripts/test-web.sh
step bash scripts/test-page.sh
step bash scripts/test-node.sh
step bash scripts/test-deno.sh
step bash scripts/test-worker.sh
