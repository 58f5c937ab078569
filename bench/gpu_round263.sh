#!/usr/bin/env bash
# GPU round 263 (H100): the attention GPU tests after their float64 reference moved into
# tests/conftest.py (attention_reference, on the inputs' device), shared by test_attention.py
# and test_attention_ws.py.
# Outcome (2026-11-25): 14 passed (test_attention_ws's 6, test_attention's 8) in 120 s.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_attention_ws.py \
    tests/test_attention.py > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
exit 0
