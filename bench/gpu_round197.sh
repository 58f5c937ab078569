#!/usr/bin/env bash
# GPU round 197 (H100): float16 configs for the norms' buckets that have none (round 196's float16
# table ran the PyTorch reference at 0.63-0.91x torch.compile for layer_norm at 4099x1000,
# 4096x4097 and 16384x8192, rms_norm at 4099x1000 and 8192x4096, add_rms_norm at 4099x1000; the
# norms' float16 configs came from round 32), with the configs bfloat16 and the other norms
# serve (--siblings); then the float16 rows of the three norms again.
# Outcome: not run yet.
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
