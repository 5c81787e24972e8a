#!/usr/bin/env bash
# The host's share of a JS call in Chromium (WebGPU on SwiftShader): for each curve, the time from
# ctx.msm(curve, points, scalars) at 2^log to the first GPU submission, beside a JS copy of the
# same bytes (www/host-share.html), three fresh browsers per curve, each after one whole warm-up
# call of the same size. A benchmark, not a test: it prints numbers (BENCHMARKS.md, "Host share").
# Usage: bash scripts/bench-browser-host.sh [log2 n, default 20] [curves, default bn254 bls12-377]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
log="${1:-20}"
shift || true
curves="${*:-bn254 bls12-377}"
prepare_www
serve_dir www
for curve in $curves; do
    for _ in 1 2 3; do
        node scripts/bench-browser-host.mjs "http://127.0.0.1:$port/host-share.html?curve=$curve&log=$log"
    done
done
