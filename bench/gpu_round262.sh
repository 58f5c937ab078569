#!/usr/bin/env bash
# GPU round 262 (H100): the final code of the ws attention path (any length, recorded launches,
# its own work threshold WS_MIN_FLOPS = 2^33): its GPU tests, then bench/attention.py's table.
# Outcome (2026-11-25): 6 passed; bench/attention.py: 1.11x SDPA, causal 1.10x, relative position
# 1.33x FlexAttention, soft cap 1.80x (the tl kernel); bench/results/attention-h100.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_attention_ws.py \
    > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
timeout 170 python3 bench/attention.py --out "$OUT" 2>&1 | grep -v Warning | tail -7
exit 0
