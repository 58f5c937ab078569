#!/usr/bin/env bash
# GPU round 32: per-bucket tuning of the three norms in float16 and float32 (round 25-26 tuned
# bfloat16), winners verified and promoted into kernel_zoo/entries; entries back as an archive.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 500 python3 bench/tune_buckets.py --ops rms_norm,layer_norm,add_rms_norm \
    --dtypes float16,float32 --samples 4 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i "warn" > "$OUT/tune-buckets.txt"
grep -v "^  " "$OUT/tune-buckets.txt"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
