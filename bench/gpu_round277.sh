#!/usr/bin/env bash
# GPU round 277 (H100): after linear_bias_silu 1.1.0 (float16, round 276): `kzoo zoo verify
# linear_bias_silu --newest` and ops.linear's dispatch test, both dtypes.
# Outcome (2026-11-25): 5 passed (4 dispatch tests, zoo verify linear_bias_silu).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_zoo_cli.py \
    -k "linear_bias_silu or ops_linear" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
exit 0
