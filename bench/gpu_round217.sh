#!/usr/bin/env bash
# GPU round 217 (H100): the whole float16 and bfloat16 memory-bound tables, one run each, now
# that rounds 210-214 changed the softmaxes' and the norms' 128256- and 65536-wide configs.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round217
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
for dtype in float16 bfloat16; do
    mkdir -p /tmp/tables217/$dtype
    left=$(( 580 - ($(date +%s) - start) ))
    timeout $left python3 bench/memory_bound.py --graphs --dtypes $dtype --out /tmp/tables217/$dtype \
        2>&1 | grep -v -i warn | tail -16
    echo "$dtype table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/tables.tgz" -C /tmp tables217
exit 0
