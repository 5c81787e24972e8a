#!/usr/bin/env bash
# BN254 G1 MSM against a WebGPU peer, side by side, with arkworks as the common reference
# (BENCHMARKS.md, "BN254 against a WebGPU peer"). Not run by CI.
#
# Usage: scripts/bench-peer.sh PEER_DIR [LOG_SIZE] [PEER_CALLS]
#   PEER_DIR    a checkout of the peer, ICME-Lab/msm-webgpu, outside this repository. The run in
#               BENCHMARKS.md used commit 6a23289697fe7e249b16e609042f68a203547063 (2025-10-28,
#               v0.2.0), the newest at the time:
#                 git clone https://github.com/ICME-Lab/msm-webgpu /tmp/msm-webgpu
#                 git -C /tmp/msm-webgpu checkout 6a23289697fe7e249b16e609042f68a203547063
#   LOG_SIZE    n = 2^LOG_SIZE points (default 16)
#   PEER_CALLS  calls of the peer in one page (default 3): the first is cold, the rest warm
#
# It builds and runs, printing one line per measurement:
#   1. arkworks 0.6 BN254 `VariableBaseMSM::msm`, one thread, native release (scripts/peer/ark-native)
#   2. in one headless Chromium page on SwiftShader WebGPU (scripts/peer/icme-harness, a
#      wasm-bindgen test): the adapter's info; arkworks BN254 compiled to WASM (one thread) on
#      the same inputs; then the peer's `compute_msm` PEER_CALLS times, each result checked
#      against arkworks. A JavaScript shim lowers the device limits the peer requests to the
#      adapter's (it asks for 1024 invocations per workgroup, SwiftShader has 256; its kernels
#      use at most 256) and reports the device's errors and loss.
#   3. with PEER_NATIVE_ICD=<Vulkan ICD json>: the peer natively (wgpu 24, same inputs)
#   4. the native arkworks run again (machine load varies; compare ratios within one run)
# When the peer fails, a diagnostic compiles its shaders one at a time and names the one that
# crashes the driver (browser: `-- peer_shaders_compile`; native: the `shaders` binary).
# The peer is used unmodified as a Cargo path dependency; its Cargo.lock seeds the harness's,
# so it builds with the wgpu (24.0.5) and halo2curves it pins. Only wasm-bindgen is moved to the
# version of the installed wasm-bindgen-test-runner. Nothing of the peer enters this repository.
#
# Needs: Rust with the wasm32-unknown-unknown target, wasm-bindgen-test-runner (`cargo install
# wasm-bindgen-cli --version <X>`), chromium + chromium-driver (Debian packages; nothing is
# downloaded), crates.io for the harness's dependencies. Builds go to $PEER_BUILD_DIR (default
# /tmp/webgpu-msm-peer-build). Exit status 1 when the peer ran nowhere (diagnostics printed).
#
# Our own BN254 row: `cargo run --release --example msm -- --curve bn254 --log-size 16` (native)
# and the www/ page or `scripts/test-page.sh` (browser) give it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

