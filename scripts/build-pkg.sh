#!/usr/bin/env bash
# Builds the npm package (ES module for browsers) into pkg/ and installs its tarball into www/
# (www/node_modules/webgpu-msm), as a user's project would.
# `--demo` builds it with the cargo feature `demo` (the `randomInputs` and `arkworksMsm` exports
# the demo page and its test use); without it, the package users get.
# Never downloads tools: `--mode no-install` makes wasm-pack use the wasm-bindgen on PATH (it must
# match the wasm-bindgen version in Cargo.lock) and `--no-opt` skips wasm-opt (binaryen).
set -euo pipefail
cd "$(dirname "$0")/.."

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
export PATH="$HOME/.cargo/bin:$PATH"
if [ "$(wasm-pack --version 2>/dev/null)" != "wasm-pack 0.15.1" ]; then
    echo "setup: installing wasm-pack 0.15.1"
    cargo install wasm-pack --version 0.15.1 --locked
fi

features=()
if [ "${1:-}" = "--demo" ]; then
    features=(--features demo)
fi
wasm-pack build --target web --release --mode no-install --no-opt \
    --out-dir pkg --out-name webgpu_msm -- "${features[@]}"

name=$(node -p 'require("./pkg/package.json").name')
if [ "$name" != "webgpu-msm" ]; then
    echo "build-pkg: pkg/package.json has name '$name', expected 'webgpu-msm'" >&2
    exit 1
fi

# Install it into the demo the way a user's project would: from the packed tarball.
packed=$(mktemp -d)
(cd pkg && npm pack --silent --pack-destination "$packed" >/dev/null)
npm install --prefix www --no-save --no-audit --no-fund "$packed"/webgpu-msm-*.tgz >/dev/null
echo "build-pkg: pkg/ ($(du -h pkg/webgpu_msm_bg.wasm | cut -f1) wasm), installed into www/node_modules/webgpu-msm"
