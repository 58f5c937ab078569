#!/usr/bin/env bash
# GPU round 225 (H100): the whole float16 and bfloat16 memory-bound tables, now that rounds
# 221-223 changed the 128256-wide softmaxes' and the 65536-wide norms' configs (row_ahead).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round225
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
for dtype in float16 bfloat16; do
    left=$(( 590 - ($(date +%s) - start) ))
    mkdir -p /tmp/tables225/$dtype
    timeout $(( left < 290 ? left : 290 )) python3 bench/memory_bound.py --graphs --dtypes $dtype \
        --out /tmp/tables225/$dtype 2>&1 | grep -v -i warn | tail -30
    echo "table $dtype: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/tables.tgz" -C /tmp tables225
exit 0
