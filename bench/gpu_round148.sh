#!/usr/bin/env bash
# GPU round 148 (H100): the new entries' correctness on the GPU (`kzoo zoo verify`:
# cross_entropy 1.5.0's rows_le_1024 config, swiglu 1.2.0's any), then the memory-bound table.
# Outcome (bench/results/memory-bound-h100-graphs.json, runs/zoo-verify-h100-round148/): both
# configs correct at every GPU shape of their tasks. Geomean 1.229x torch.compile; 11 of 75 shapes
# behind; large shapes under 90% of copy: cross-entropy 4099x50257 (0.85) and the column argmax
# (0.8997).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round148
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for item in cross_entropy/1.5.0/rows_le_1024 swiglu/1.2.0/any; do
    op=${item%%/*}; rest=${item#*/}; v=${rest%/*}; b=${rest#*/}
    timeout 75 python3 -m agent zoo verify $op --version $v --dtype bfloat16 --bucket $b --json \
        > "$OUT/zoo-verify-$op-$v-$b.json" 2> "$OUT/zoo-verify-$op-$v-$b.log"
    echo "$op $v $b: exit $?"; grep -v -i warn "$OUT/zoo-verify-$op-$v-$b.log" | tail -2
done
timeout 380 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -14
grep -E "^(cross_entropy|swiglu|geglu)" "$OUT/memory-bound-graphs.txt"
exit 0
