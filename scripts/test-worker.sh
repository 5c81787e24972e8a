#!/usr/bin/env bash
# Web Worker test: the npm package inside a module Worker in headless Chromium (WebGPU on
# SwiftShader), running tests/js/checks.mjs there (known answers, arkworks, bad inputs rejecting
# with named errors). Serves tests/js/ on a free local port; installs node, npm, chromium (apt)
# and tests/js's locked npm packages when missing.
# Usage: bash scripts/test-worker.sh [CURVE,CURVE,...] (default: bls12-377 and bls12-381, the G1
# curves whose JS checks run in Chromium nowhere else; tests/web.rs runs ed-on-bls12-377 and bn254)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
curves="${1:-bls12-377,bls12-381}"
need_chromium
prepare_js_tests

serve_dir tests/js worker-test.html
node tests/js/worker-test.mjs "http://127.0.0.1:$port/worker-test.html?curves=$curves"
