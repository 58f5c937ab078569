#!/usr/bin/env bash
# GPU round 132 (H100): round 131 again, the cross-entropy launcher now keeping its compiled
# kernels' launchers (`_launch`), after the launch-cache tests on the GPU. If a config is
# promoted, the memory-bound table again, with it.
# Outcome (runs/tune-buckets-h100-round132-cross-entropy.json, bench/results/memory-bound-h100-
# graphs.json): launch-cache tests 4 passed; config #9 again (352.2/32.4/162.0/16.4 us against the
# stored file's 352.0/32.3/165.5/17.9), the verifier 2.59x eager, 2.32x compile: cross_entropy
# 1.3.0. The table: geomean 1.209x torch.compile, 10 of 75 shapes behind it, cross-entropy at
# 4099x50257 0.79 of copy (torch.compile's times at GeGLU 4099x3001 and LayerNorm 256x65536 back
# to round 123's, 33.6 and 40.9 us against round 129's 51.6 and 49.7).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_launch_cache.py 2>&1 \
    | grep -E "FAILED|passed|failed" | tail -3
before=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
timeout 200 python3 bench/tune_buckets.py --ops cross_entropy --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote"
after=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
if [ "$after" != "$before" ]; then
    tar czf "$OUT/entries.tgz" -C kernel_zoo entries/cross_entropy
    timeout 300 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
        | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
    grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -12
    grep "^cross_entropy" "$OUT/memory-bound-graphs.txt"
fi
exit 0
