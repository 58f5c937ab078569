#!/usr/bin/env bash
# GPU round 9: the fused bias+GELU GEMM's configs with 128 x 128 tiles (two programs per SM, one's
# epilogue under the other's main loop); the skinny GEMMs and the launchers' host time after the
# launch recipes (never timed on a GPU before); the composed Linear+bias+GELU task (#5) now that odd
# rows take descriptor loads. Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 bench/gemm.py --configs --cases linear_bias_gelu_8192x8192x4096 \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -4
timeout 120 python3 bench/gemm.py --config-json bench/gemm-configs.json \
    --cases skinny_128x4096x4096,skinny_16x8192x8192 --out "$OUT/main" 2>&1 | grep -v -i warn | tail -4
timeout 90 python3 bench/host_overhead.py 2>&1 | grep -v -i warn | tail -12; cp bench/results/host-overhead-*.json "$OUT"/
KZOO_HOME=/tmp/kzc timeout 150 python3 bench/compose.py --tasks linear_bias_gelu --trials 3 --budget 45 \
    --out "$OUT" 2>&1 | grep -v Token | tail -6
ls -R "$OUT"
