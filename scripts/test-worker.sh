#!/usr/bin/env bash
# Web Worker test: the npm package inside a module Worker in headless Chromium (WebGPU on
# SwiftShader), running tests/js/checks.mjs there (known answers, arkworks, bad inputs rejecting
# with named errors). Serves tests/js/ on a free local port; installs node, npm, chromium (apt)
# and tests/js's locked npm packages when missing.
# Usage: bash scripts/test-worker.sh [CURVE,CURVE,...] (default: both BLS12-377 curves and bn254)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
curves="${1:-bls12-377,ed-on-bls12-377,bn254}"
need_chromium
prepare_js_tests

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 "$port" --directory tests/js >/tmp/worker-test-server.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/worker-test.html')" 2>/dev/null && break
    sleep 0.1
done
node tests/js/worker-test.mjs "http://127.0.0.1:$port/worker-test.html?curves=$curves"
