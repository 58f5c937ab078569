#!/usr/bin/env bash
# GPU round 190 (H100): float32 entries for more ops, as round 189 did for the dim-1 softmax and
# cross-entropy (bench/tune_buckets.py --dtypes float32 --graphs --samples 0 --zoo), in order of
# how far round 188 had them behind torch.compile, new ops started while under 330 s; then the
# float32 rows of the memory-bound table again (graph replays) for the ops with float32 entries.
# Outcome (runs/tune-buckets-h100-20261124-062424.json to -062714.json; argmax's and
# add_rms_norm's files did not come back, over the count of files a run returns;
# runs/memory-bound-h100-graphs-float32-round190.json): layer_norm 1.7.0-1.9.0 (cols_le_1024,
# _4096, _16384; cols_le_65536 below 0.95x compile), rms_norm 1.10.0-1.12.0, geglu 1.5.0, swiglu
# 1.3.0, log_softmax 1.6.0 (cols_gt_65536, which serves its other buckets), add_rms_norm
# 1.11.0-1.12.0, argmax 1.10.0-1.12.0; amax, amin, sum and mean skipped for time (round 191). The
# float32 table after them: geomean 1.004x torch.compile over 75 rows (0.62x before), 40 rows
# behind it, among them every amax/amin/sum/mean row (no config yet) and layer_norm at 256x65536.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round190
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ls -d kernel_zoo/entries/*/* | sort > /tmp/entries-before.txt
start=$(date +%s)
for op in layer_norm rms_norm geglu swiglu log_softmax add_rms_norm argmax amax amin sum mean; do
    [ $(( $(date +%s) - start )) -gt 330 ] && { echo "skipped $op: time"; continue; }
    timeout 110 python3 bench/tune_buckets.py --ops $op --dtypes float32 --graphs \
        --samples 0 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
        | grep -v -i warn | grep -E "^[a-z_]+ float32 \[" | tail -6
    echo "tune $op: exit ${PIPESTATUS[0]}"
done
ls -d kernel_zoo/entries/*/* | sort > /tmp/entries-after.txt
new=$(comm -13 /tmp/entries-before.txt /tmp/entries-after.txt)
echo "new entries: $new" | tee "$OUT/new-entries.txt"
[ -n "$new" ] && tar czf "$OUT/entries.tgz" $new
left=$(( 560 - ($(date +%s) - start) ))
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32 --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -12
exit 0
