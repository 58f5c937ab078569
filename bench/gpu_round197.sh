#!/usr/bin/env bash
# GPU round 197 (H100): float16 configs for the norms' buckets that have none (round 196's float16
# table ran the PyTorch reference at 0.63-0.91x torch.compile for layer_norm at 4099x1000,
# 4096x4097 and 16384x8192, rms_norm at 4099x1000 and 8192x4096, add_rms_norm at 4099x1000; the
# norms' float16 configs came from round 32), with the configs bfloat16 and the other norms
# serve (--siblings); then the float16 rows of the three norms again.
# Outcome (stop 33, 2026-11-24; runs/tune-buckets-h100-20261124-081039.json to -081242.json):
# 9 float16 promotions, by the verifier at 1.02-1.26x torch.compile: layer_norm 1.12.0-1.14.0
# (cols_le_1024, cols_le_16384, cols_le_65536), rms_norm 1.13.0-1.15.0 (cols_le_1024,
# cols_le_16384, cols_le_4096), add_rms_norm 1.13.0-1.15.0 (cols_le_1024, cols_le_16384,
# cols_le_65536). The float16 norm rows after them (bench/results/
# memory-bound-h100-graphs-float16-norms-round197.json): geomean 1.11x compile (0.86-1.00x per op
# in round 196), none wrong, every large row at 90% of copy or more, 2 of 15 rows behind
# (layer_norm and rms_norm at 16384x8192, 0.998x and 0.997x).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round197
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
entries_snapshot
for op in layer_norm rms_norm add_rms_norm; do
    timeout 140 python3 bench/tune_buckets.py --ops $op --dtypes float16 --graphs --siblings \
        --samples 0 --jobs 14 --zoo kernel_zoo/entries --out /tmp/tune197 2>&1 \
        | grep -v -i warn | grep -E "^[a-z_]+ float16 \[" | tail -6
    echo "tune $op: exit ${PIPESTATUS[0]}"
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune197
entries_pack_new
mkdir -p /tmp/fp16
timeout 100 python3 bench/memory_bound.py --graphs --dtypes float16 \
    --ops layer_norm,rms_norm,add_rms_norm --out /tmp/fp16 2>&1 | grep -v -i warn | tail -12
tar czf "$OUT/tables.tgz" -C /tmp fp16
exit 0
