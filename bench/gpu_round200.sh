#!/usr/bin/env bash
# GPU round 200 (H100): the float32 looped paths that read their data twice from HBM (round 196:
# softmax and log-softmax at 256x128256 0.62-0.66 of the copy bandwidth, over dim 1 at
# 32x1000x1024 0.68; add_rms_norm at 256x65536 0.83 in round 192), tuned with the new knobs as
# variants of the served configs (softmax: loop_programs_per_sm, reverse_last_pass; norm:
# reverse_last_pass); then the float32 table rows of those ops.
# Outcome (stop 34, 2026-11-24; runs/tune-buckets-h100-round200/,
# runs/memory-bound-h100-graphs-float32-round200.json): the new knobs lost at 256x128256 (best
# with them 128.9-135.9 us against 127.6-127.9 us for a borrowed inner_dim config with
# loop_block 8192, 16 warps: the second pass still misses L2); softmax float32 cols_gt_65536 took
# that config (1.13.0; 0.62 -> 0.67 of copy, 1.44x compile), inner_dim a one-pass 16384 tile
# (1.14.0; 32x1000x1024 0.68 -> 0.93 of copy, 64x128x4096 0.88 -> 0.99); add_rms_norm
# 256x65536 took reverse_last_pass (1.16.0; 105.9 -> 103.9 us, 0.85 of copy). log_softmax's
# 1.11.0 (the same cols_gt_65536 config) was not kept: its float32 last-dim buckets had no
# config of their own and borrowed cols_gt_65536's, so 4096x4097 fell to 0.73x compile in the
# table; tune_buckets now pins such borrowers first (pin_borrowers), and round 201 redoes it.
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
