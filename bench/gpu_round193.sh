#!/usr/bin/env bash
# GPU round 193 (H100), written in stop 32 and not run yet: float16 configs for the ops that have
# none (every op but the norms, whose float16 configs came from round 32), as rounds 189-191 did
# for float32 (bench/tune_buckets.py --dtypes float16 --graphs --samples 0 --zoo; the configs the
# zoo serves in bfloat16, whose elements are as wide, now compete among the candidates), new ops
# started while under 420 s; the changed entries come back as a tarball.
# Outcome: not run yet.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round193
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ls -d kernel_zoo/entries/*/* | sort > /tmp/entries-before.txt
start=$(date +%s)
for op in softmax_dim1 log_softmax_dim1 cross_entropy softmax log_softmax geglu swiglu argmax \
          sum mean amax amin; do
    [ $(( $(date +%s) - start )) -gt 420 ] && { echo "skipped $op: time"; continue; }
    timeout 110 python3 bench/tune_buckets.py --ops $op --dtypes float16 --graphs \
        --samples 0 --jobs 14 --zoo kernel_zoo/entries --out /tmp/tune193 2>&1 \
        | grep -v -i warn | grep -E "^[a-z_]+ float16 \[" | tail -6
    echo "tune $op: exit ${PIPESTATUS[0]}"
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune193  # one file: a run returns a limited count
ls -d kernel_zoo/entries/*/* | sort > /tmp/entries-after.txt
new=$(comm -13 /tmp/entries-before.txt /tmp/entries-after.txt)
echo "new entries: $new" | tee "$OUT/new-entries.txt"
[ -n "$new" ] && tar czf "$OUT/entries.tgz" $new
exit 0
