#!/usr/bin/env bash
# GPU round 104: the memory-bound table again, both timers, after round 102's norm entries
# (the 1000-wide bucket) and round 103's geglu 1.2.0 and swiglu 1.1.0 (small calls fill the SMs).
# Outcome (graph replays): 16 of 75 shapes slower than torch.compile (21 in round 99), geomean
# 1.166x (1.149x); the norms at 4099x1000 1.05-1.09x compile (0.69-0.91x), GeGLU at 16 rows
# 0.93x (0.82x), SwiGLU 0.99x (0.94x). Default timer: 1.218x, 15 slower.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -12
timeout 240 python3 bench/memory_bound.py --dtypes bfloat16 --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound.txt"
grep "geomean_vs_compile\"" "$OUT/memory-bound.txt"
exit 0
