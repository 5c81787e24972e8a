#!/usr/bin/env bash
# Fuzzes the bytes API (fuzz/fuzz_targets/decode_inputs.rs: msm_bytes on the default adapter) for a
# bounded time.
#
#   bash scripts/fuzz.sh                  # 60 s
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh # longer; extra arguments go to libFuzzer
#
# Installs cargo-fuzz if missing. cargo-fuzz needs a nightly rustc (-Zsanitizer=address): it uses
# the installed `nightly` toolchain, tries `rustup toolchain install nightly` otherwise, and as a
# last resort runs the pinned toolchain with RUSTC_BOOTSTRAP=1 (its rust-std ships the ASan
# runtime). New corpus entries go to fuzz/corpus/decode_inputs (ignored by git), seeded from the
# valid inputs in fuzz/seeds/decode_inputs; a crash or a leak is saved under
# fuzz/artifacts/decode_inputs and the script exits non-zero. The Vulkan driver's own leaks are
# suppressed (fuzz/lsan-suppressions.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-60}"
target=decode_inputs

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz"
    cargo install cargo-fuzz --locked || cargo install cargo-fuzz
fi

if rustup run nightly rustc --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal; then
    fuzz() { cargo +nightly fuzz "$@"; }
else
    echo "fuzz: no nightly toolchain; using the pinned one with RUSTC_BOOTSTRAP=1"
    fuzz() { RUSTC_BOOTSTRAP=1 cargo fuzz "$@"; }
fi

mkdir -p "fuzz/corpus/$target"
# Leaks are reported, except the Vulkan driver's own (fuzz/lsan-suppressions.txt).
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
echo "fuzz: $target for ${seconds} s"
fuzz run "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
    -max_total_time="$seconds" -timeout=10 -print_final_stats=1 "$@"
