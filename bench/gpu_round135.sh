#!/usr/bin/env bash
# GPU round 135 (H100): cross-entropy tuned per bucket of its logits' rows (rows_le_1024: 1024x32000
# and 64x128256; rows_gt_1024: 4096x128256 and 4099x50257; kernel_zoo/buckets.py), by graph
# replays: round 132's 2048-wide tiles of 4 warps were 2.5-4% faster than the served config at the
# two large shapes and up to 8% slower at the small ones, so one "any" config could not take them.
# Then the memory-bound table again, with argmax 1.7.0 (rounds 133-134) and whatever this promotes.
# Outcome (runs/tune-buckets-h100-round135-cross-entropy.json, bench/results/memory-bound-h100-
# graphs.json): rows_gt_1024 went to 2048-wide tiles of 8 warps, four deep: 337.7/149.4 us against
# the served 352.2/162.0 (4096x128256, 4099x50257): cross_entropy 1.4.0. rows_le_1024 kept "any"
# (its best was 0.68x eager at a shape by the verifier's timer). The table: geomean 1.224x
# torch.compile, 10 of 75 shapes behind it (argmax 4099x1000 0.96x, GeGLU 16 rows 0.97x, the rest
# within 2%); large shapes below 90% of copy: cross-entropy 4099x50257 (0.85; 0.79 in round 132);
# the column argmax at 32x4096x1024 0.90 (0.74).
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
