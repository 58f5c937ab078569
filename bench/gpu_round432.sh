#!/usr/bin/env bash
# GPU round 432 (H200; 2026-11-29): DECODE_WIDE with swap_ab and four stages (round 431) into the
# zoo: the matmul entries re-rendered with today's companions (bench/rerender_entries.sh,
# bfloat16 and float16, from matmul_skinny: 16x8192x8192, 128x4096x4096, 1x4096x4096), the
# newest checked by `kzoo zoo verify --newest`, then #4's two skinny cases of bench/gemm.py
# --graphs (16x8192x8192 now runs swap_ab, four stages: bench/gemm-configs-h200.json).
#     device run, no carry:  bash bench/gpu_round432.sh
# Outcome (89 s): the re-renders never ran: `kzoo optimize` imports optuna, which the device
# lacks without the bundle (round 433 carries it); no entry was added. bench/gemm.py's skinny
# cases (runs/gemm-h200-graphs-round432-skinny.json): 16x8192x8192 1.021x cuBLAS (61.9 against
# 60.6 TFLOP/s), 128x4096x4096 1.107x. `kzoo zoo verify --newest` passed for matmul 1.3.0 (20 s).
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round432
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round432
mkdir -p $R/rerender $R/graphs
entries_snapshot
OUT=$R/rerender bash bench/rerender_entries.sh "matmul bfloat16 matmul_skinny" \
    "matmul float16 matmul_skinny"
echo "rerender after $(( $(date +%s) - start )) s"
entries_pack_new
timeout 120 python3 bench/gemm.py --config-json bench/gemm-configs-h200.json --graphs \
    --cases skinny_16x8192x8192,skinny_128x4096x4096 --out $R/graphs 2>&1 | grep -v -i warn | tail -4
echo "gemm after $(( $(date +%s) - start )) s"
zoo_verify_ops 520 $R matmul
exit 0
