#!/usr/bin/env bash
# GPU round 90: the reductions' buckets that run eager PyTorch today, tuned again under the new
# promotion rule (bench/tune_buckets.py: a kernel faster than eager at every shape of its bucket
# and at least 0.95x torch.compile on the geometric mean serves the bucket; before, it had to
# beat torch.compile). --only-uncovered leaves the buckets the zoo serves as they are. bfloat16;
# the entries come back as an archive.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 540 python3 bench/tune_buckets.py --ops sum,mean,amax,amin --dtypes bfloat16 \
    --samples 6 --jobs 14 --zoo kernel_zoo/entries --only-uncovered --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -40
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
exit 0
