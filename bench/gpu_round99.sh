#!/usr/bin/env bash
# GPU round 99: cross-entropy (0.84 and 0.70 of the copy bandwidth at its large shapes; its entry
# was tuned on 2026-11-22 under the zeroing flush) searched again with `kzoo optimize`
# (bench/tune_memory_bound.py, 20 trials, 100 s), promoted when faster than eager and
# torch.compile; if it was, the memory-bound table again, both timers.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round99
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
before=$(ls kernel_zoo/entries/cross_entropy | wc -l)
timeout 150 python3 bench/tune_memory_bound.py --tasks cross_entropy --dtypes bfloat16 \
    --trials 20 --budget 100 --zoo kernel_zoo/entries --out "$OUT" 2>&1 | grep -v -i warn | tail -6
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/cross_entropy
if [ "$(ls kernel_zoo/entries/cross_entropy | wc -l)" -gt "$before" ]; then
    timeout 240 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
        | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
    grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -12
    timeout 170 python3 bench/memory_bound.py --dtypes bfloat16 --out "$OUT" 2>&1 \
        | grep -v -i warn > "$OUT/memory-bound.txt"
    grep "geomean_vs_compile\"" "$OUT/memory-bound.txt"
fi
exit 0
