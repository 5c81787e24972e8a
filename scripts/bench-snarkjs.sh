#!/usr/bin/env bash
# snarkjs prove time with and without webgpu-msm/snarkjs (tests/snarkjs/bench.mjs): BN254 Groth16
# and PLONK of a chain circuit filling 2^14 and 2^16 domains, 1 cold + 3 warm proofs on each
# path, in Node (Dawn) and in headless Chromium (www/snarkjs.html), with a table of times and
# CPU ÷ GPU ratios. The keys come from tests/snarkjs/setup.mjs --bench, made here when missing:
# slow on a small machine (the powers of tau's preparePhase2 is most of it, see the report in
# tests/snarkjs/README.md), so make them once with --setup-only.
# Usage: bash scripts/bench-snarkjs.sh [--setup-only] [--node-only] [--system-gpu]
#          [--sizes 14,16] [--protocols groth16,plonk] [--warm 3] [--min-points N] [--wait-ready]
#   --setup-only  make the keys and stop (needs only Node: no package, no GPU)
#   --node-only   no Chromium (e.g. a machine with a real GPU and only Node)
#   --system-gpu  Dawn on the machine's own driver, not SwiftShader (a real GPU); Chromium, when
#                 run, stays on SwiftShader
#   --wait-ready  the GPU proofs begin once every kernel is compiled (accelerator.ready()), to
#                 compare with the default, where the first proof overlaps the compilation
# The package is built (scripts/build-pkg.sh) unless WEBGPU_MSM_TGZ names a packed tarball.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

setup_only= node_only= system_gpu= sizes=14,16 bench_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --setup-only) setup_only=1 ;;
        --node-only) node_only=1 ;;
        --system-gpu) system_gpu=1 ;;
        --sizes) sizes="$2"; bench_args+=("$1" "$2"); shift ;;
        --protocols|--warm|--min-points) bench_args+=("$1" "$2"); shift ;;
        --wait-ready) bench_args+=("$1") ;;
        *) echo "bench-snarkjs: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

install_snarkjs_deps
# shellcheck disable=SC2046 # one argument per size
node tests/snarkjs/setup.mjs --bench $(tr , ' ' <<<"$sizes")
[ -z "$setup_only" ] || exit 0
prepare_snarkjs_tests

if [ -z "$system_gpu" ]; then
    icd=/usr/lib/chromium/vk_swiftshader_icd.json
    need_file "$icd" chromium libvulkan1
    export VK_ICD_FILENAMES="$icd"
fi
if [ -z "$node_only" ]; then
    need_chromium
    serve_dir . www/snarkjs.html
    bench_args+=(--base "http://127.0.0.1:$port")
fi
node tests/snarkjs/bench.mjs "${bench_args[@]}"
