#!/usr/bin/env bash
# Browser tests: installs Chromium + ChromeDriver (Debian) and wasm-bindgen-cli pinned to the
# wasm-bindgen version in Cargo.lock when missing, then runs tests/web.rs in headless Chromium
# with WebGPU on SwiftShader (webdriver.json, written here from scripts/chromium-options.mjs, the
# launch every Chromium test shares).
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/lib.sh

need_chromium
need_wasm_bindgen_cli

need_node
node scripts/chromium-options.mjs webdriver >webdriver.json
export CHROMEDRIVER=/usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-1800}"
cargo test --target wasm32-unknown-unknown --features demo --test web "$@"
