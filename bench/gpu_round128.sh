#!/usr/bin/env bash
# GPU round 128 (H100): round 127 again with what it taught (bench/tune_buckets.py's softmax
# variants): one-pass column tiles capped by one_pass_block_inner, the looped path's chunks capped
# by the cost of reading every chunk's partials (round 127's 128 chunks at 4x32768x16 took 20 us
# against 64 chunks' 14-15). Then softmax and log-softmax over 256x128256 rows (cols_gt_65536,
# served by the entries' `any` config: 0.57-0.58 of copy in round 123's table).
# Outcome (runs/tune-buckets-h100-round128-softmax-{inner,wide}.json): softmax 1.5.0/1.6.0 and
# log_softmax 1.4.0/1.5.0 promoted. inner_dim, against the stored files in the same run: softmax
# 77.4/54.3/63.5/14.4 -> 60.3/42.0/55.4/14.2 us, log-softmax 78.3/52.6/63.7/14.9 ->
# 60.7/42.6/47.9/14.9; cols_gt_65536: 75.3 -> 72.3 and 73.9 -> 71.4 us.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 330 python3 bench/tune_buckets.py --ops softmax_dim1,log_softmax_dim1 --dtypes bfloat16 \
    --graphs --samples 0 --jobs 14 --buckets inner_dim --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "^  [a-z_]+ bfloat16 \[|^[a-z_]+ bfloat16 \[|wrote"
timeout 200 python3 bench/tune_buckets.py --ops softmax,log_softmax --dtypes bfloat16 \
    --graphs --samples 0 --jobs 14 --buckets cols_gt_65536 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/softmax entries/log_softmax
exit 0
