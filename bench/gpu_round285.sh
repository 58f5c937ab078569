#!/usr/bin/env bash
# GPU round 285 (H100): does a 128x128 tile (128x128x128, 8 warps, three deep: one row tile, 112
# programs at 14336 columns) serve skinny Linears past one wave of SKINNY_DEFAULT's 64x64 tiles at
# other widths (5120, 8192, 11008) and 80-128 rows? Four tiles by graph replays
# (bench/gemm-skinny-wide2-candidates.json).
# Outcome (2026-11-25): the fastest tile at each shape was the smallest of 64x64, 64x128 and
# 128x128 whose programs fit one wave of the 132 SMs: 64x128 at 128 and 100 x 8192 (30.7, 29.9 us;
# eager 32.4, 31.9) and 128 x 5120 (23.6; eager 23.4), 128x128 at 128 x 11008 (42.0; eager 43.1)
# and 80 x 14336 (49.1; eager 49.7). runs/gemm-configs-h100-skinny-wide-graphs-round285.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 280 python3 bench/gemm.py --configs --graphs \
    --cases linear_bias_silu_128x8192x4096,linear_bias_silu_100x8192x4096,linear_bias_silu_128x11008x4096,linear_bias_silu_80x14336x4096,linear_bias_silu_128x5120x4096 \
    --candidates bench/gemm-skinny-wide2-candidates.json --out "$OUT" 2>&1 | grep -v "best " | tail -30
exit 0
