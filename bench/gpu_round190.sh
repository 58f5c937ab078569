#!/usr/bin/env bash
# GPU round 190 (H100): float32 entries for more ops, as round 189 did for the dim-1 softmax and
# cross-entropy (bench/tune_buckets.py --dtypes float32 --graphs --samples 0 --zoo), in order of
# how far round 188 had them behind torch.compile, new ops started while under 330 s; then the
# float32 rows of the memory-bound table again (graph replays) for the ops with float32 entries.
# Outcome: not run yet.
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
