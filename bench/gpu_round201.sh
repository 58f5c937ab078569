#!/usr/bin/env bash
# GPU round 201 (H100): log_softmax float32 cols_gt_65536 again, now that tune_buckets first
# gives the buckets borrowing it their current kernel as their own (round 200's promotion there
# made 4096x4097 0.73x torch.compile); log_softmax float32 inner_dim with softmax's new one-pass
# config competing (--siblings); the float32 log_softmax table rows; then `kzoo zoo verify
# --newest` of the float32 configs rounds 200-201 promoted, at every GPU shape of their tasks.
# Outcome (stop 34, 2026-11-24): runs/tune-buckets-h100-round201/,
# memory-bound-h100-graphs-float32-log-softmax-round201.json,
# runs/zoo-verify-h100-float32-round201/.
# pin_borrowers gave cols_le_1024, cols_le_16384, cols_le_4096 and cols_le_65536 the kernel they
# borrowed (1.11.0-1.14.0, each verified at its shapes), then cols_gt_65536 took round 200's
# config (1.15.0; 1.47x compile by the verifier) and inner_dim softmax's new one-pass config
# (1.16.0; 1.29x). Table: 9 rows, none wrong, none behind torch.compile (1.02-1.44x), geomean
# 1.23x; 32x1000x1024 over dim 1 0.67 -> 0.85 of copy, 64x128x4096 0.87 -> 1.00; 256x128256
# still 0.68. zoo verify --newest float32: log_softmax, softmax, add_rms_norm all correct at
# every GPU shape of their tasks.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round201
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune201 /tmp/fp32 /tmp/verify201
tune_op 150 log_softmax float32 /tmp/tune201 --buckets cols_gt_65536 --samples 0 --jobs 14 \
    --siblings
tune_op 130 log_softmax_dim1 float32 /tmp/tune201 --buckets inner_dim --samples 0 --jobs 14 \
    --siblings
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune201
entries_pack_new
timeout 100 python3 bench/memory_bound.py --graphs --dtypes float32 --ops log_softmax \
    --out /tmp/fp32 2>&1 | grep -v -i warn | tail -12
for op in log_softmax softmax add_rms_norm; do
    [ $(( $(date +%s) - start )) -gt 480 ] && { echo "not verified for time: $op"; continue; }
    timeout 110 python3 -m agent zoo verify $op --newest --dtype float32 --json \
        > /tmp/verify201/zoo-verify-$op-float32.json 2> /tmp/verify201/zoo-verify-$op-float32.log
    echo "verify $op float32: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/tables.tgz" -C /tmp fp32 verify201
exit 0
