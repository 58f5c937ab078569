#!/usr/bin/env bash
# GPU round 272 (H100): the shipped matmul entries (1.0.0 bfloat16, 1.1.0 float16, rows_le_128,
# round 271): `kzoo zoo verify matmul --newest` (test_zoo_cli), and ops.matmul's dispatch (the
# entry at M <= 128, a batched A folded into its rows; torch.matmul past 128 rows; test_gpu).
# Outcome (2026-11-25): 3 passed (the dispatch test in both dtypes, zoo verify matmul).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_zoo_cli.py \
    -k "matmul" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
exit 0
