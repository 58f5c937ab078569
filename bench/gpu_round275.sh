#!/usr/bin/env bash
# GPU round 275 (H100): the shipped linear entries (linear_bias_gelu 1.1.0 bfloat16 and float16,
# linear_bias_silu 1.0.0 bfloat16, rounds 273-274) and matmul's: `kzoo zoo verify <op> --newest`
# (test_zoo_cli) and ops.linear's and ops.matmul's dispatch (test_gpu).
# Outcome (2026-11-25): 8 passed (zoo verify matmul, linear_bias_gelu, linear_bias_silu; the
# dispatch tests).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 500 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_zoo_cli.py \
    -k "matmul or linear" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
exit 0
