#!/usr/bin/env bash
# GPU round 292 (H100): the rows where ops.linear's skinny tiles trail eager (round 287,
# bench/results/linear-skinny-h100.json): 32 and 100 rows of 4096->4096 (0.90-0.99x; the 64x64
# tiles take 20.5-22.2 us at 32 rows against 18.8-19.5 at 64 rows, the same 64 programs) and
# GELU at 64-128 rows of 1000->3000 (0.94-0.995x; cuBLAS's bare GEMM 9.4-10.3 us against our
# 11.6-13.1). Seven tiles by graph replays (bench/gemm-skinny-small-candidates.json): 64x64 (the
# default), 32x32 (TMA six and eight deep, pointer loads), 64x32 (six and eight deep) and 32x64.
# Outcome (2026-11-25): at 32 rows 32x32 tiles won: 19.0 us (TMA, either depth; pointer loads
# 18.7-18.9) against 64x64's 21.9 (GELU) and 20.5 (SiLU), eager 20.1-20.4; at 32 x 1000->3000
# 11.0 against 11.4 (eager 11.6). With more rows 64x64 stayed the fastest: 100 x 4096->4096
# 21.2-21.4 (eager 20.7; smaller tiles 33-46), GELU at 64, 100 and 128 x 1000->3000 11.9, 12.4
# and 12.9 (eager 11.5, 12.0, 12.4; cuBLAS's bare GEMM 9.0-9.5). SKINNY_NARROW (32x32) now
# serves 17-32 rows where its tiles fit one wave.
# runs/gemm-configs-h100-skinny-small-graphs-round292.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 540 python3 bench/gemm.py --configs --graphs \
    --cases linear_bias_gelu_32x4096x4096,linear_bias_silu_32x4096x4096,linear_bias_gelu_100x4096x4096,linear_bias_silu_100x4096x4096,linear_bias_gelu_32x3000x1000,linear_bias_gelu_64x3000x1000,linear_bias_gelu_100x3000x1000,linear_bias_gelu_128x3000x1000 \
    --candidates bench/gemm-skinny-small-candidates.json --out "$OUT" 2>&1 | grep -v "best " | tail -90
exit 0
