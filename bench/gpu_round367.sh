#!/usr/bin/env bash
# GPU round 367 (H200, 2026-11-28): the memory-bound table in each dtype with every zoo kernel
# assembled by torch's ptxas from the first row on (kernel_zoo.toolchain; before, a run's first
# rows were assembled by Triton's own and the rest by torch's, once torch.compile had run), and
# round 366's promotions in place.
#     device run, no carry:  bash bench/gpu_round367.sh
# Outcome (419 s): memory-bound-h200-graphs-{float32,bfloat16,float16}-round367.json, ptxas 13.0
# (torch's) in each: geomean 1.187x / 1.339x / 1.328x torch.compile, 1.283x over the 225 rows;
# 22 rows behind, 4 by more than 1% (float32: argmax 4099x1000 0.944x, RMSNorm 16384x8192
# 0.986x, mean 4096x4097 0.987x and 32x4096x1024 over dim 1 0.988x); 8 of 69 large rows under
# 90% of copy, all float32 (softmax and log-softmax at 256x128256 0.75/0.79, 1024x32768
# 0.88/0.89, over dim 1 0.84/0.84; add + RMSNorm 256x65536 0.88, 4096x4097 0.90).
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round367
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/tables367
for dtype in float32 bfloat16 float16; do
    left=$(( 580 - ($(date +%s) - start) )); [ $left -lt 60 ] && break
    timeout $left python3 bench/memory_bound.py --graphs --dtypes $dtype --out /tmp/tables367 \
        2>&1 | grep -v -i warn | grep -E "geomean_vs_compile\"|wrote" | head -3
    tar czf "$OUT/tables.tgz" -C /tmp tables367
    echo "$dtype after $(( $(date +%s) - start )) s"
done
exit 0
