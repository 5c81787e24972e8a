#!/usr/bin/env bash
# Prepares, on this machine, what a lent machine with a hardware GPU (the device tool) needs to
# run snarkjs with webgpu-msm/snarkjs in Node.js, with Dawn on its Vulkan driver:
#   .snk/node.xz    this machine's Node.js binary, stripped (the device machine has none);
#   .snk/snk.tar.xz  `bench` (default): the npm packages tests/snarkjs/bench.mjs loads (snarkjs
#                   and its dependencies, webgpu's linux-x64 dawn.node, the webgpu-msm package
#                   installed there) and the benchmark keys of KEYS (default "14:groth16,plonk
#                   16:groth16", power:protocols), made first with tests/snarkjs/setup.mjs --bench;
#                   `tests`: what the Node lane (tests/js/node-test.mjs --snarkjs) loads, the
#                   packages of tests/js and tests/snarkjs and the tests' keys.
# Paths in the archive are the repository's. The device tool carries 64 MiB in all; with .gl
# (the Vulkan loader, scripts/device-bundle.sh) `bench` takes about 63 MiB, `tests` less.
#
#   bash scripts/device-snarkjs.sh [bench|tests]
#
# Then one device call (carry [".gl", ".snk"]):
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export VK_ICD_FILENAMES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp
#   mkdir -p /tmp/n && xz -dc .snk/node.xz >/tmp/n/node && chmod +x /tmp/n/node && export PATH=/tmp/n:$PATH
#   tar xJf .snk/snk.tar.xz
#   node tests/snarkjs/bench.mjs --sizes 14 --protocols groth16,plonk --warm 3 | tee $OUT/log
#   (then the same with --wait-ready: the first proof after every kernel, the previous order)
#   CI=true node tests/js/node-test.mjs --snarkjs bn254 bls12-381 bn254-g2 | tee $OUT/log  # tests
set -euo pipefail
cd "$(dirname "$0")/.."
keys=${KEYS:-"14:groth16,plonk 16:groth16"}
exclude="$(git rev-parse --git-common-dir)/info/exclude"
grep -qxF /.snk/ "$exclude" 2>/dev/null || echo /.snk/ >>"$exclude"
mkdir -p .snk
if [ ! -f .snk/node.xz ]; then
    cp "$(command -v node)" .snk/node && strip --strip-all .snk/node && xz -T0 -9e .snk/node
fi
mode=${1:-bench}
# A package folder's npm packages but those the device needs not: circom2 (keys are made here),
# playwright-core (no browser there), webgpu (only its loader and linux-x64 dawn.node).
modules() {
    local dir=$1
    (cd "$dir" && ls -d node_modules/* node_modules/@*/* 2>/dev/null) |
        grep -vE '^node_modules/(@[^/]+|circom2|playwright-core|webgpu)$' | sed "s|^|$dir/|"
    echo "$dir/node_modules/webgpu/package.json $dir/node_modules/webgpu/index.js $dir/node_modules/webgpu/dist/linux-x64"
}
case $mode in
bench)
    paths=()
    for entry in $keys; do
        power=${entry%%:*}
        for protocol in $(echo "${entry#*:}" | tr , ' '); do
            paths+=("tests/snarkjs/build/bn128/chain_$power/$protocol.zkey" "tests/snarkjs/build/bn128/chain_$power/$protocol.vkey.json")
        done
        paths+=("tests/snarkjs/build/bn128/chain_$power/input.json" "tests/snarkjs/build/bn128/chain_$power/main_js")
    done
    paths+=($(modules tests/snarkjs))
    ;;
tests)
    # The tests' keys with the circuits they were made from (setup.mjs keeps what is fresh).
    paths=($(cd tests/snarkjs && ls -d build/*/* | grep -vE 'chain_1[0-9]|ptau' | sed 's|^|tests/snarkjs/|')
        tests/snarkjs/build/ptau $(modules tests/snarkjs) $(modules tests/js))
    ;;
*)
    echo "device-snarkjs: bench or tests, not $mode" >&2
    exit 2
    ;;
esac
# snarkjs: its Node entry (main.js, src/), not its browser bundles; wasmcurves: not its tests.
XZ_OPT=-9 tar cJf .snk/snk.tar.xz --exclude='node_modules/wasmcurves/test' --exclude='*.ptau.tmp*' \
    --exclude='node_modules/snarkjs/build/snarkjs*.js' --exclude='node_modules/snarkjs/build/browser*' \
    --exclude='node_modules/snarkjs/test' --exclude='*/build/ptau/bn128_1[0-9].ptau' "${paths[@]}"
du -h .snk/*
