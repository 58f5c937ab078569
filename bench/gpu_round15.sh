#!/usr/bin/env bash
# GPU round 15 (and 16, with shorter K steps in deeper pipelines for M = 128): skinny GEMM configs
# for M = 16 (bandwidth-bound: deeper pipelines, longer K steps,
# wider rows of B, descriptor loads), with the rest of the skinny list. Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 300 python3 bench/gemm.py --configs --cases skinny_128x4096x4096,skinny_16x8192x8192 \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -4
