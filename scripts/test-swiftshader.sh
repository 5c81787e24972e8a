#!/usr/bin/env bash
# The native end-to-end GPU tests (tests/msm.rs) on a second software GPU: SwiftShader's Vulkan
# driver from Debian's chromium package, instead of lavapipe. Same answers on every adapter.
# Arguments go to the test binary as name filters; by default every test of every G1 curve (the
# filter bls12_377:: matches ed_on_bls12_377:: too), one G2 test (bn254-g2's edge cases in 13-bit
# limbs, the form SwiftShader runs: the other G2 forms compile for minutes there) and the
# adapter check (README, "Testing without a hardware GPU", has the time and peak memory).
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/lib.sh

icd=/usr/lib/chromium/vk_swiftshader_icd.json
need_file "$icd" chromium libvulkan1 # SwiftShader's Vulkan driver comes with Chromium
if [ $# -eq 0 ]; then
    set -- bls12_377:: bn254:: bls12_381:: bn254_g2::edge_cases_in_13_bit_limbs runs_on_the_expected_adapter
fi
# Only SwiftShader is visible, and the tests check the adapter's name.
VK_ICD_FILENAMES="$icd" WEBGPU_MSM_EXPECT_ADAPTER=SwiftShader CI="${CI:-true}" cargo test --test msm -- "$@"
# Several devices in one process: lavapipe and SwiftShader together (tests/multi_gpu.rs).
lavapipe=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
need_file "$lavapipe" mesa-vulkan-drivers
VK_ICD_FILENAMES="$lavapipe:$icd" WEBGPU_MSM_EXPECT_ADAPTERS=llvmpipe,SwiftShader CI="${CI:-true}" \
    cargo test --test multi_gpu -- --nocapture
