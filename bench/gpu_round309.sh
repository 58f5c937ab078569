#!/usr/bin/env bash
# GPU round 309 (H100): round 308's failed check again: ops.linear's ReLU dispatch test, whose
# bound is now eager's own error with 1% over it for a tie.
# Outcome (2026-11-25): 2 passed.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 100 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py -k "relu" \
    > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -8
exit 0
