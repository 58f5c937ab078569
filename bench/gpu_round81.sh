#!/usr/bin/env bash
# GPU round 81: with the discard flush (round 79), the plain reductions (sum, mean, amax, amin) and
# rms_norm (three of its five bfloat16 shapes had no config) tuned per bucket in bfloat16, winners
# verified and promoted into kernel_zoo/entries; the entries back as an archive.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 540 python3 bench/tune_buckets.py --ops sum,mean,amax,amin,rms_norm --dtypes bfloat16 \
    --samples 6 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 | grep -v -i warn | tail -48
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
exit 0
