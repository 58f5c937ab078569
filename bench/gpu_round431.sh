#!/usr/bin/env bash
# GPU round 431 (H200; 2026-11-29): the gemm template's swap_ab (C^T = B^T A^T, a warp-group MMA
# for 16-row tiles; DECODE_WIDE now sets it, after round 430's probe): the GPU tests of
# tests/test_gemm.py; bench/gemm.py --configs at the decode calls DECODE_WIDE serves (16 rows of
# 8192x8192 in both 16-bit dtypes, 1 row, an MLP's up projection, two Linears), swapped and not
# (bench/gemm-swap-ab-candidates.json); then #4's table, bench/gemm.py --graphs, whose
# 16x8192x8192 case now runs swap_ab (bench/gemm-configs-h200.json).
#     device run, no carry:  bash bench/gpu_round431.sh
# Outcome (251 s): test_gemm ran past its 200 s (14 passed so far, none failed; round 433 ran
# them all). Swapped against not (runs/gemm-configs-h200-graphs-round431-swap-ab.json): the
# candidates' us are in DECODE_WIDE's comment in templates/gemm.py; swap_ab with four stages won
# 4 of 6 cases and lost 0.8-1.5% at 16x14336x4096, 1.7 waves of tiles. The table
# (runs/gemm-h200-graphs-round431.json, three stages swapped): 16x8192x8192 1.008x cuBLAS.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round431
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round431
mkdir -p $R/configs $R/graphs
timeout 200 python3 -m pytest -q -m gpu tests/test_gemm.py -p no:cacheprovider > $R/test_gemm.txt 2>&1
echo "test_gemm rc $? after $(( $(date +%s) - start )) s: $(tail -1 $R/test_gemm.txt)"
cases=skinny_16x8192x8192,skinny_16x8192x8192_fp16,skinny_1x8192x8192,skinny_16x14336x4096
cases=$cases,linear_bias_silu_16x14336x4096,linear_bias_silu_16x8192x8192
timeout 150 python3 bench/gemm.py --configs --graphs --cases $cases \
    --candidates bench/gemm-swap-ab-candidates.json --out $R/configs 2>&1 | grep -v -i warn | tail -40
echo "configs after $(( $(date +%s) - start )) s"
timeout 200 python3 bench/gemm.py --config-json bench/gemm-configs-h200.json --graphs \
    --out $R/graphs 2>&1 | grep -v -i warn | tail -9
echo "gemm after $(( $(date +%s) - start )) s"
exit 0
