#!/usr/bin/env bash
# GPU round 136 (H100): cross-entropy's rows_gt_1024 bucket again: the row kernel now issues the
# loads of a misaligned row's edge elements (the few before its 16-byte aligned body and after its
# last full vector) before the row's stream instead of after it, where each row ended on one more
# round trip to memory (4099x50257, misaligned, read at 0.85 of copy in round 135; 4096x128256,
# aligned, at 0.96); tiles of more warps. Then the memory-bound table again.
# Outcome (runs/tune-buckets-h100-round136-cross-entropy.json): 1 cross-entropy GPU test passed.
# The served params rendered with the edges first took 337.8/148.6 us against the stored file's
# 337.9/148.9 (4096x128256, 4099x50257): no gain, and the template change was reverted. Tiles of 16
# warps were slower (338.4-379.6 / 156.4-169.1 us). Nothing promoted, so no table.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_cross_entropy.py 2>&1 \
    | grep -E "FAILED|passed|failed" | tail -3
before=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
timeout 200 python3 bench/tune_buckets.py --ops cross_entropy --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --buckets rows_gt_1024 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
after=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
if [ "$after" != "$before" ]; then
    tar czf "$OUT/entries.tgz" -C kernel_zoo entries/cross_entropy
    timeout 320 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
        | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
    grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -14
    grep -E "^cross_entropy" "$OUT/memory-bound-graphs.txt"
fi
exit 0
