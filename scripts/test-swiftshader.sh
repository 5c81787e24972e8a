#!/usr/bin/env bash
# The native end-to-end GPU tests (tests/msm.rs) on a second software GPU: SwiftShader's Vulkan
# driver from Debian's chromium package, instead of lavapipe. Same answers on every adapter.
# Arguments go to the test binary as name filters. By default, on every G1 curve, the tests whose
# kernels SwiftShader runs by default (its 13-bit form, the accumulation its calibration picks):
# sizes, edge cases, skew, a 70,000-point bucket, prepared bases, the default context and bad
# inputs; bn254-g2's edge cases in 13-bit limbs; the adapter check. The other forms (hardware
# GPUs') and the host's plans (passes, batches, precomputed bases) run on lavapipe
# (scripts/test.sh): here they compiled their own kernels for about six of CI's minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/lib.sh

icd=/usr/lib/chromium/vk_swiftshader_icd.json
need_file "$icd" chromium libvulkan1 # SwiftShader's Vulkan driver comes with Chromium
if [ $# -eq 0 ]; then
    for curve in ed_on_bls12_377 bls12_377 bn254 bls12_381; do
        for test in sizes_from_0_to_4096 edge_cases skewed_scalars bucket_larger_than_a_thread_can_sum \
            prepared_bases_match_arkworks default_context_computes_the_same_result bad_inputs_get_typed_errors; do
            set -- "$@" "$curve::$test"
        done
    done
    set -- --exact "$@" bn254_g2::edge_cases_in_13_bit_limbs runs_on_the_expected_adapter
fi
# Only SwiftShader is visible, and the tests check the adapter's name.
VK_ICD_FILENAMES="$icd" WEBGPU_MSM_EXPECT_ADAPTER=SwiftShader CI="${CI:-true}" cargo test --test msm -- "$@"
# Several devices in one process: lavapipe and SwiftShader together (tests/multi_gpu.rs).
lavapipe=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
need_file "$lavapipe" mesa-vulkan-drivers
VK_ICD_FILENAMES="$lavapipe:$icd" WEBGPU_MSM_EXPECT_ADAPTERS=llvmpipe,SwiftShader CI="${CI:-true}" \
    cargo test --test multi_gpu -- --nocapture
