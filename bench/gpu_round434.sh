#!/usr/bin/env bash
# GPU round 434 (H200; 2026-11-29): after matmul 1.4.0 and 1.5.0 (round 433: the H200's own
# configs, DECODE_WIDE with swap_ab and four stages): #4's table, bench/gemm.py --graphs, every
# case in one run; then what `ops.matmul` serves at 1-128 rows beside matmul 1.3.0 (the H100's
# configs, which the H200 ran before) and cuBLAS (bench/linear_skinny.py --matmul).
#     device run, no carry:  bash bench/gpu_round434.sh
# Outcome (88 s): gemm-h200-graphs-round434.json: 16x8192x8192 1.010x cuBLAS, 128x4096x4096
# 1.118x; 0.984x / 1.013x / 0.985x at 4096^3 / 8192^3 / 8192x4096x14336; bias+GELU 1.050x eager,
# 1.060x torch.compile. runs/matmul-skinny-h200-round434.json (it wrote matmul-skinny-h200.json,
# which round 436's replaced): where the entry serves, 1.4.0/1.5.0 within 1% of 1.3.0 but at 1
# and 16 rows of 4096->14336 (33.3-34.5 against 32.9-34.2 us, 1.7 waves of DECODE_WIDE's tiles).
# Against cuBLAS there: 1.8-5.9% behind at 1 and 16 rows; at 24-128 rows the skinny tiles (tuned
# on an H100) trail it by 6-19% (64 rows level), and at 24, 32 and 100 rows of 4096->4096 by
# 1-12%. The 1000->3000 rows run eager (K off 16: not served).
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round434
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=$OUT/round434
mkdir -p $R/graphs $R/skinny
timeout 200 python3 bench/gemm.py --config-json bench/gemm-configs-h200.json --graphs \
    --out $R/graphs 2>&1 | grep -v -i warn | tail -9
echo "gemm after $(( $(date +%s) - start )) s"
left=$(( 430 - ($(date +%s) - start) ))
timeout $left python3 bench/linear_skinny.py --activations "" --matmul --matmul-previous 1.3.0 \
    --out $R/skinny 2>&1 | grep -v -i warn | tail -50
echo "matmul-skinny rc ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
exit 0
