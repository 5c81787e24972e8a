#!/usr/bin/env bash
# Builds with one curve only (`--no-default-features --features CURVE`, default bn254): clippy on
# every native target, and on the wasm32 library as users build it (no demo exports, no test
# hooks). Every curve is a cargo feature (see src/curve/registry.rs); this checks that none
# depends on another being built. What runs is the same code as in the full build, whose tests
# run every curve (scripts/test.sh), so this build's tests are not run again. .ci/run runs it
# among the lints.
# Usage: bash scripts/test-single-curve.sh [curve feature...] (default bn254), one build each
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- bn254
rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
for curve in "$@"; do
    features=(--no-default-features --features "$curve")
    cargo clippy "${features[@]}" --all-targets -- -D warnings
    cargo clippy "${features[@]}" --target wasm32-unknown-unknown --lib -- -D warnings
done
