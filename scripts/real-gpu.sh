#!/usr/bin/env bash
# The main job, the host share and the GPU tests on a machine with a hardware GPU, from binaries
# built on another machine (release builds of the examples `msm` and `host_share` with
# `--features arkworks-parallel`, so arkworks' reference MSM uses every core, and the test
# binaries). Everything goes into one log, appended as it runs, so a run cut short still leaves
# what it measured; the last lines are a summary table.
#
#   scripts/real-gpu.sh BIN_DIR LOG DEADLINE_SECONDS PHASE...
#
# BIN_DIR holds msm, host_share, groth16 and the test binaries (integration-tests, lib-tests,
# reliability-tests), and optionally msm-base and msm-mid, the main jobs of other builds to compare
# with. `scripts/device-bundle.sh [BASE]` builds all but msm-mid into bin-rg/b.tar.xz, with the
# Vulkan loader the device machine lacks, and its header gives the device call that runs this.
# Phases, in the order given:
#   g1        every G1 curve at SIZES (g1:N: at 2^N only)
#   g2        the G2 groups at 2^16 and 2^20 (g2:N: at 2^N only)
#   base      msm-base at 2^16 and 2^20
#   forms     each of FORMS on FORMS_CURVES at 2^FORMS_SIZE, against the calibrated form
#             (default: the batched form software GPUs run, with its plan, and loops of 2 and
#             6 rounds; wide-gpu-12 is straight-line code)
#   chunks    each G1 curve at 2^CHUNKS_SIZE (default 20) with the plan's accumulation chunks
#             and with each of CHUNK_LENS entries per thread (default "512 128 64 32"), in
#             turn: whether a GPU runs the plan's 69,632 threads at 2^20 in one round and a
#             short second one (shorter chunks: more, shorter rounds)
#   cold      each of COLD_CURVES' first use at 2^12 without NVIDIA's shader cache or the
#             calibration file, in parts (context, calibration, first MSM); msm-base and msm-mid
#             too where present, in turn
#   prepared  calls on prepared bases, each G1 curve at 2^PREPARED_SIZE (default 20), with each
#             precompute factor of PREPARED_FACTORS (default "1 4"); msm-base's too, where present
#   edwards   bls12-377 on its Edwards model with extended and with affine stored points
#             (--accumulation edwards / edwards-affine) at 2^16 and 2^20, each with calls on
#             prepared bases (--prepared 1), which store affine points in both (they normalize
#             once, at prepare); msm-base's prepared bases, where present, store extended ones
#   groth16   a proof of CONSTRAINTS constraints (default 65536) on GROTH16_CURVES, against
#             ark-groth16
#   host      host share at 2^20
#   tests     the GPU tests, CI=true, with TEST_ARGS
# SIZES, CURVES and G2_CURVES override the sweeps. Each summary line is also written to the log
# as soon as its run ends, so a call cut short keeps them. BENCHMARKS.md ("NVIDIA H200") records
# what it prints.
set -u
bin=$1
log=$2
deadline=$((SECONDS + $3))
shift 3
sizes=${SIZES:-"16 20 22 18"}
curves=${CURVES:-"bn254 bls12-381 bls12-377 ed-on-bls12-377"}
g2_curves=${G2_CURVES:-"bn254-g2 bls12-381-g2 bls12-377-g2"}
summary=$(mktemp)

# Runs "$@" with what is left of the deadline (at most $limit seconds), appending to the log.
step() {
    local limit=$1
    shift
    local left=$((deadline - SECONDS))
    if ((left < 15)); then
        echo "skipped (deadline): $*" >>"$log"
        return 1
    fi
    ((limit > left)) && limit=$left
    echo "=== $* (limit ${limit}s)" >>"$log"
    local started=$SECONDS
    timeout "$limit" "$@" >>"$log" 2>&1
    local rc=$?
    echo "=== rc $rc after $((SECONDS - started))s" >>"$log"
    return $rc
}

