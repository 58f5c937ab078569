#!/usr/bin/env bash
# GPU round 367 (H200, 2026-11-28): the memory-bound table in each dtype with every zoo kernel
# assembled by torch's ptxas from the first row on (kernel_zoo.toolchain; before, a run's first
# rows were assembled by Triton's own and the rest by torch's, once torch.compile had run), and
# round 366's promotions in place.
#     device run, no carry:  bash bench/gpu_round367.sh
# Outcome: not yet run.
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
