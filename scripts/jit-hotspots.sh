#!/usr/bin/env bash
# What a software GPU's compiler emitted where the time goes: runs COMMAND (e.g. the main
# example on SwiftShader or lavapipe), samples the whole machine with perf while it runs, then
# disassembles the hottest JIT code of the still-running process with gdb and prints the
# share of samples in JIT code, an instruction histogram and the first lines of that code.
# Neither driver keeps symbols for its JIT code, so this is how to count a multiplication's
# stack loads and stores (BENCHMARKS.md, "SwiftShader natively (2-core machine)").
#
# Usage: bash scripts/jit-hotspots.sh [--delay S] [--seconds S] [--instructions N] -- COMMAND...
#   --delay S         wait S seconds before sampling, past compilation and calibration (20)
#   --seconds S       sample for S seconds (8); COMMAND must still be running afterwards
#   --instructions N  disassemble N instructions from the hottest sampled address (3000)
# Example:
#   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json bash scripts/jit-hotspots.sh \
#       -- target/release/examples/msm --curve bls12-377 --warm-calls 20
# Needs perf and gdb (Debian: linux-perf, gdb) and permission to sample and to attach (root,
# or kernel.perf_event_paranoid ≤ 0 and kernel.yama.ptrace_scope = 0).
set -euo pipefail

delay=20 seconds=8 instructions=3000
while [ $# -gt 0 ]; do
    case "$1" in
    --delay) delay=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --instructions) instructions=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown option $1 (the command goes after --)" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: $0 [options] -- COMMAND..." >&2; exit 2; }
for tool in perf gdb; do
    command -v "$tool" >/dev/null || { echo "$tool is missing (Debian: apt-get install linux-perf gdb)" >&2; exit 1; }
done

work=$(mktemp -d)
"$@" >"$work/command.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

sleep "$delay"
kill -0 "$pid" 2>/dev/null || { echo "the command ended before sampling began:" >&2; tail "$work/command.log" >&2; exit 1; }
perf record -a -F 999 -o "$work/perf.data" -- sleep "$seconds" 2>/dev/null
kill -0 "$pid" 2>/dev/null || { echo "the command ended while it was sampled: give it more work" >&2; exit 1; }

# Each sample of the command's process: its instruction address and object. JIT code has no
# file of its own: SwiftShader's lies in "memfd:swiftshader_jit", llvmpipe's in the map file it
# writes for perf, /tmp/perf-PID.map.
perf script -i "$work/perf.data" -F pid,ip,dso 2>/dev/null | awk -v pid="$pid" '$1 == pid' >"$work/samples"
total=$(wc -l <"$work/samples")
grep -E 'jit|perf-[0-9]+\.map' "$work/samples" | awk '{print $2}' >"$work/jit" || true
jit=$(wc -l <"$work/jit")
echo "samples of the command's process: $total, in JIT code: $jit"
[ "$jit" -gt 0 ] || { echo "no samples in JIT code" >&2; exit 1; }

# The hottest 4 KiB page of JIT code, disassembled from its lowest sampled address (a sampled
# address is an instruction's start, so the disassembly starts in step).
page=$(sed 's/...$//' "$work/jit" | sort | uniq -c | sort -rn | awk 'NR == 1 {print $2}')
start=$(grep "^ *$page" "$work/jit" | sort | head -1 | tr -d ' ')
echo "hottest page 0x${page}000: $(grep -c "^ *$page" "$work/jit") samples; disassembling $instructions instructions from 0x$start"
gdb -p "$pid" -batch -ex "x/${instructions}i 0x$start" 2>/dev/null | grep -E '^ *0x[0-9a-f]+:' >"$work/code" || true
[ -s "$work/code" ] || { echo "gdb could not read the process's memory" >&2; exit 1; }

echo "instructions by mnemonic:"
awk '{print $2}' "$work/code" | sort | uniq -c | sort -rn | head -15
echo "stores to the stack: $(grep -cE ',-?0x[0-9a-f]+\(%rsp\)$' "$work/code" || true)," \
    "loads from it: $(grep -cE '\(%rsp\),%' "$work/code" || true)"
echo "the first 40 instructions:"
head -40 "$work/code" | sed 's/^ *0x[0-9a-f]*:\t*/  /'
