#!/usr/bin/env bash
# GPU round 75: the verifier's timer now flushes the L2 by reading a buffer 4x its size (round 74:
# a write flush left dirty lines that every timed call wrote back, 4-10 us each). The GPU tests
# that time things (the flush test among them); then the plain reductions (sum, mean, amax, amin,
# bfloat16) tuned per bucket with the read flush, winners verified and promoted into
# kernel_zoo/entries, the entries back as an archive.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 python3 -m pytest -v -p no:cacheprovider tests/test_gpu.py tests/test_verifier.py -m gpu 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|passed|failed|Error" | tail -20
timeout 330 python3 bench/tune_buckets.py --ops sum,mean,amax,amin --dtypes bfloat16 --samples 6 \
    --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 | grep -v -i warn | tail -40
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
exit 0
