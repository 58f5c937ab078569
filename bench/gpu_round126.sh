#!/usr/bin/env bash
# GPU round 126 (H100): round 124 again, LayerNorm's cols_le_16384 bucket by graph replays, with
# RMSNorm's first (round 124 ran LayerNorm alone and misread 4096x4097 by 45-50%; rounds 121-122,
# which ran it second, did not). A promotion is kept only if the run's times for the stored file
# agree with round 123's table (47.8 us at 4096x4097, 183.7 at 16384x8192).
# Outcome (runs/tune-buckets-h100-round126-norms.json): the stored files read as in round 123 (LayerNorm
# 47.9 / 183.3 us, RMSNorm 1.9.0 36.6 / 176.4), so the run is taken. LayerNorm 1.6.0: its served
# params with persist_full_rows off, 47.9 / 175.8 us (torch.compile 64.3 / 176.2): kept. The
# memory-bound table was not re-run after it (round 123 has 1.5.0: 0.96x at 16384x8192).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 bench/tune_buckets.py --ops rms_norm,layer_norm --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --buckets cols_le_16384 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | tail -12
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/layer_norm entries/rms_norm
exit 0
