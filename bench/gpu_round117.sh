#!/usr/bin/env bash
# GPU round 117 (prepared, not yet run): amin and mean re-tuned per bucket as round 114 does argmax
# and amax (bench/tune_buckets.py with the zoo's served configs competing). Targets: amin and mean
# over 8192-wide rows (0.94x and 0.96x torch.compile in round 104), mean over 4097-wide rows
# (0.98x). bfloat16.
# Outcome: (not yet run)
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 560 python3 bench/tune_buckets.py --ops amin,mean --dtypes bfloat16 \
    --samples 4 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  " | tail -16
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/amin entries/mean
exit 0
