#!/usr/bin/env bash
# Node.js test: the npm package in Node, with WebGPU from the `webgpu` npm package (Dawn's
# dawn.node), running tests/js/checks.mjs (known answers, arkworks, bad inputs) on the curves given,
# then on the same context tests/snarkjs/checks.mjs: Groth16, PLONK and fflonk proofs by snarkjs
# with webgpu-msm/snarkjs (keys made by tests/snarkjs/setup.mjs the first time). `--no-snarkjs`
# leaves those out.
# Dawn refuses lavapipe ("Vulkan shaderUniform*ArrayDynamicIndexing required"), so the GPU is
# SwiftShader's Vulkan driver from Debian's chromium package. Installs node, npm and chromium
# (apt) and tests/js's locked npm packages when missing. Arguments: curves (default below; the
# BLS12 G2 groups compile for minutes on SwiftShader).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

icd=/usr/lib/chromium/vk_swiftshader_icd.json
need_file "$icd" chromium libvulkan1
prepare_js_tests
snarkjs=--snarkjs
if [ "${1:-}" = "--no-snarkjs" ]; then
    snarkjs=
    shift
else
    install_snarkjs_deps
fi
# Default curve: bn254. The snarkjs checks then run MSMs on bn254, bn254-g2 and bls12-381, each
# compared with snarkjs' CPU result. The other curves run these checks in Deno (every curve but
# the BLS12 G2 groups) and the Web Worker, and tests/web.rs in Chromium on the same Dawn and
# SwiftShader: here they would compile their kernels once more, minutes each.
[ $# -gt 0 ] || set -- bn254
VK_ICD_FILENAMES="$icd" node tests/js/node-test.mjs $snarkjs "$@"
