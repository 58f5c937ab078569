#!/usr/bin/env bash
# GPU round 269 (H100): DECODE_DEFAULT (a skinny companion's calls of at most 16 rows: 16x32x128
# tiles six deep, pointer loads) against descriptor-load decode tiles
# (bench/gemm-decode-tma-candidates.json) at silu(linear) 16x4096->4096 (B transposed) and the
# matmul 16x8192x8192, by graph replays (bench/gemm.py --configs --graphs).
# Outcome (2026-11-25): no one decode tile wins both: 16x4096->4096 (silu(linear)): DECODE_DEFAULT
# 17.5 us (cuBLAS 19.0), descriptor tiles 17.9-20.0; 16x8192x8192: DECODE_DEFAULT 53.9 us (cuBLAS
# 48.9), 16x64x256 descriptor tiles three deep 48.1. DECODE_DEFAULT kept.
# bench/results/runs/gemm-configs-h100-decode-tma-graphs-round269.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/gemm.py --configs --graphs \
    --cases linear_bias_silu_16x4096x4096,skinny_16x8192x8192 \
    --candidates bench/gemm-decode-tma-candidates.json --out "$OUT" 2>&1 | tail -30
exit 0
