#!/usr/bin/env bash
# GPU round 195 (H100): the float32 rows furthest behind torch.compile in round 192's table.
# layer_norm at 256x65536 (0.50x: no config was promoted, the reference runs; the looped kernel's
# three passes over the row) with the norm template's new one_pass_stats and RMSNorm's served
# configs (--siblings; rms_norm float32 is 1.05x at that shape); the dim-1 softmax and
# log-softmax at 8x4097x257 (0.50x, 0.32x) and log-softmax at 64x128x4096 (0.74x), with the
# configs bfloat16 serves them with (1.32-1.45x there; they did not compete in rounds 189-190),
# each other's (--siblings) and 24 random ones.
# Outcome: not run yet.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round195
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
entries_snapshot
timeout 150 python3 bench/tune_buckets.py --ops layer_norm --dtypes float32 --graphs --siblings \
    --samples 0 --jobs 14 --zoo kernel_zoo/entries --out /tmp/tune195 2>&1 \
    | grep -v -i warn | grep -E "^[a-z_]+ float32 \[" | tail -6
echo "tune layer_norm: exit ${PIPESTATUS[0]}"
for op in softmax_dim1 log_softmax_dim1; do
    timeout 190 python3 bench/tune_buckets.py --ops $op --dtypes float32 --graphs --siblings \
        --samples 24 --jobs 14 --zoo kernel_zoo/entries --out /tmp/tune195 2>&1 \
        | grep -v -i warn | grep -E "^[a-z_]+ float32 \[" | tail -6
    echo "tune $op: exit ${PIPESTATUS[0]}"
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune195
entries_pack_new
exit 0
