#!/usr/bin/env bash
# GPU round 281 (H100, not run): test_gemm's GPU tests of the skinny tiles, the companions and the
# descriptor path, for SKINNY_LINEAR as 64x64 tiles grouped by 4 (round 280).
# Outcome (2026-11-25): not run: the session's device time was spent (the machine could not be
# started again). SKINNY_LINEAR stays 128x32 until it runs with the 64x64 tile.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    -k "skinny or cluster or companion or tma or descriptor" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
exit 0
