#!/usr/bin/env bash
# GPU round 460 (H200). No carry: nothing here needs optuna or Ray.
# PART=cols: bench/probe_cols_hold_cuda.py (softmax and log-softmax over dim 1 at 32x1000x1024
#   float32, column tiles held in registers and shared memory) into $OUT/probe, then its GPU
#   tests and tests/test_verifier.py (whose shape count was fixed without a GPU in round 460).
#   PART=cols2: the probe again (its variants as of the call) and its GPU tests only.
# Calls: round 460's first session had 412 s of device time; one call ran tests/test_verifier.py
#   at 5bda067: 49 passed, 3 failed on the CPU shape count, since fixed.
# 1. PART=cols at 47d2aeb (108 s; runs/probe-cols-hold-cuda-h200-round460.json): w32_t512_r8 best
#    (softmax 74.37, log-softmax 69.86 us beside the zoo's 72.90 and 72.77); tests 54 passed
#    (tests/test_verifier.py all), 1 failed: the probe's log-softmax against allclose(1e-5, 1e-6),
#    a bound torch's own float32 log-softmax misses; the test now judges as the verifier does.
# 2. PART=cols2 (runs/probe-cols-hold-cuda-h200-round460b.json): clusters and softmax keeping its
#    exponentials. Softmax w32_t512_r6 71.01 us, log-softmax w32_t512_r8 69.90, beside the zoo's
#    73.07 and 73.02: 0.972 and 0.957 of it, where #3's bar needs 0.939. Every cluster lost
#    (79-103 us) though its copy walked fastest (c2_w64: 67.6-67.9 us): the cluster's barriers
#    hold the SMs in step, so no block loads while its partners compute. Tests: the variants'
#    checks passed; the test's last line named a variant no longer built (fixed).
# 3. PART=cols2 again (32 s; runs/probe-cols-hold-cuda-h200-round460c.json): PAIR variants (one
#    (max, sum) reduction, the register part's exponentials before the shared-memory part lands)
#    lost; FAST (__expf) within noise. Best softmax f_w32_t512_r6 70.82 us (0.969 of the zoo's
#    73.06), log-softmax w32_t512_r8 69.47 (0.949 of 73.17); the 32-wide walk as a copy takes
#    70.0-71.0 us, over the ~68.6 the bar allows. Tests: 4 passed (+inf, NaN columns added).
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
cols2)
    mkdir -p "$OUT/probe" "$OUT/tests"
    timeout 300 python3 bench/probe_cols_hold_cuda.py --out "$OUT/probe" \
        > "$OUT/probe/stdout.txt" 2>&1
    echo "probe: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn "$OUT/probe/stdout.txt" | grep -v "rel err" | tail -60
    grep "rel err" "$OUT/probe/stdout.txt" | sort -k4 -g | tail -3
    timeout 200 python3 -m pytest -q -p no:cacheprovider -rf --tb=short \
        tests/test_probe_cols_hold_cuda.py > "$OUT/tests/pytest-cols2.txt" 2>&1
    echo "tests: rc $? $(tail -1 "$OUT/tests/pytest-cols2.txt") after $(( $(date +%s) - start )) s"
    grep -A12 "^E " "$OUT/tests/pytest-cols2.txt" | head -30
    ;;
esac
