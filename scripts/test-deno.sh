#!/usr/bin/env bash
# Deno test: the npm package in Deno with its built-in WebGPU (wgpu; on a machine without a GPU
# it finds Mesa's lavapipe), running tests/js/checks.mjs on the curves given. Deno itself comes from
# npm (the `deno` package in tests/js, whose optional dependency @deno/linux-x64-glibc holds the
# binary; nothing else is downloaded). Arguments: curves (default: bn254 and bn254-g2, a G1 and a
# G2 point size through the JS API on Deno, and the curves whose JS checks no browser lane runs,
# Grumpkin, Pallas, Vesta and secp256k1: on lavapipe a few seconds each, where Chromium's
# SwiftShader takes a minute; the kernels are wgpu's on lavapipe, which the Rust tests run on
# every group: `bash scripts/test-deno.sh bls12-381-g2` runs another here).
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

bash scripts/setup-native.sh # lavapipe
. scripts/lib.sh
prepare_js_tests
arch=$(node -p process.arch)
deno=tests/js/node_modules/@deno/linux-$arch-glibc/deno
[ -x "$deno" ] || { echo "test-deno: no Deno binary at $deno" >&2; exit 1; }
# The package resolves from tests/js/node_modules (no npm registry, no deno.lock); reading
# files (the .wasm) is the only permission it needs.
[ $# -gt 0 ] || set -- bn254 bn254-g2 grumpkin pallas vesta secp256k1
"$deno" run --node-modules-dir=manual --no-lock --no-prompt --allow-read tests/js/deno-test.mjs "$@"
