#!/usr/bin/env bash
# GPU round 225 (H100): the whole float16 and bfloat16 memory-bound tables, now that rounds
# 221-223 changed the 128256-wide softmaxes' and the 65536-wide norms' configs (row_ahead).
# Outcome (2026-11-24): memory-bound-h100-graphs-float16-round225.json: 75 rows, none wrong,
# 1.250x torch.compile (round 217: 1.237x), 11 behind (0.991-0.999x), no large row under 90% of
# copy; -bfloat16-round225.json: 1.249x (1.245x), 10 behind (GeGLU 16x16384 0.934x, the rest
# 0.99x or more), none under 90%. With round 224's float32, 1.207x over the 225 rows.
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
