#!/usr/bin/env bash
# GPU round 124 (H100): LayerNorm's cols_le_16384 bucket by graph replays with full rows on the
# plain kernel (persist_full_rows off), which round 122 measured only on an H200 (47.0 / 138.6 us
# against the served 47.0 / 140.8, under the 1% bar); on the H100 the served config took 183.6 us
# at 16384x8192 against the plain kernel's 175.8 (round 121). Then layer_norm's table rows.
# Outcome (runs/tune-buckets-h100-round124-layer-norm-not-kept.json): every config read 45-50%
# slower at 4096x4097 than in rounds 120-123 (the served file 69.7 us; round 123's table, same
# machine, 47.8), so the per-shape guard compared against an inflated time and layer_norm 1.6.0
# (ppsm 0, 32 per thread: 175.7 us at 16384x8192 against 183.3) was promoted; its table row at
# 4096x4097 then read 0.94x torch.compile where 1.5.0 reads 1.35x. Not kept; cause not found.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 170 python3 bench/tune_buckets.py --ops layer_norm --dtypes bfloat16 --graphs \
    --samples 4 --jobs 14 --buckets cols_le_16384 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | tail -6
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/layer_norm
timeout 90 python3 bench/memory_bound.py --ops layer_norm --dtypes bfloat16 --graphs \
    --out "$OUT" 2>&1 | grep -v -i warn | grep -E "layer_norm|copy" | head -8
exit 0
