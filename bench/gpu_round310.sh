#!/usr/bin/env bash
# GPU round 310 (H100): the eight tasks added on 2026-11-25 (argmin and the written-out
# functions) on the GPU for the first time: the contract's GPU rows (float32 and float16, the
# default and bucket configs at the tasks' GPU shapes), kernel_zoo.optimize's GPU test (a module
# on cuda for CPU example inputs), then bench/coverage.py over every task at every declared dtype
# (the coverage table's GPU column; written after each task, so a cut-short run keeps its rows).
# Outcome (2026-11-25): the contract's GPU rows 9 passed, 1 failed: frobenius_norm float16 wrote
# zeros (its plan stored the sum of squares, 6.7e7, in float16: inf; fixed by the tail template's
# post expression, round 311). kernel_zoo.optimize's GPU test passed. The coverage run stopped at
# its 300 s limit after 37 tasks, all correct but frobenius_norm float16.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round310
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_contract.py \
    -k "argmin or l2_norm or frobenius_norm or huber_loss or max_dim or selu or kl_div_loss or triplet_margin_loss" \
    > "$OUT/pytest-contract.txt" 2>&1
echo "contract rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest-contract.txt" | tail -12
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_compose.py \
    -k "python_api_on_the_gpu" > "$OUT/pytest-api.txt" 2>&1
echo "api rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest-api.txt" | tail -12
timeout 300 python3 bench/coverage.py --out "$OUT" > "$OUT/coverage-table.md" 2> "$OUT/coverage.log"
echo "coverage rc $? after $(( $(date +%s) - start )) s"
grep -v -i warn "$OUT/coverage.log" | tail -70
exit 0
