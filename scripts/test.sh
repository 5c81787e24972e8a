#!/usr/bin/env bash
# Every test: native (lavapipe), browser (wasm-bindgen-test in headless Chromium on SwiftShader)
# and the demo page. Each step installs what it needs on a fresh Debian machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

bash scripts/setup-native.sh
cargo test
bash scripts/test-web.sh
bash scripts/test-page.sh
