#!/usr/bin/env bash
# GPU round 195 (H100): the float32 rows furthest behind torch.compile in round 192's table.
# layer_norm at 256x65536 (0.50x: no config was promoted, the reference runs; the looped kernel's
# three passes over the row) with the norm template's new one_pass_stats and RMSNorm's served
# configs (--siblings; rms_norm float32 is 1.05x at that shape); the dim-1 softmax and
# log-softmax at 8x4097x257 (0.50x, 0.32x) and log-softmax at 64x128x4096 (0.74x), with the
# configs bfloat16 serves them with (1.32-1.45x there; they did not compete in rounds 189-190),
# each other's (--siblings) and 24 random ones.
# Outcome (stop 33, 2026-11-24; runs/tune-buckets-h100-20261124-075706.json, -075810.json,
# -080002.json): layer_norm float32 cols_le_65536 promoted (1.11.0): one_pass_stats on, 72.4 us
# against torch.compile's 77.8 at 256x65536 in the sweep, 1.09x compile and 2.12x eager by the
# verifier; cols_le_1024 too (1.10.0, 1.14x compile). log_softmax float32 inner_dim (1.10.0):
# 1.16x compile by the verifier (the served config's sweep geomean 0.71x, 0.32x at 8x4097x257).
# softmax float32 inner_dim stayed: a config at 1.01-1.39x compile at every shape (geomean 1.13x
# against the served 1.03x, which is 0.51x at 8x4097x257) was 23% slower than the served one at
# 32x1000x1024, which choose() then vetoed; it now allows that where the config still beats
# min(eager, compile) at the shape (round 196).
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
