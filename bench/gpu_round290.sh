#!/usr/bin/env bash
# GPU round 290 (H100): after the linear entries 1.6.0/1.7.0 (round 289, SKINNY_NARROW): `kzoo zoo
# verify --newest` of both ops and ops.linear's dispatch tests (now with a 32-row call); then
# bench/linear_skinny.py in both 16-bit dtypes: ops.linear at 1-128 rows against the 1.1.0
# entries, eager, torch.compile and cuBLAS.
# Outcome (2026-11-25): 6 passed (with a 32-row call). Over the 72 rows 1.291x the 1.1.0 entries,
# 1.057x eager, 1.098x torch.compile (1.5.0 in round 287: 1.289x, 1.056x, 1.097x). At 32 rows
# SiLU gained (4096->4096 19.0 us against 1.5.0's 20.5 and eager's 20.1; float16 19.1 against
# 21.6) but GELU lost (23.4 against 22.0-22.2, eager 20.0-20.1: 0.86x) and 1000->3000 GELU too
# (11.8-11.9 against 11.6-11.7). Not kept: SKINNY_NARROW was taken out, 1.6.0/1.7.0 not
# committed, 1.5.0 stays the newest. runs/linear-skinny-h100-round290-narrow-not-kept.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_zoo_cli.py \
    -k "linear_bias_gelu or linear_bias_silu or ops_linear" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
timeout 360 python3 bench/linear_skinny.py --out "$OUT" 2>&1 | grep -v -i "warn" | tail -80
exit 0
