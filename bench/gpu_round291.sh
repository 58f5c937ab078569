#!/usr/bin/env bash
# GPU round 291 (H100): GELU's skinny Linears trail SiLU's on the same tiles (round 287: 22.0
# against 20.5 us at 32x4096->4096), and the skinny companions render erf-GELU with libdevice's
# erf. Each skinny tile (64x64, 64x128, 128x128) with and without erfc's fit (gelu_erf_fit, as
# DEFAULT has it) by graph replays (bench/gemm-skinny-gelu-candidates.json), at 32, 64 and 128 x
# 4096->4096, 128 x 4096->14336 and 100 x 1000->3000.
# Outcome (2026-11-25): erfc's fit was slower or level on every tile at every shape: 64x64 at
# 32, 64 and 128 x 4096 22.9, 20.0 and 20.2 us against libdevice's 22.0, 19.1 and 19.3 (eager
# 19.7, 20.0, 20.9); 128x128 at 128 x 14336 50.4 either way. Nothing changed.
# runs/gemm-configs-h100-skinny-gelu-graphs-round291.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 280 python3 bench/gemm.py --configs --graphs \
    --cases linear_bias_gelu_32x4096x4096,linear_bias_gelu_64x4096x4096,linear_bias_gelu_128x4096x4096,linear_bias_gelu_128x14336x4096,linear_bias_gelu_100x3000x1000 \
    --candidates bench/gemm-skinny-gelu-candidates.json --out "$OUT" 2>&1 | grep -v "best " | tail -45
exit 0