# One line of the summary from the main job's output for a label and size.
summarize() {
    local curve=$1 size=$2 from=$3
    tail -n +"$from" "$log" | awk -v c="$curve" -v s="$size" '
        /^kernels:/ { sub(/^kernels: /, ""); kernels = $0 }
        /^GPU cold/ { cold = $NF }
        /^GPU warm \(median/ { warm = $NF }
        /^GPU warm back to back \(median/ { b2b = $(NF - 2); sub(/,$/, "", b2b); fastest = $NF }
        /^arkworks VariableBaseMSM/ { ark = $NF }
        /^warm GPU \/ arkworks/ { ratio = $NF }
        /^prepared bases \(/ { if (match($0, /, [A-Za-z]+ accumulation/)) bases = " on " substr($0, RSTART + 2, RLENGTH - 2) }
        /^GPU warm on prepared bases back to back \(median/ { prepared = " prepared " $(NF - 2) " (fastest " $NF ")"; sub(/,/, "", prepared) }
        /^result/ { result = $2 }
        END { printf "%-22s 2^%-3s cold %-9s warm %-9s back-to-back %-9s fastest %-9s arkworks %-9s ratio %-5s %s%s | %s\n", c, s, cold, warm, b2b, fastest, ark, ratio, result, prepared bases, kernels }' >"$summary.line"
    cat "$summary.line" >>"$summary"
    sed 's/^/SUMMARY /' "$summary.line" >>"$log"
    rm -f "$summary.line"
}

{
    date -u
    nvidia-smi -L 2>&1
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv 2>&1
    nproc
} >>"$log"

# The main job: label, binary, curve, size, extra flags.
main_job() {
    local label=$1 binary=$2 curve=$3 size=$4
    shift 4
    local from
    from=$(($(wc -l <"$log") + 1))
    step 150 "$bin/$binary" --curve "$curve" --log-size "$size" --profile --warm-calls 10 "$@"
    summarize "$label" "$size" "$from"
}

for phase in "$@"; do
    case $phase in
    g1 | g1:*)
        [[ $phase == g1:* ]] && only=${phase#g1:} || only=$sizes
        for size in $only; do
            for curve in $curves; do
                main_job "$curve" msm "$curve" "$size"
            done
        done
        ;;
    base)
        for size in 16 20; do
            for curve in $curves; do
                main_job "$curve (base)" msm-base "$curve" "$size"
            done
        done
        ;;
    cold)
        # First use without NVIDIA's shader cache or the calibration file, so a warm machine
        # measures it again: msm and, where present, msm-base and msm-mid in turn.
        for curve in ${COLD_CURVES:-$curves $g2_curves}; do
            for binary in msm msm-base msm-mid; do
                [[ -x $bin/$binary ]] || continue
                from=$(($(wc -l <"$log") + 1))
                __GL_SHADER_DISK_CACHE=0 WEBGPU_MSM_CACHE_DIR='' step 150 "$bin/$binary" --curve "$curve" --log-size 12
                echo "SUMMARY $curve $binary 2^12 $(tail -n +"$from" "$log" | grep -E "^(GPU cold|cold call's parts)" | tr '\n' ' ')" >>"$log"
            done
        done
        ;;
    chunks)
        for curve in $curves; do
            main_job "$curve chunks plan" msm "$curve" "${CHUNKS_SIZE:-20}"
            for len in ${CHUNK_LENS:-512 128 64 32}; do
                main_job "$curve chunks $len" msm "$curve" "${CHUNKS_SIZE:-20}" --chunk-len "$len"
            done
        done
        ;;
    forms)
        for curve in ${FORMS_CURVES:-bn254 bls12-381}; do
            for form in ${FORMS:-wide wide-gpu-2 wide-gpu-6}; do
                main_job "$curve $form" msm "$curve" "${FORMS_SIZE:-20}" --field "$form"
            done
        done
        ;;
    g2 | g2:*)
        [[ $phase == g2:* ]] && only=${phase#g2:} || only="16 20"
        for size in $only; do
            for curve in $g2_curves; do
                main_job "$curve" msm "$curve" "$size"
            done
        done
        ;;
    prepared)
        for curve in $curves; do
            for factor in ${PREPARED_FACTORS:-1 4}; do
                main_job "$curve prepared $factor" msm "$curve" "${PREPARED_SIZE:-20}" --prepared "$factor"
                [[ -x $bin/msm-base ]] &&
                    main_job "$curve prepared $factor (base)" msm-base "$curve" "${PREPARED_SIZE:-20}" --prepared "$factor"
            done
        done
        ;;
    edwards)
        for size in 16 20; do
            for accumulation in edwards edwards-affine; do
                main_job "bls12-377 $accumulation" msm bls12-377 "$size" --accumulation "$accumulation" --prepared 1
            done
            [[ -x $bin/msm-base ]] &&
                main_job "bls12-377 edwards (base)" msm-base bls12-377 "$size" --accumulation edwards --prepared 1
        done
        ;;
    groth16)
        for curve in ${GROTH16_CURVES:-bn254 bls12-381}; do
            step 240 "$bin/groth16" --curve "$curve" --constraints "${CONSTRAINTS:-65536}"
        done
        ;;
    host)
        for curve in bls12-377 bn254; do
            step 120 "$bin/host_share" --curve "$curve" --log-size 20
        done
        ;;
    tests)
        # The integration binary's modules msm and bytes, each a step of its own (its time limit).
        for tests in "integration-tests msm::" lib-tests "integration-tests bytes::" reliability-tests; do
            # shellcheck disable=SC2086 # the binary and its module filter; TEST_ARGS: libtest's own arguments, e.g. --skip g2
            CI=true step 400 "$bin/"$tests --test-threads 1 ${TEST_ARGS:-}
        done
        ;;
    esac
done

{
    echo "=== summary"
    cat "$summary"
} >>"$log"
rm -f "$summary"
