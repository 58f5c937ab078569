#!/usr/bin/env bash
# GPU round 80: bench/probe_l2_flush.py with the Triton row sum timed with and without its
# evict_last hint, to tell what the hint keeps in the L2 from what the kernel is.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 150 python3 bench/probe_l2_flush.py 2>&1 | grep -v -i warn
cp bench/results/runs/l2-flush-*.json "$OUT/" 2>/dev/null
exit 0
