#!/usr/bin/env bash
# GPU round 77: bench/probe_l2_flush.py (the write flush, write-then-read, read alone, and a warm
# L2, over-peak times flagged); the GPU timing tests back on the write flush, the flush test now
# against a warm L2 behind a spin kernel.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 150 python3 bench/probe_l2_flush.py 2>&1 | grep -v -i warn
cp bench/results/runs/l2-flush-*.json "$OUT/" 2>/dev/null
timeout 240 python3 -m pytest -v -p no:cacheprovider tests/test_gpu.py -m gpu 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|passed|failed|Error" | tail -14
exit 0
