#!/usr/bin/env bash
# snarkjs test in headless Chromium (WebGPU on SwiftShader) through playwright-core: the snarkjs
# checks the Node lane runs (tests/snarkjs/checks.mjs, scripts/test-node.sh) in a page (tests/snarkjs/browser-test.html, snarkjs' browser
# bundle and the package as ES modules), then the demo page www/snarkjs.html, whose CPU and GPU
# proofs must all verify. Serves the repository root: the pages take snarkjs and the keys from
# tests/snarkjs/, the package from tests/snarkjs/node_modules (built and installed here).
# Usage: bash scripts/test-snarkjs-browser.sh [--stand-in] [curves, default bn128]
# --stand-in: the tests' CPU stand-in for the adapter, without building the package.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

stand_in=
if [ "${1:-}" = "--stand-in" ]; then
    stand_in=1
    shift
fi
# bn128 by default: bls12381's proofs run in the Node lane on the same Dawn and SwiftShader, and
# here would compile their kernels once more (a minute or two).
curves="${1:-bn128}"
need_chromium
if [ -n "$stand_in" ]; then
    install_snarkjs_deps
else
    prepare_snarkjs_tests
fi
node tests/snarkjs/setup.mjs

serve_dir . tests/snarkjs/browser-test.html
base="http://127.0.0.1:$port"
# G1 only: BN254's G2 runs in the Node lane on the same Dawn and SwiftShader (scripts/test-node.sh).
checks="$base/tests/snarkjs/browser-test.html?curves=$curves&g2=0"
# The demo page: two PLONK proofs of 2^8 on each path (BN254 G1 only: no other kernels to
# compile), every MSM on the GPU (the measured default keeps them on the CPU on SwiftShader).
demo="$base/www/snarkjs.html?protocol=plonk&circuit=chain_8&runs=2&check=1&minPoints=0&autorun=1&pkg=../tests/snarkjs/node_modules/webgpu-msm/"
if [ -n "$stand_in" ]; then
    checks+="&standin=1"
    demo+="&accelerator=../tests/snarkjs/cpu-stand-in.mjs"
fi
node tests/snarkjs/chromium.mjs "$checks" "$demo"
