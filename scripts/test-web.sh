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
# In the release profile, as the npm package is built (scripts/build-pkg.sh, the same features):
# the two builds share most of their dependencies, where the test profile would compile every
# one of them a second time for wasm32. So no debug assertions here; the native tests keep them.
cargo test --release --target wasm32-unknown-unknown --features demo --test web "$@"
