#!/usr/bin/env bash
# Prepares, on this machine, everything a lent machine with a hardware GPU (the device tool)
# needs to run scripts/real-gpu.sh, so that a session's few minutes of device time go to
# measuring:
#   bin-rg/b.tar.xz  release builds with `--features arkworks-parallel` (arkworks' reference MSM
#                    on every core) of the examples msm, host_share and groth16, the release test
#                    binaries integration-tests, lib-tests and reliability-tests, and, where
#                    BASE is given, msm-base: the msm example of commit BASE, built in a worktree,
#                    for before/after runs in one call;
#   .gl/             the Debian packages of the Vulkan and EGL loaders, which the device machine
#                    lacks (the device tool's README).
# Both are ignored by git (.git/info/exclude) and travel with the device tool's `carry`.
#
#   bash scripts/device-bundle.sh [BASE]
#
# Then one device call (a command of at most 2,000 characters; carry [".gl", "bin-rg"]):
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   V=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; [ -f $V ] && export VK_DRIVER_FILES=$V
#   export XDG_RUNTIME_DIR=/tmp; mkdir -p /tmp/b && tar xJf bin-rg/b.tar.xz -C /tmp/b
#   bash scripts/real-gpu.sh /tmp/b $OUT/log 500 PHASE...; grep ^SUMMARY $OUT/log
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:-}"
bundle=bin-rg
stage=$(mktemp -d)
worktree=
# The staging folder, and BASE's worktree and build where one was made, go however this ends.
cleanup() {
    rm -rf "$stage"
    if [ -n "$worktree" ]; then
        git worktree remove --force "$worktree" 2>/dev/null || true
        rm -rf "$worktree" "$worktree-target"
    fi
}
trap cleanup EXIT

exclude="$(git rev-parse --git-common-dir)/info/exclude"
mkdir -p "$(dirname "$exclude")"
for path in /.gl/ /$bundle/; do
    grep -qxF "$path" "$exclude" 2>/dev/null || echo "$path" >>"$exclude"
done

echo "device-bundle: examples"
cargo build --release --features arkworks-parallel --example msm --example host_share --example groth16
for example in msm host_share groth16; do
    cp "target/release/examples/$example" "$stage/"
done

echo "device-bundle: test binaries"
# Each test target's executable, as cargo reports it (its file name carries a hash).
cargo test --release --features arkworks-parallel --no-run --lib --test integration --test reliability \
    --message-format=json-render-diagnostics |
    python3 -c '
import json, sys
names = {"webgpu_msm": "lib-tests", "integration": "integration-tests", "reliability": "reliability-tests"}
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and message.get("executable") and message["profile"]["test"]:
        print(message["executable"], names[message["target"]["name"]])
' | while read -r executable name; do
    cp "$executable" "$stage/$name"
done

if [ -n "$base" ]; then
    echo "device-bundle: msm-base from $base"
    worktree=$(mktemp -d)
    git worktree add -f --detach "$worktree" "$base" >/dev/null
    (cd "$worktree" && CARGO_TARGET_DIR="$worktree-target" cargo build --release --features arkworks-parallel --example msm)
    cp "$worktree-target/release/examples/msm" "$stage/msm-base"
fi

for binary in msm host_share groth16 integration-tests lib-tests reliability-tests; do
    [ -x "$stage/$binary" ] || { echo "device-bundle: $binary was not built" >&2; exit 1; }
done
mkdir -p "$bundle"
tar cJf "$bundle/b.tar.xz" -C "$stage" .
echo "device-bundle: $bundle/b.tar.xz ($(du -h "$bundle/b.tar.xz" | cut -f1)): $(ls "$stage" | tr '\n' ' ')"

if ! ls .gl/*.deb >/dev/null 2>&1; then
    echo "device-bundle: Vulkan and EGL loaders"
    lists=$(mktemp -d)
    mkdir -p .gl "$lists/partial"
    options=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists")
    apt-get "${options[@]}" update >/dev/null
    (cd .gl && apt-get "${options[@]}" download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
    rm -rf "$lists"
fi
echo "device-bundle: .gl/ holds $(ls .gl | tr '\n' ' ')"
echo "device-bundle: carried paths total $(du -shc .gl "$bundle" | tail -1 | cut -f1) (the device tool takes 64 MiB)"
