#!/usr/bin/env bash
# GPU round 29: the memory-bound bench (bfloat16, every op) over the final entries (round 25-26's
# bucket entries, round 28's inner_dim softmax and log_softmax), then `kzoo zoo verify` of the two
# new softmax entries.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 300 python3 bench/memory_bound.py --dtypes bfloat16 --out "$OUT" 2>&1 | grep -v -i warn \
    > "$OUT/memory-bound.txt"
grep -A3 geomean_vs_compile\" "$OUT/memory-bound.txt"
for op in softmax log_softmax; do
    timeout 120 python3 -m agent zoo verify "$op" --zoo kernel_zoo/entries > /dev/null 2>&1
    echo "zoo verify $op: exit $?"
done | tee "$OUT/zoo-verify-round29.txt"
