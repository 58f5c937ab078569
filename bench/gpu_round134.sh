#!/usr/bin/env bash
# GPU round 134 (H100): (1) argmax's cols_le_1024 and inner_dim buckets again with new variants:
# one warp per 1000-wide row (1024-element tiles, 32 elements a thread; the row's reduction in its
# warp's shuffles), and the neighbours of round 133's column winner (argmax 1.5.0: 98.3 against
# 120.4 us at 32x4096x1024, 0.90 of copy). (2) bench/probe_splitk.py: each kernel's own time for
# split-K at 128x4096x4096 (round 133's graph replays: split 2 and 4 took 22.5-27.6 us against the
# unsplit 19.4 and cuBLAS's 17.8).
# Outcome (runs/tune-buckets-h100-round134-argmax.json, runs/probe-splitk-h100-round134.json):
# cols_le_1024 went to 2048-element tiles of 32 elements a thread with packed keys (9.2 us against
# the served 9.6; torch.compile 8.8): argmax 1.6.0. inner_dim to round 133's winner with
# split_per_sm 1 (97.7/54.9/24.2 against 97.9/54.9/26.5 us): argmax 1.7.0. The profiler, calls back
# to back with B in L2: cuBLAS's kernel (nvjet, 64x64 tiles, a 2x1 cluster) 14.0 us; ours 15.6
# unsplit, 14.3 + a 1.0 us counter memset split 2, 20.4 + 1.0 split 4 (128x128 tiles), 15.1 for
# 128x32x128. Split 2 is level with the unsplit kernel from L2 and 3 us behind it from HBM.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
before=$(ls kernel_zoo/entries/argmax | sort -V | tail -1)
timeout 300 python3 bench/tune_buckets.py --ops argmax --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --buckets cols_le_1024,inner_dim --zoo kernel_zoo/entries \
    --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
after=$(ls kernel_zoo/entries/argmax | sort -V | tail -1)
[ "$after" != "$before" ] && tar czf "$OUT/entries.tgz" -C kernel_zoo entries/argmax
timeout 120 python3 bench/probe_splitk.py --out "$OUT" 2>&1 | grep -v -i warn | tail -8
exit 0
