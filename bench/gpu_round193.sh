#!/usr/bin/env bash
# GPU round 193 (H100), written in stop 32 and not run yet: float16 configs for the ops that have
# none (every op but the norms, whose float16 configs came from round 32), as rounds 189-191 did
# for float32 (bench/tune_buckets.py --dtypes float16 --graphs --samples 0 --zoo; the configs the
# zoo serves in bfloat16, whose elements are as wide, now compete among the candidates), new ops
# started while under 420 s; the changed entries come back as a tarball.
# Outcome (run in stop 33, 2026-11-24; runs/tune-buckets-h100-20261124-073204.json to -073748.json):
# 15 float16 promotions, each accepted by the verifier at its bucket's shapes: softmax 1.8.0-1.11.0
# (inner_dim 1.39x compile, cols_gt_65536 1.52x, cols_le_1024 1.13x, cols_le_16384 1.99x),
# log_softmax 1.7.0-1.9.0 (inner_dim 1.30x, cols_le_1024 1.11x, cols_le_65536 1.24x),
# cross_entropy 1.10.0-1.11.0 (2.24x, 1.99x), geglu 1.6.0-1.7.0 (cols_gt_4096 0.96x, cols_le_4096
# 1.37x), swiglu 1.4.0 (1.06x), argmax 1.13.0-1.15.0 (1.01x, 1.92x, 2.29x). Where the bfloat16
# config the zoo serves already won (softmax cols_le_4096, cols_le_65536; log_softmax
# cols_gt_65536, cols_le_16384, cols_le_4096) nothing was promoted. Skipped for time: sum, mean,
# amax, amin (round 194).
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
