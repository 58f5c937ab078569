#!/usr/bin/env bash
# GPU round 25: with the dispatch cache and the norm launcher's reshape-free path, the per-bucket
# tuning of round 23 again from the committed zoo (its entries had not been kept), each bucket's
# winner promoted into kernel_zoo/entries; then the memory-bound bench (bfloat16) over the new
# entries. The entries come back as $OUT/entries.tgz, the JSONs and logs beside it.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 320 python3 bench/tune_buckets.py --dtypes bfloat16 --samples 6 --jobs 14 \
    --zoo kernel_zoo/entries --out "$OUT" 2>&1 | grep -v -i "warn" > "$OUT/tune-buckets.txt"
grep -v "^  " "$OUT/tune-buckets.txt"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
timeout 250 python3 bench/memory_bound.py --dtypes bfloat16 --out "$OUT" 2>&1 | grep -v -i warn \
    > "$OUT/memory-bound.txt"
grep -A3 geomean_vs_compile\" "$OUT/memory-bound.txt"
