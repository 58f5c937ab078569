#!/usr/bin/env bash
# GPU round 129 (H100): GeGLU and SwiGLU by graph replays (bench/tune_buckets.py's pointwise
# variants of the served configs), then the memory-bound table with everything rounds 127-129
# promoted (softmax 1.6.0, log_softmax 1.5.0: the inner_dim and cols_gt_65536 buckets).
# Outcome (runs/tune-buckets-h100-round129-glu.json, bench/results/memory-bound-h100-graphs.json):
# geglu 1.3.0 (2048-element blocks, 4 warps; 263.5/83.6/26.0/5.3 against the stored file's
# 265.4/84.5/27.0/5.5 us); SwiGLU's served config won its run. The table: geomean 1.215x
# torch.compile (round 123: 1.186x), 10 of 75 shapes behind it, 2 large shapes below 0.9 of copy.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 bench/tune_buckets.py --ops geglu,swiglu --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/geglu entries/swiglu
timeout 300 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -12
exit 0
