#!/usr/bin/env bash
# Page test: builds the package, serves www/ locally and runs the demo page in headless Chromium
# (WebGPU on SwiftShader) through playwright-core, which must verify one MSM on each curve.
# Usage: bash scripts/test-page.sh [log2 n, default 8] [curve...]
# Default curves: the G1 curves and bn254-g2 (10-115 s each). bls12-381-g2 is left to an argument:
# SwiftShader compiles its kernels (products one after another) for about four minutes, a
# fifteenth of CI's time; lavapipe runs the BLS12 G2 groups' 13-bit pipelines in the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
log="${1:-8}"
[ $# -gt 1 ] && curves=("${@:2}") || curves=(ed-on-bls12-377 bls12-377 bn254 bls12-381 bn254-g2)
prepare_www

serve_dir www

for curve in "${curves[@]}"; do
    node scripts/page-test.mjs "http://127.0.0.1:$port/?curve=$curve&log=$log&autorun=1" "/tmp/page-$curve.png"
done
# Without WebGPU the page must say so (the rejected promise's message), not fail silently.
node scripts/page-test.mjs "http://127.0.0.1:$port/?curve=ed-on-bls12-377&log=$log&autorun=1" /tmp/page-no-webgpu.png --no-webgpu
