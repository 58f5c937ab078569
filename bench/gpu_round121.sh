#!/usr/bin/env bash
# GPU round 121: the norms' cols_le_16384 bucket again, by CUDA-graph replays, with the norm
# template's persist_full_rows knob among the candidates (each served config with it off too):
# round 120 found their persistent grids win 4096x4097 (RMSNorm 35.9 against 45.6 us) and lose
# 16384x8192 (188.3 against 175.3), a bucket apart. Then the whole memory-bound table in graph
# replays with every entry the zoo now holds (the reductions' 1.3.0 from round 120 among them).
# Outcome (runs/tune-buckets-h100-round121-norms.json, runs/memory-bound-h100-round121-graphs.json):
# persist_full_rows off did not help: a one-step persistent walk over a full grid kept RMSNorm at
# 190 us at 16384x8192 (the plain kernel 175.6), so round 122 gives full rows the plain kernel.
# add_rms_norm 1.10.0 (8 per SM, 32 per thread: 60.4 / 353.1 us against the stored 64.0 / 353.8)
# kept. The table: geomean 1.178x torch.compile (1.166 in round 104), 12 of 75 shapes behind it
# (16), four of them at 0.995-0.999x: amax, amin, mean, sum over 8192-wide rows (0.94-0.99).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 bench/tune_buckets.py --ops rms_norm,layer_norm,add_rms_norm \
    --dtypes bfloat16 --buckets cols_le_16384 --graphs --samples 4 --jobs 14 \
    --zoo kernel_zoo/entries --out "$OUT" 2>&1 | grep -v -i warn | grep -v "^  [0-9]* of" \
    | tail -15
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/rms_norm entries/layer_norm entries/add_rms_norm
timeout 330 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -12
tail -5 "$OUT/memory-bound-graphs.txt"
exit 0
