#!/usr/bin/env bash
# GPU round 233 (H100): the whole float32 memory-bound table after rounds 230-232's promotions
# (amax, amin with nan_combine; sum, mean, argmax at cols_le_1024).
# Outcome (2026-11-24): memory-bound-h100-graphs-float32-round233.json: 75 rows, none wrong,
# 1.127x torch.compile (round 224: 1.125x), 19 behind, no large row under 90% of copy.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round233
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/tables233
timeout 555 python3 bench/memory_bound.py --graphs --dtypes float32 --out /tmp/tables233 \
    2>&1 | grep -v -i warn | tail -40
echo "table float32: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables233
exit 0
