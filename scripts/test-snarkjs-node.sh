#!/usr/bin/env bash
# snarkjs test in Node.js: Groth16, PLONK and fflonk proofs of small circom circuits (keys made by
# tests/snarkjs/setup.mjs, about 20 s the first time) with `webgpu-msm/snarkjs` routing snarkjs'
# MSMs to the GPU and checking each against snarkjs' CPU MSM (tests/snarkjs/checks.mjs).
# WebGPU: Dawn from the `webgpu` npm package on SwiftShader's Vulkan driver, as scripts/test-node.sh.
# Installs node, npm and chromium (apt) and tests/snarkjs's locked npm packages when missing, and
# builds the package (scripts/build-pkg.sh; or installs WEBGPU_MSM_TGZ). Without an adapter the
# test fails when CI=true. `--stand-in` checks the tests themselves against a CPU stand-in for
# the adapter, without building the package.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

icd=/usr/lib/chromium/vk_swiftshader_icd.json
need_file "$icd" chromium libvulkan1
if [ "${1:-}" = "--stand-in" ]; then
    install_snarkjs_deps
else
    prepare_snarkjs_tests
fi
VK_ICD_FILENAMES="$icd" node tests/snarkjs/node-test.mjs "$@"
