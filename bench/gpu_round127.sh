#!/usr/bin/env bash
# GPU round 127 (H100): softmax and log-softmax over a non-last dim (the inner_dim bucket) by graph
# replays, with the softmax template's new column knobs (col_split_per_sm, col_block_inner) applied
# to the served configs beside one-pass tiles of 16384 elements. Round 123's table read these
# shapes at 0.18-0.69 of copy (8x4097x257: 136 programs of 16 columns walking 4097 rows each).
# Outcome (runs/tune-buckets-h100-round127-softmax-inner.json): 16384-element one-pass tiles took
# 32x1000x1024 from 77 to 60 us but 64x128x4096 from 63 to 90 (128 columns); col_split_per_sm took
# 8x4097x257 from 51-54 to 41-45 us but 4x32768x16 from 14-15 to 20 (128 chunks). The per-shape
# guard kept softmax's served config; log_softmax's promotion (tile 8192) was not kept: round 128
# re-ran with one_pass_block_inner and the chunk cap.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 520 python3 bench/tune_buckets.py --ops softmax_dim1,log_softmax_dim1 --dtypes bfloat16 \
    --graphs --samples 0 --jobs 14 --buckets inner_dim --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | tail -24
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/softmax entries/log_softmax
exit 0
