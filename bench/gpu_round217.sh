#!/usr/bin/env bash
# GPU round 217 (H100): the whole float16 and bfloat16 memory-bound tables, one run each, now
# that rounds 210-214 changed the softmaxes' and the norms' 128256- and 65536-wide configs.
# Outcome (stop 35, 2026-11-24): memory-bound-h100-graphs-float16-round217.json: 75 rows, none
# wrong, 1.237x torch.compile, 2.13x eager, 12 rows behind (0.988-0.999x), every large row at 90%
# of copy or more; memory-bound-h100-graphs-bfloat16-round217.json: 75 rows, none wrong, 1.245x,
# 2.16x eager, 10 behind (GeGLU 16x16384 0.984x, SwiGLU 16x14336 0.989x, the rest 0.995-0.998x),
# every large row at 90% or more. Over the three tables' 225 rows: 1.198x torch.compile.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round217
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
for dtype in float16 bfloat16; do
    mkdir -p /tmp/tables217/$dtype
    left=$(( 580 - ($(date +%s) - start) ))
    timeout $left python3 bench/memory_bound.py --graphs --dtypes $dtype \
        --out /tmp/tables217/$dtype 2>&1 | grep -v -i warn | tail -16
    echo "$dtype table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/tables.tgz" -C /tmp tables217
exit 0
