#!/usr/bin/env bash
# GPU round 83: the memory-bound bench (bfloat16, every op) with the discard flush and round 82's
# entries (sum, mean, amax, rms_norm), timing CUDA-graph replays (--graphs): the GPU's work alone.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 560 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
tail -c 5000 "$OUT/memory-bound-graphs.txt"
exit 0