if [ $# -lt 1 ] || [ ! -f "$1/Cargo.toml" ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 2
fi
peer="$(cd "$1" && pwd)"
log_size="${2:-16}"
calls="${3:-3}"
build="${PEER_BUILD_DIR:-/tmp/webgpu-msm-peer-build}"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
jobs="${CARGO_BUILD_JOBS:-2}"

case "$peer" in "$repo"/*) echo "the peer must live outside this repository" >&2; exit 2 ;; esac
grep -q '^name = "msm-webgpu"' "$peer/Cargo.toml" || {
    echo "$peer is not ICME-Lab/msm-webgpu (package msm-webgpu)" >&2; exit 2; }
echo "peer: $peer ($(git -C "$peer" rev-parse HEAD 2>/dev/null || echo 'no git: see the commit above'))"

mkdir -p "$build"

# 1. arkworks, native, one thread.
mkdir -p "$build/ark-native"
cp -r "$repo/scripts/peer/ark-native/." "$build/ark-native/"
(cd "$build/ark-native" && cargo build --release -q -j "$jobs")
ark_native() { "$build/ark-native/target/release/ark-bn254-ref" "$log_size" 5; }
ark_native

# 2. the browser page: arkworks in WASM, then the peer.
h="$build/icme-harness"
mkdir -p "$h"
cp -r "$repo/scripts/peer/icme-harness/." "$h/"
sed "s#@PEER_DIR@#$peer#" "$h/Cargo.toml.in" > "$h/Cargo.toml.new"
if ! cmp -s "$h/Cargo.toml.new" "$h/Cargo.toml" 2>/dev/null; then
    mv "$h/Cargo.toml.new" "$h/Cargo.toml"
    cp "$peer/Cargo.lock" "$h/Cargo.lock"
    wbg="$(wasm-bindgen-test-runner --version | awk '{print $2}')"
    (cd "$h" && cargo update -q -p wasm-bindgen --precise "$wbg")
else
    rm "$h/Cargo.toml.new"
fi
# --disable-gpu-watchdog: the peer submits its whole MSM as one command buffer, minutes of
# SwiftShader work. Chromium's own log goes to $build/chrome.log (GPU process crashes show there).
node "$repo/scripts/chromium-options.mjs" webdriver --disable-gpu-watchdog --enable-logging \
    "--log-file=$build/chrome.log" --v=0 >"$h/webdriver.json"
browser_test() { # test name, log file
    (
        cd "$h"
        export PEER_LOG_SIZE="$log_size" PEER_CALLS="$calls"
        export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
        export CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=3600
        cargo test --release -j "$jobs" --target wasm32-unknown-unknown --test peer -- "$1" \
            --nocapture > "$2" 2>&1 || true
    )
    grep -E '^PEER_(BENCH|DIAG)|^ *panicked|test result' "$2" | cut -c1-400 || true
    grep -E 'GPU process exited|has crashed' "$build/chrome.log" 2>/dev/null | cut -c1-200 || true
}
rm -f "$build/chrome.log"
browser_test peer_bn254_msm "$build/browser.log"
peer_ran=0
if grep -q 'test result: ok' "$build/browser.log"; then
    peer_ran=1
else
    echo "browser run failed ($build/browser.log); compiling the peer's shaders one at a time:"
    rm -f "$build/chrome.log"
    browser_test peer_shaders_compile "$build/browser-shaders.log"
fi

# 2b. The peer natively (wgpu 24 on Vulkan), when PEER_NATIVE_ICD names a Vulkan ICD json
# (lavapipe: /usr/share/vulkan/icd.d/lvp_icd.x86_64.json; SwiftShader:
# /usr/lib/chromium/vk_swiftshader_icd.json).
if [ -n "${PEER_NATIVE_ICD:-}" ]; then
    (cd "$h" && cargo build --release -q -j "$jobs" --bin native --bin shaders)
    if ! VK_ICD_FILENAMES="$PEER_NATIVE_ICD" timeout "${PEER_NATIVE_TIMEOUT:-1800}" \
        "$h/target/release/native" "$log_size" "$calls" > "$build/native.log" 2>&1; then
        grep -E '^PEER_|panicked|Unexpected Vulkan|^  In |^    [A-Z]' "$build/native.log" | cut -c1-300 || true
        echo "native peer run failed ($build/native.log); compiling the peer's shaders one at a time:"
        VK_ICD_FILENAMES="$PEER_NATIVE_ICD" "$h/target/release/shaders" "$log_size" 2>&1 \
            | grep -E '^PEER_|Unexpected Vulkan|^  In |^    [A-Z]' || echo "shader compile diagnostic: exit ${PIPESTATUS[0]}"
    else
        grep -E '^PEER_' "$build/native.log"
        peer_ran=1
    fi
fi

# 4. arkworks native again, to bracket the load during the browser run.
ark_native
[ "$peer_ran" = 1 ] || { echo "the peer did not run (see the diagnostics above)" >&2; exit 1; }
