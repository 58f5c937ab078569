#!/usr/bin/env bash
# GPU round 33: where the fused GEMM epilogue's time goes at gelu(linear) 8192x8192x4096 (cut-down
# epilogues, column-sliced epilogues, an erfc-fit GELU, persistent grids with a flattened or
# warp-specialized tile loop), and skinny 128x4096x4096 configs not swept before.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv
timeout 540 python3 bench/probe_gemm_epilogue.py --skinny \
    --out "$OUT/gemm-epilogue-h100.json" 2>&1 | grep -v -i "warn"
