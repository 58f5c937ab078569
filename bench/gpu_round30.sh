#!/usr/bin/env bash
# GPU round 30: the memory-bound bench (bfloat16, every op) timing CUDA-graph replays (--graphs), so
# the host's time per call (which moved the default bench's small shapes between machines) drops
# out for the zoo, eager PyTorch and torch.compile alike.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 420 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
grep -A16 geomean_vs_compile\" "$OUT/memory-bound-graphs.txt"
