#!/usr/bin/env bash
# GPU round 460 (H200). No carry: nothing here needs optuna or Ray.
# PART=cols: bench/probe_cols_hold_cuda.py (softmax and log-softmax over dim 1 at 32x1000x1024
#   float32, column tiles held in registers and shared memory) into $OUT/probe, then its GPU
#   tests and tests/test_verifier.py (whose shape count was fixed without a GPU in round 460).
# Calls: none yet (round 460's session had 412 s of device time; one call ran
#   tests/test_verifier.py at 5bda067: 49 passed, 3 failed on the CPU shape count, since fixed).
set -u
start=$(date +%s)
export PYTHONPATH=$PWD
case "${PART:-cols}" in
cols)
    mkdir -p "$OUT/probe" "$OUT/tests"
    timeout 300 python3 bench/probe_cols_hold_cuda.py --out "$OUT/probe" \
        > "$OUT/probe/stdout.txt" 2>&1
    echo "probe: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn "$OUT/probe/stdout.txt" | tail -50
    timeout 200 python3 -m pytest -q -p no:cacheprovider -rf --tb=short \
        tests/test_probe_cols_hold_cuda.py tests/test_verifier.py \
        > "$OUT/tests/pytest-cols.txt" 2>&1
    echo "tests: rc $? $(tail -1 "$OUT/tests/pytest-cols.txt") after $(( $(date +%s) - start )) s"
    ;;
esac
