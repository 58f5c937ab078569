#!/usr/bin/env bash
# GPU round 13: the skinny GEMM at M = 128 again, with two warp groups per program, other K steps
# and descriptor loads now that the launcher's host time is below the L2 flush. Results in $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 240 python3 bench/gemm.py --configs --cases skinny_128x4096x4096,skinny_16x8192x8192 \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -4
