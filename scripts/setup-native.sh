#!/usr/bin/env bash
# Installs what native runs and tests need on a fresh Debian machine: the Rust toolchain pinned in
# rust-toolchain.toml and Mesa's lavapipe Vulkan driver (a software GPU), when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || ! ldconfig -p | grep -q libvulkan.so.1; then
    echo "setup: installing mesa-vulkan-drivers (lavapipe) and libvulkan1"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null
fi
# rustup installs the pinned toolchain, components and wasm target on first use.
rustup show active-toolchain >/dev/null
