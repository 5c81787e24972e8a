#!/usr/bin/env bash
# Page test: builds the package, serves www/ locally and runs the demo page in headless Chromium
# (WebGPU on SwiftShader) through playwright-core, which must verify one MSM on each curve.
# Usage: bash scripts/test-page.sh [log2 n, default 8] [curve...]
# Default curves: ed-on-bls12-377 and bls12-377 (the main job's). The page is the same code for
# every curve; each curve's MSMs in Chromium are checked against arkworks by tests/web.rs, and
# bn254's through the package by the snarkjs pages (scripts/test-snarkjs-browser.sh), so more
# curves here would only compile them again (10-115 s each on SwiftShader).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
log="${1:-8}"
[ $# -gt 1 ] && curves=("${@:2}") || curves=(ed-on-bls12-377 bls12-377)
prepare_www

serve_dir www

for curve in "${curves[@]}"; do
    node scripts/page-test.mjs "http://127.0.0.1:$port/?curve=$curve&log=$log&autorun=1" "/tmp/page-$curve.png"
done
# Without WebGPU the page must say so (the rejected promise's message), not fail silently.
node scripts/page-test.mjs "http://127.0.0.1:$port/?curve=ed-on-bls12-377&log=$log&autorun=1" /tmp/page-no-webgpu.png --no-webgpu
