#!/usr/bin/env bash
# GPU round 131 (H100): cross-entropy by graph replays (bench/tune_buckets.py's cross_entropy
# variants of the served config; its one bucket, `any`, holds all four task shapes). If a config
# is promoted, the memory-bound table again, with it.
# Outcome (runs/tune-buckets-h100-round131-cross-entropy.json): by graph replays config #9 (the
# served params with final_warps 8) took 349.2/32.6/160.8/16.4 us against the stored file's
# 350.1/32.5/164.1/17.9, but the verifier's default timer read it at 0.34x eager at 64x128256
# (98 us against 33.5, 125 us of host time per call: the launcher's two JIT launches), so it was
# not promoted. Round 132 again with the launcher's kept launches.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
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
