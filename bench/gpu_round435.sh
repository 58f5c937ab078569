#!/usr/bin/env bash
# GPU round 435 (H200; 2026-11-29): the skinny shapes where ops.matmul trailed cuBLAS in round
# 434 (24-128 rows of 4096 -> 14336, 24 rows of 4096 -> 4096): the template's skinny tiles (the
# H100's) and swapped 32-row tiles (swap_ab), bench/gemm.py --configs --graphs with
# bench/gemm-skinny-h200-candidates.json. Evidence for the next tuning of the skinny companions;
# nothing is promoted.
#     device run, no carry:  bash bench/gpu_round435.sh
# Outcome (35 s; runs/gemm-configs-h200-graphs-round435-skinny.json): swapped 32-row tiles won
# every call of 24 and 32 rows: 32x128 at 4096->14336 (31.7 and 31.4 us against cuBLAS's 32.3
# and 32.4; the routed 64x128 37.8 and 35.9), 32x64 at 24x4096->4096 (13.8 against 16.1; the
# routed 32x32 16.8). At 100 and 128 rows nothing swapped helped (128x128 still the best, 38.5
# and 36.0 against cuBLAS's 33.9 and 34.3; 100x4096->4096: pointer 64x64 17.2 against 15.2). All
# 66 candidates correct.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round435
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round435
mkdir -p $R
cases=skinny_24x14336x4096,skinny_32x14336x4096,skinny_100x14336x4096,skinny_128x14336x4096
cases=$cases,skinny_24x4096x4096,skinny_100x4096x4096
timeout 280 python3 bench/gemm.py --configs --graphs --cases $cases \
    --candidates bench/gemm-skinny-h200-candidates.json --out $R 2>&1 | grep -v -i warn | tail -80
echo "configs after $(( $(date +%s) - start )) s"
exit 0
