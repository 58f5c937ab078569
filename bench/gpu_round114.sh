#!/usr/bin/env bash
# GPU round 114 (prepared, not yet run; after round 113 says packed_keys is time): argmax over
# 1000-wide rows (0.89x torch.compile in round 104, no config reached 0.95x in round 111) tuned
# again with bench/tune_buckets.py --only-uncovered, whose reduce variants now include packed_keys;
# amax and amin tuned for the buckets their entries lack. Promoted under the usual rule (faster
# than eager at its shapes, at least 0.95x torch.compile). bfloat16.
# Outcome: (not yet run)
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 540 python3 bench/tune_buckets.py --ops argmax,amax,amin --dtypes bfloat16 \
    --samples 6 --jobs 14 --zoo kernel_zoo/entries --only-uncovered --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  " | tail -16
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/argmax entries/amax entries/amin
exit 0
