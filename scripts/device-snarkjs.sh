#!/usr/bin/env bash
# Prepares, on this machine, what a lent machine with a hardware GPU (the device tool) needs to
# run the snarkjs benchmark in Node.js with Dawn on its Vulkan driver (tests/snarkjs/bench.mjs):
#   .snk/node.xz    this machine's Node.js binary, stripped (the device machine has none);
#   .snk/snk.tar.xz tests/snarkjs's scripts, the npm packages the benchmark loads (snarkjs and
#                   its dependencies, webgpu's linux-x64 dawn.node, the webgpu-msm package
#                   installed there) and the benchmark keys of KEYS (default "14:groth16,plonk
#                   16:groth16", power:protocols), made first with tests/snarkjs/setup.mjs --bench.
# The device tool carries 64 MiB in all; with .gl (the Vulkan loader, scripts/device-bundle.sh)
# these take about 60 MiB.
#
#   bash scripts/device-snarkjs.sh
#
# Then one device call (carry [".gl", ".snk"]):
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   V=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; [ -f $V ] && export VK_ICD_FILENAMES=$V
#   mkdir -p /tmp/n && xz -dc .snk/node.xz >/tmp/n/node && chmod +x /tmp/n/node && export PATH=/tmp/n:$PATH
#   tar xJf .snk/snk.tar.xz -C tests/snarkjs
#   node tests/snarkjs/bench.mjs --sizes 14 --protocols groth16,plonk --warm 3 | tee $OUT/log
set -euo pipefail
cd "$(dirname "$0")/.."
keys=${KEYS:-"14:groth16,plonk 16:groth16"}
exclude="$(git rev-parse --git-common-dir)/info/exclude"
grep -qxF /.snk/ "$exclude" 2>/dev/null || echo /.snk/ >>"$exclude"
mkdir -p .snk
if [ ! -f .snk/node.xz ]; then
    cp "$(command -v node)" .snk/node && strip --strip-all .snk/node && xz -T0 -9e .snk/node
fi
files=(bench.mjs setup.mjs keys.mjs node-webgpu.mjs package.json)
modules=$(cd tests/snarkjs && ls -d node_modules/* node_modules/@*/* | grep -vE '^node_modules/(@[^/]+|circom2|playwright-core|webgpu)$')
for entry in $keys; do
    power=${entry%%:*}
    for protocol in $(echo "${entry#*:}" | tr , ' '); do
        files+=("build/bn128/chain_$power/$protocol.zkey" "build/bn128/chain_$power/$protocol.vkey.json")
    done
    files+=("build/bn128/chain_$power/input.json" "build/bn128/chain_$power/main_js")
done
# webgpu: its loader and the linux-x64 dawn.node only; snarkjs: its Node entry (main.js, src/),
# not its browser bundles; wasmcurves: not its tests.
(cd tests/snarkjs && XZ_OPT=-9 tar cJf ../../.snk/snk.tar.xz --exclude='node_modules/wasmcurves/test' \
    --exclude='node_modules/snarkjs/build/snarkjs*.js' --exclude='node_modules/snarkjs/build/browser*' \
    --exclude='node_modules/snarkjs/test' "${files[@]}" $modules node_modules/webgpu/package.json \
    node_modules/webgpu/index.js node_modules/webgpu/dist/linux-x64)
du -h .snk/*
