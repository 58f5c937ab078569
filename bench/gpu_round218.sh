#!/usr/bin/env bash
# GPU round 218 (H100): `row_split` 32 (slices of 4008 at 256x128256: more, smaller programs per
# SM, so one's wait at the counter overlaps another's loads) and row_split 8 with prefetch at
# 16 elements a thread, in the float32 and float16 `cols_gt_65536` buckets of softmax and
# log-softmax (float32 at 0.82-0.84 of copy, float16 0.69-0.71 in rounds 216-217).
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
