#!/usr/bin/env bash
# GPU round 52: GEMM recipes launch repeated calls through the compiled kernel's own launcher, as
# the tail's do since round 50. GEMM GPU tests (descriptor recipes among them), the tail and
# launch-counting tests, the linear_bias_gelu contract row; then the Linear+epilogue tasks
# searched and timed.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 220 python3 -m pytest -q -p no:cacheprovider tests/test_gemm.py tests/test_tail.py \
    tests/test_verifier.py tests/test_contract.py -m "gpu or not gpu" \
    -k "(test_gemm and gpu) or tail or launcher or (linear_bias_gelu and gpu)" 2>&1 \
    | grep -E "passed|failed|FAILED|Error" | head -20
mkdir -p /tmp/c52
timeout 320 python3 bench/compose.py --tasks linear_bias_gelu,linear_bias_silu,linear_residual \
    --trials 3 --budget 60 --profile --out /tmp/c52 2>&1 | grep -v -i -E "warn|token auth" | tail -12
cp /tmp/c52/compose-h100.json "$OUT/compose-h100-round52.json"
