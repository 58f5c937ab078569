#!/usr/bin/env bash
# GPU round 93: GeGLU (0.90-0.92x torch.compile at its three large shapes in round 92; its entry
# was tuned on 2026-11-22 under the zeroing flush) and softmax / log-softmax over dim 1 (0.67-0.93x)
# searched again with `kzoo optimize` (bench/tune_memory_bound.py, 16 trials, 60 s per template),
# the winners promoted when faster than eager and torch.compile. bfloat16.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round93
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 540 python3 bench/tune_memory_bound.py --tasks geglu,softmax_dim1,log_softmax_dim1 \
    --dtypes bfloat16 --trials 16 --budget 60 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -12
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
exit 0
