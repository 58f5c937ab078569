#!/usr/bin/env bash
# GPU round 92: the memory-bound table again with round 90's entries (sum, mean, amax, amin now
# serve the buckets that ran eager PyTorch), both timers; then round 90's entries through
# `kzoo sweep` again, now that a shape bucket's kernel is re-verified at its bucket's shapes
# (round 91 timed each at all six task shapes, some of which its config never serves).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 250 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
tail -c 1500 "$OUT/memory-bound-graphs.txt"
timeout 180 python3 bench/memory_bound.py --dtypes bfloat16 --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound.txt"
tail -c 1500 "$OUT/memory-bound.txt"
export KZOO_HOME=/tmp/kzoo-round92
timeout 140 python3 -m agent sweep --ops sum,mean,amax,amin --trials-per-op 0 --zoo kernel_zoo/entries \
    --report "$OUT/sweep-reductions" --json "$OUT/sweep-reductions.json" 2>&1 | grep -v -i warn | tail -25
echo "sweep exit: ${PIPESTATUS[0]}"
rm -f "$OUT/sweep-reductions/"*.png "$OUT/sweep-reductions/.sweep.lock"
exit 0
