#!/usr/bin/env bash
# GPU round 137 (H100, Triton 3.6): correctness on the GPU of rounds 133-135's configs. `kzoo zoo
# verify` on each new config (argmax 1.7.0: bfloat16 cols_le_1024 and inner_dim; cross_entropy
# 1.4.0: bfloat16 rows_gt_1024) at every GPU shape of its task, then the GPU tests of the zoo, the
# reduce and cross-entropy templates.
# Outcome (runs/zoo-verify-h100-round137/): all three configs correct at every GPU shape of their
# tasks (argmax 6 shapes each, cross-entropy 4); 10 GPU tests passed.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round137
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for item in argmax/1.7.0/cols_le_1024 argmax/1.7.0/inner_dim cross_entropy/1.4.0/rows_gt_1024; do
    op=${item%%/*}; rest=${item#*/}; v=${rest%/*}; b=${rest#*/}
    timeout 75 python3 -m agent zoo verify $op --version $v --dtype bfloat16 --bucket $b --json \
        > "$OUT/zoo-verify-$op-$v-$b.json" 2> "$OUT/zoo-verify-$op-$v-$b.log"
    echo "$op $v $b: exit $?"; grep -v -i warn "$OUT/zoo-verify-$op-$v-$b.log" | tail -2
done
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_zoo.py tests/test_reduce.py \
    tests/test_cross_entropy.py -m gpu 2>&1 | grep -E "FAILED|ERROR|passed|failed|Error" | tail -12
exit 0
