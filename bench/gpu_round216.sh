#!/usr/bin/env bash
# GPU round 216 (H100): the whole float32 memory-bound table in one run, now that rounds 210-214
# gave softmax, log-softmax, RMSNorm, LayerNorm and AddRMSNorm their split-row kernels.
# Outcome (stop 35, 2026-11-24): memory-bound-h100-graphs-float32-round216.json: 75 rows, none
# wrong, 1.117x torch.compile (round 203: 1.106x) and 1.91x eager on the geomean; 24 rows behind,
# all at 0.959-0.9996x (amax and amin 4096x4097 0.96x, SwiGLU large 0.97x, GeGLU large 0.98x);
# 3 of 39 large rows under 90% of copy: softmax and log-softmax 256x128256 (0.82, 0.84), log-softmax
# over dim 1 at 32x1000x1024 (0.87). AddRMSNorm 256x65536 at 0.90 (0.86 in round 203).
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
