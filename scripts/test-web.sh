#!/usr/bin/env bash
# Browser tests: installs Chromium + ChromeDriver (Debian) and wasm-bindgen-cli pinned to the
# wasm-bindgen version in Cargo.lock when missing, then runs tests/web.rs in headless Chromium
# with WebGPU on SwiftShader (flags in webdriver.json).
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/lib.sh

need_chromium
rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
version=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/[^0-9.]/, ""); print; exit}' Cargo.lock)
export PATH="$HOME/.cargo/bin:$PATH"
if [ "$(wasm-bindgen-test-runner --version 2>/dev/null | awk '{print $2}')" != "$version" ]; then
    echo "setup: installing wasm-bindgen-cli $version"
    cargo install wasm-bindgen-cli --version "$version"
fi

export CHROMEDRIVER=/usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-1800}"
cargo test --target wasm32-unknown-unknown --features demo --test web "$@"
