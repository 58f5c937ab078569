#!/usr/bin/env bash
# GPU round 82: the discard flush now replays its two launches as one CUDA graph (round 81: its
# host time, two Triton launches, showed in small shapes' times on a slow host). The flush probe
# (each flush's own time beside the rest), the GPU timing tests, then the reductions and rms_norm
# tuned per bucket again (bfloat16), winners promoted; the entries back as an archive.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 100 python3 bench/probe_l2_flush.py 2>&1 | grep -v -i warn | head -3
cp bench/results/runs/l2-flush-*.json "$OUT/" 2>/dev/null
timeout 120 python3 -m pytest -v -p no:cacheprovider tests/test_gpu.py -m gpu -k "flush or l2 or verify" 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|passed|failed|Error" | tail -8
timeout 360 python3 bench/tune_buckets.py --ops sum,mean,amax,amin,rms_norm --dtypes bfloat16 \
    --samples 6 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 | grep -v -i warn | tail -44
tar czf "$OUT/entries.tgz" -C kernel_zoo entries
exit 0
