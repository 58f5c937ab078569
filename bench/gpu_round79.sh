#!/usr/bin/env bash
# GPU round 79: the timer's flush now reads a 4x-L2 buffer with evict_last, then discards its
# lines (round 78: evict_last lines survived the write flush). bench/probe_l2_flush.py with every
# mode; the GPU tests (the flush tests with and without evict_last, kzoo verify) and the
# verifier's GPU tests.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 150 python3 bench/probe_l2_flush.py 2>&1 | grep -v -i warn
cp bench/results/runs/l2-flush-*.json "$OUT/" 2>/dev/null
timeout 240 python3 -m pytest -v -p no:cacheprovider tests/test_gpu.py tests/test_verifier.py -m gpu 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|passed|failed|Error" | tail -16
exit 0
