#!/usr/bin/env bash
# GPU round 24: the memory-bound bench (bfloat16, every op) with the per-bucket entries of round 23
# in kernel_zoo/entries; its JSON and table go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 580 python3 bench/memory_bound.py --dtypes bfloat16 --out "$OUT" 2>&1 | grep -v -i warn \
    | tee "$OUT/memory-bound-round24.txt" | tail -40
