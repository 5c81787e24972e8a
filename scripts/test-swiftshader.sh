#!/usr/bin/env bash
# The native end-to-end GPU tests (tests/msm.rs: the module `msm` of the binary
# tests/integration.rs) on a second software GPU: SwiftShader's Vulkan driver from Debian's
# chromium package, instead of lavapipe. Same answers on every adapter.
# Arguments go to the test binary as name filters (`msm::bn254::`). By default, on every G1 group of the
# `every_plan` test tier (src/curve/registry.rs), the tests on the kernels the adapter chooses
# itself (each such group's `adapter_default` module: sizes, edge cases, skew, a 70,000-point
# bucket, prepared bases, bad inputs); the shared context checks that it is SwiftShader's.
# `kernels_only` curves have no such module: their kernels are a representative's with other
# constants, tested on lavapipe. Other forms and profiles and the host's plans (passes, batches, precomputed
# bases) run on lavapipe (scripts/test.sh), the G2 groups' 13-bit pipelines on SwiftShader in the
# Node lane (Dawn): here each would compile its own kernels for minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/lib.sh

icd=/usr/lib/chromium/vk_swiftshader_icd.json
need_file "$icd" chromium libvulkan1 # SwiftShader's Vulkan driver comes with Chromium
if [ $# -eq 0 ]; then
    # libtest's filters match any one of them, so "in msm and in adapter_default" is a selection
    # from the binary's own list, by module.
    mapfile -t tests < <(cargo test -q --test integration -- --list --format terse | sed -n 's/: test$//p' |
        grep -E '^msm::[a-z0-9_]+::adapter_default::' | grep -v '_g2::')
    [ ${#tests[@]} -gt 0 ] || { echo "test-swiftshader: no msm::*::adapter_default:: tests listed" >&2; exit 1; }
    set -- --exact "${tests[@]}"
fi
# Only SwiftShader is visible, and the tests check the adapter's name.
VK_ICD_FILENAMES="$icd" WEBGPU_MSM_EXPECT_ADAPTER=SwiftShader CI="${CI:-true}" cargo test --test integration -- "$@"
# Several devices in one process: lavapipe and SwiftShader together (tests/multi_gpu.rs).
lavapipe=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
need_file "$lavapipe" mesa-vulkan-drivers
VK_ICD_FILENAMES="$lavapipe:$icd" WEBGPU_MSM_EXPECT_ADAPTERS=llvmpipe,SwiftShader CI="${CI:-true}" \
    cargo test --test integration -- multi_gpu:: --nocapture
