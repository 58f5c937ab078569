#!/usr/bin/env bash
# GPU round 38: the epilogue probe again, with back-to-back steady-state timing beside the
# flushed timer and the profiler (round 37: the timer put eager 7% ahead of the fused kernel, the
# profiler's kernel times put the fused kernel 8% ahead).
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 300 python3 bench/probe_gemm_epilogue.py --out "$OUT/gemm-epilogue-h100.json" 2>&1 \
    | grep -v -i "warn"
