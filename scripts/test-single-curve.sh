#!/usr/bin/env bash
# A build with one curve only (`--no-default-features --features CURVE`, default bn254): clippy on
# every target natively and on the wasm32 library. Every curve is a cargo feature (see
# src/curve/registry.rs); this checks that none depends on another being built. What runs is the
# same code as in the full build, whose tests run every curve (scripts/test.sh), so this build's
# tests are not run again.
# Usage: bash scripts/test-single-curve.sh [curve feature, default bn254]
set -euo pipefail
cd "$(dirname "$0")/.."
curve="${1:-bn254}"
features=(--no-default-features --features "$curve")

cargo clippy "${features[@]}" --all-targets -- -D warnings
rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
cargo clippy --no-default-features --features "$curve demo" --target wasm32-unknown-unknown --lib --test web -- -D warnings
