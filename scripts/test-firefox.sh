#!/usr/bin/env bash
# Firefox test: the npm package in headless Firefox (Debian's firefox-esr, 153 ESR on bookworm),
# WebGPU on Mesa's lavapipe, running tests/js/checks.mjs on the page's own thread, then inside a
# module Worker. Firefox ESR ships WebGPU off on Linux and its blocklist refuses a software
# adapter: the test's fresh profile sets dom.webgpu.enabled and gfx.webgpu.ignore-blocklist.
# Firefox's GPUAdapterInfo is always blank, so the package's adapterInfo is too (the checks admit
# that here). No WebDriver (Playwright's Firefox is a patched build): tests/js/firefox-test.mjs
# serves tests/js/ on a free local port, takes the page's lines and tally as POSTs and ends
# Firefox. Installs firefox-esr, lavapipe, node and npm (apt) and tests/js's locked npm packages
# when missing.
# Usage: bash scripts/test-firefox.sh [CURVES [WORKER_CURVES]] (defaults: bls12-377, bn254 and
# bn254-g2 on the page, a curve of each accumulation and a G2 point size: 70 s on a 2-core machine
# with a cold Mesa cache; bn254 in the Worker, 12 s; every curve on the page takes 256 s)
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

bash scripts/setup-native.sh # lavapipe
. scripts/lib.sh
need_firefox
prepare_js_tests
# lavapipe alone: Firefox runs WebGPU in its parent process, which would take a hardware GPU
# where there is one, and the checks expect a software GPU's kernels.
lavapipe=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json | head -n 1)
export VK_ICD_FILENAMES="${VK_ICD_FILENAMES:-$lavapipe}"

status=0
node tests/js/firefox-test.mjs "${1:-bls12-377,bn254,bn254-g2}" || status=1
node tests/js/firefox-test.mjs --worker "${2:-bn254}" || status=1
exit "$status"
