#!/usr/bin/env bash
# GPU round 445 (H200; 2026-11-30): 40 rows, where round 444 left ops.matmul level with cuBLAS
# (bfloat16 40x4096->14336, SKINNY_WIDE's 64x128 tiles: 32.91 us against 32.90) and
# SKINNY_NARROW_PAIR behind the SKINNY_POINTER it replaced (silu(linear) 40x1000->3000), and 64
# rows, which round 444 timed two 32-row tile rows faster at (4096 -> 4096, 1000 -> 3000), beside
# 64 x 4096 -> 14336: SKINNY_WIDE's tiles, the same swapped (which constraints() prunes; hence
# --unconstrained), SKINNY_POINTER's, SKINNY_NARROW_PAIR's and 32x128 swapped shifted tiles
# (bench/gemm-skinny-40-candidates.json), by graph replays. One call, no carry:
#     bash bench/gpu_round445.sh
# Outcome (47 s; bench/results/runs/gemm-configs-h200-graphs-round445-skinny-40.json, every config
# correct), us: at 40-64 rows of 4096->14336 SKINNY_WIDE's tiles level with cuBLAS (40 rows 32.8
# against 32.8, 64 rows 32.6 against 33.1), swapped no better (32.6-32.8), the rest behind
# (pointers 34.7-35.3, 32x128 pair 37.9-38.9, 32x64 pair 43.9-44.5); silu(linear) 40x4096->14336
# 35.3 (eager 36.5). At 40 rows of 1000->3000 SKINNY_POINTER's tiles ahead of the pair: matmul 9.5
# against 10.0, silu(linear) 10.9 against 11.1, gelu(linear) 11.4 against 11.3. At 64 rows the
# pair ahead: gelu(linear) 64x4096->4096 16.3 against pointers' 17.4 (eager 17.9), silu(linear)
# 64x1000->3000 10.4 against 10.9 (eager 12.0). So round 446 routes 64 rows to the pair.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round445
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round445
mkdir -p $R/configs
cases=skinny_40x14336x4096,skinny_48x14336x4096,skinny_64x14336x4096,linear_bias_silu_40x14336x4096
cases=$cases,skinny_40x3000x1000,linear_bias_silu_40x3000x1000,linear_bias_gelu_40x3000x1000
cases=$cases,linear_bias_silu_64x3000x1000,linear_bias_gelu_64x4096x4096
timeout 500 python3 bench/gemm.py --configs --graphs --unconstrained --cases $cases \
    --candidates bench/gemm-skinny-40-candidates.json --out $R/configs 2>&1 \
    | grep -v -i warn | grep -v "^  " | tail -40
echo "configs rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
exit 0
