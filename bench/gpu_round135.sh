#!/usr/bin/env bash
# GPU round 135 (H100): cross-entropy tuned per bucket of its logits' rows (rows_le_1024: 1024x32000
# and 64x128256; rows_gt_1024: 4096x128256 and 4099x50257; kernel_zoo/buckets.py), by graph
# replays: round 132's 2048-wide tiles of 4 warps were 2.5-4% faster than the served config at the
# two large shapes and up to 8% slower at the small ones, so one "any" config could not take them.
# Then the memory-bound table again, with argmax 1.7.0 (rounds 133-134) and whatever this promotes.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
before=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
timeout 240 python3 bench/tune_buckets.py --ops cross_entropy --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
after=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
[ "$after" != "$before" ] && tar czf "$OUT/entries.tgz" -C kernel_zoo entries/cross_entropy
timeout 320 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -14
grep -E "^(argmax|cross_entropy)" "$OUT/memory-bound-graphs.txt"
exit 0
