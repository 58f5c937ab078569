#!/usr/bin/env bash
# GPU round 216 (H100): the whole float32 memory-bound table in one run, now that rounds 210-214
# gave softmax, log-softmax, RMSNorm, LayerNorm and AddRMSNorm their split-row kernels.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round216
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/fp32
timeout 575 python3 bench/memory_bound.py --graphs --dtypes float32 --out /tmp/fp32 2>&1 \
    | grep -v -i warn | tail -40
echo "float32 table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp fp32
exit 0
