#!/usr/bin/env bash
# GPU round 26: the per-bucket tuning for argmax and amin (round 25's run ran out of time before
# them), promoted into kernel_zoo/entries; the memory-bound bench (bfloat16) over every entry; and
# `kzoo zoo verify` (sha256, then correctness on this GPU) of the ops with new entries.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 200 python3 bench/tune_buckets.py --ops argmax,amin --dtypes bfloat16 --samples 6 \
    --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 | grep -v -i "warn" > "$OUT/tune-buckets.txt"
grep -v "^  " "$OUT/tune-buckets.txt"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
timeout 250 python3 bench/memory_bound.py --dtypes bfloat16 --out "$OUT" 2>&1 | grep -v -i warn \
    > "$OUT/memory-bound.txt"
grep -A3 geomean_vs_compile\" "$OUT/memory-bound.txt"
for op in rms_norm layer_norm add_rms_norm argmax amin; do
    timeout 40 python3 -m agent zoo verify "$op" --zoo kernel_zoo/entries --json \
        > "$OUT/zoo-verify-$op.json" 2> "$OUT/zoo-verify-$op.err"
    echo "zoo verify $op: exit $?"
done
