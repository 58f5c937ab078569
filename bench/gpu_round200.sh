#!/usr/bin/env bash
# GPU round 200 (H100): the float32 looped paths that read their data twice from HBM (round 196:
# softmax and log-softmax at 256x128256 0.62-0.66 of the copy bandwidth, over dim 1 at
# 32x1000x1024 0.68; add_rms_norm at 256x65536 0.83 in round 192), tuned with the new knobs as
# variants of the served configs (softmax: loop_programs_per_sm, reverse_last_pass; norm:
# reverse_last_pass); then the float32 table rows of those ops.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round200
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune200
tune_op 110 softmax float32 /tmp/tune200 --buckets cols_gt_65536 --samples 0 --jobs 14
tune_op 110 log_softmax float32 /tmp/tune200 --buckets cols_gt_65536 --samples 0 --jobs 14 \
    --siblings
tune_op 120 softmax_dim1 float32 /tmp/tune200 --buckets inner_dim --samples 0 --jobs 14
tune_op 90 add_rms_norm float32 /tmp/tune200 --buckets cols_le_65536 --samples 0 --jobs 14
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune200
entries_pack_new
left=$(( 570 - ($(date +%s) - start) ))
echo "seconds left for the float32 rows: $left"
mkdir -p /tmp/fp32
[ $left -gt 40 ] && timeout $left python3 bench/memory_bound.py --graphs --dtypes float32 \
    --ops softmax,log_softmax,add_rms_norm --out /tmp/fp32 2>&1 | grep -v -i warn | tail -14
tar czf "$OUT/tables.tgz" -C /tmp fp32
exit 0
