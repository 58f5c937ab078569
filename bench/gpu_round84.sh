#!/usr/bin/env bash
# GPU round 84: the memory-bound bench (bfloat16, every op) with the discard flush and round 82's
# entries, by the default timer: each call as a user makes it, host time included where it
# outlasts the flush.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 560 python3 bench/memory_bound.py --dtypes bfloat16 --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound.txt"
tail -c 5000 "$OUT/memory-bound.txt"
exit 0
