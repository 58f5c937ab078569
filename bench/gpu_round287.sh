#!/usr/bin/env bash
# GPU round 287 (H100): after the linear entries 1.4.0/1.5.0 (round 286, the skinny companions'
# wider tiles): `kzoo zoo verify --newest` of both ops and ops.linear's dispatch tests (now with
# 8192- and 14336-column skinny calls); then bench/linear_skinny.py in both 16-bit dtypes:
# ops.linear at 1-128 rows against the 1.1.0 entries, eager, torch.compile and cuBLAS.
# Outcome (2026-11-25): 6 passed. bench/results/linear-skinny-h100.json: none wrong, every call
# served by the entry; over 72 rows 1.289x the 1.1.0 entries, 1.056x eager, 1.097x
# torch.compile. At 14336 columns every row is ahead of eager (1.002-1.044x); 14 rows are behind
# it, all at 32 or 100 rows x 4096 or 64-128 rows x 1000->3000 (0.90-0.995x).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_zoo_cli.py \
    -k "linear_bias_gelu or linear_bias_silu or ops_linear" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
timeout 360 python3 bench/linear_skinny.py --out "$OUT" 2>&1 | grep -v -i "warn" | tail -80
exit 0
