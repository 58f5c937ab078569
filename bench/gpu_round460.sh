#!/usr/bin/env bash
# GPU round 460 (H200). No carry: nothing here needs optuna or Ray.
# PART=cols: bench/probe_cols_hold_cuda.py (softmax and log-softmax over dim 1 at 32x1000x1024
#   float32, column tiles held in registers and shared memory) into $OUT/probe, then its GPU
#   tests and tests/test_verifier.py (whose shape count was fixed without a GPU in round 460).
#   PART=cols2: the probe again (its variants as of the call) and its GPU tests only.
#   PART=contract: tests/test_contract.py's rows matching K (default: softmax, rms_norm, sum).
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
# 4. PART=contract (420 s): tests/test_contract.py's softmax, rms_norm and sum rows on the GPU:
#    47 passed, 1 failed: the drawn rms_norm float32 config's split kernel (32 warps under
#    split_maxnreg 80) was refused at launch (OutOfResources, threads 1024 against 768), an error
#    verdict at 256x65536; a drawn config, the same before Template.draw. Fixed: the split-row
#    launch (and norm's align_edges launch) lower a cap to a thread's share of the block's
#    registers.
# 5. PART=caps (262 s): that contract row, softmax's split-row GPU test, the new norm test
#    (cap 80 lowered to 64, the split kernel ran), norm's split-row and align_edges GPU tests:
#    9 passed.
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
caps)
    # a maxnreg cap above a thread's share of its block's registers, lowered (round 460): the
    # contract row that met it, the new test, and the split-row GPU tests that set caps
    mkdir -p "$OUT/tests"
    timeout 200 python3 -m pytest -q -p no:cacheprovider -rf --tb=short \
        "tests/test_contract.py::test_task_default_and_a_drawn_config_are_correct[rms_norm-float32]" \
        "tests/test_templates_search.py::test_row_split_is_correct_on_the_gpu" \
        > "$OUT/tests/pytest-caps.txt" 2>&1
    echo "tests: rc $? $(tail -1 "$OUT/tests/pytest-caps.txt") after $(( $(date +%s) - start )) s"
    timeout 300 python3 -m pytest -q -p no:cacheprovider -rf --tb=short tests/test_norm.py \
        -k "register_cap or (row_split_is_correct and rms_norm) or align_edges_is_correct" \
        >> "$OUT/tests/pytest-caps.txt" 2>&1
    echo "tests: rc $? $(tail -1 "$OUT/tests/pytest-caps.txt") after $(( $(date +%s) - start )) s"
    grep -A12 "^E " "$OUT/tests/pytest-caps.txt" | head -30
    ;;
contract)
    # the contract rows on the GPU, whose shape count was fixed without a GPU in round 460
    mkdir -p "$OUT/tests"
    timeout 420 python3 -m pytest -q -p no:cacheprovider -rf --tb=short \
        tests/test_contract.py -k "${K:-softmax or rms_norm or sum}" \
        > "$OUT/tests/pytest-contract.txt" 2>&1
    echo "tests: rc $? $(tail -1 "$OUT/tests/pytest-contract.txt") after $(( $(date +%s) - start )) s"
    grep -A12 "^E " "$OUT/tests/pytest-contract.txt" | head -30
    ;;
esac
