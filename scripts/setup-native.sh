#!/usr/bin/env bash
# Installs what native runs and tests need on a fresh Debian machine: the Rust toolchain pinned in
# rust-toolchain.toml, Mesa's lavapipe Vulkan driver (a software GPU) and Khronos' spirv-val
# (spirv-tools: the tests validate the SPIR-V of every kernel), when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/lib.sh

if ! ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || ! ldconfig -p | grep -q libvulkan.so.1; then
    apt_install mesa-vulkan-drivers libvulkan1
fi
if ! command -v spirv-val >/dev/null; then
    apt_install spirv-tools
fi
# rustup installs the pinned toolchain, components and wasm target on first use.
rustup show active-toolchain >/dev/null
