#!/usr/bin/env bash
# GPU round 218 (H100): `row_split` 32 (slices of 4008 at 256x128256: more, smaller programs per
# SM, so one's wait at the counter overlaps another's loads) and row_split 8 with prefetch at
# 16 elements a thread, in the float32 and float16 `cols_gt_65536` buckets of softmax and
# log-softmax (float32 at 0.82-0.84 of copy, float16 0.69-0.71 in rounds 216-217).
# Outcome (stop 35, 2026-11-24; runs/tune-buckets-h100-round218/): at 256x128256, row_split 32
# took log-softmax float32 from 102.3 to 99.3 us (16 elements a thread, no prefetch; 1.21.0); for
# softmax float32 it was 109.2 us against the served row_split 16's 105.4 (kept); in float16 it was
# 63.3-76.4 us against row_split 4's 59.6-62.6. Log-softmax float16 took another row_split 4
# config with prefetch (60.2 -> 59.6 us, 1.22.0); softmax float16 kept its own.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round218
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune218
for dtype in float32 float16; do
    for op in softmax log_softmax; do
        tune_op 75 $op $dtype /tmp/tune218 --buckets cols_gt_65536 --samples 0 --jobs 14
    done
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune218
entries_pack_new
exit 0
