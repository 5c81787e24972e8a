#!/usr/bin/env bash
# A build with one curve only (`--no-default-features --features CURVE`, default bn254): lints and
# tests natively on the default adapter, and a wasm32 build of the library. Every curve is a cargo
# feature (see src/curve/registry.rs); this checks that none depends on another being built.
# Clippy checks every target in this build; the library's tests, the MSMs (tests/msm.rs) and the
# bytes API (tests/bytes.rs) run, where the curve registry and its dispatch are exercised (the
# other test files run the same code for this curve in the full build).
# Usage: bash scripts/test-single-curve.sh [curve feature, default bn254]
set -euo pipefail
cd "$(dirname "$0")/.."
curve="${1:-bn254}"
features=(--no-default-features --features "$curve")

cargo clippy "${features[@]}" --all-targets -- -D warnings
rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
cargo clippy "${features[@]}" --target wasm32-unknown-unknown --lib -- -D warnings
cargo clippy --no-default-features --features "$curve demo" --target wasm32-unknown-unknown --lib --test web -- -D warnings
# The curve's G2 group compiles above (clippy --all-targets); its tests ran in the full build's
# own process (scripts/test.sh) and add about five minutes here, so they are skipped.
WEBGPU_MSM_EXPECT_ADAPTER="${WEBGPU_MSM_EXPECT_ADAPTER-llvmpipe}" cargo test "${features[@]}" --lib --test msm --test bytes -- --skip _g2::
