#!/usr/bin/env bash
# GPU round 78: bench/probe_l2_flush.py again, now with a Triton row sum whose loads carry
# evict_last: does any flush leave such lines in the L2 for the next timed call?
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 150 python3 bench/probe_l2_flush.py 2>&1 | grep -v -i warn
cp bench/results/runs/l2-flush-*.json "$OUT/" 2>/dev/null
exit 0
