#!/usr/bin/env bash
# GPU round 288 (H100): skinny Linears of 32-64 rows, where ops.linear's 64x64 tiles trailed eager
# at 32 rows (bench/linear_skinny.py, round 287: 20.5-22.2 us against 20.0-20.4 at 32x4096->4096):
# would 32-row tiles serve 17-64 rows? Seven tiles by graph replays
# (bench/gemm-skinny-32-candidates.json) at 32, 48 and 64 x 4096->4096, 32 x 4096->14336 and 32
# and 64 x 1000->3000.
# Outcome (2026-11-25): at 32 rows 32x64 tiles took 19.2 us at 4096->4096 (64x64 20.3, eager
# 20.2; 32x32 18.6, DECODE_DEFAULT 18.9) and 10.6 at 1000->3000 (10.8, eager 11.6); at 48 and 64
# rows 64x64 stayed the faster (18.6, 18.8 against 19.1, 19.5); at 32x4096->14336 32x128 tiles
# took 46.0 (64x128 48.4, eager 48.8). SKINNY_NARROW (32x64) then served calls of at most 32
# rows; not kept (round 290: GELU's 32 rows got slower).
# runs/gemm-configs-h100-skinny-32-graphs-round288.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 280 python3 bench/gemm.py --configs --graphs \
    --cases linear_bias_silu_32x4096x4096,linear_bias_silu_48x4096x4096,linear_bias_silu_64x4096x4096,linear_bias_silu_32x14336x4096,linear_bias_silu_32x3000x1000,linear_bias_silu_64x3000x1000 \
    --candidates bench/gemm-skinny-32-candidates.json --out "$OUT" 2>&1 | grep -v "best " | tail -60
exit 0
