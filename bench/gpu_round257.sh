#!/usr/bin/env bash
# GPU round 257 (H100): the GPU tests of the attention template's ws path and of its tl path
# (round 256's ran past their 240 s limit: every modifier x dtype x turns compiled; now six cases),
# with each test's time.
# Outcome (2026-11-25): 13 passed, 1 failed: ALiBi float16's last check, whose float64 reference
# took the slopes of 2 heads (q[:1, :2]) for a 16-head call: the test's error (round 258 again).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 540 python3 -m pytest -q -p no:cacheprovider -m gpu --durations=30 \
    tests/test_attention_ws.py tests/test_attention.py > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert|^[0-9.]+s call" "$OUT/pytest.txt" | tail -40
exit 0
