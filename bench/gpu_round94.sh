#!/usr/bin/env bash
# GPU round 94: the memory-bound table again, both timers, with round 93's entries (geglu 1.1.0,
# softmax 1.4.0 and log_softmax 1.3.0, whose inner_dim configs were searched again).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 280 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
tail -c 900 "$OUT/memory-bound-graphs.txt"
timeout 200 python3 bench/memory_bound.py --dtypes bfloat16 --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound.txt"
tail -c 900 "$OUT/memory-bound.txt"
exit 0
