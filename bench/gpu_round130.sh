#!/usr/bin/env bash
# GPU round 130 (H100, Triton 3.6): correctness on the GPU of rounds 127-129's configs.
# `kzoo zoo verify` on each new config (softmax 1.6.0 and log_softmax 1.5.0: bfloat16 inner_dim
# and cols_gt_65536; geglu 1.3.0: bfloat16 any) at every GPU shape of its task, then the GPU tests
# of the zoo, ops.softmax and the pointwise template.
# Outcome (runs/zoo-verify-h100-round130/; softmax's inner_dim files did not come back, its log
# line read "sm_90/bfloat16/inner_dim: correct (gpu, 4 shape(s))"): all five configs correct at
# every GPU shape of their tasks; 21 GPU tests passed.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round130
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for item in softmax/1.6.0/inner_dim softmax/1.6.0/cols_gt_65536 log_softmax/1.5.0/inner_dim \
            log_softmax/1.5.0/cols_gt_65536 geglu/1.3.0/any; do
    op=${item%%/*}; rest=${item#*/}; v=${rest%/*}; b=${rest#*/}
    timeout 75 python3 -m agent zoo verify $op --version $v --dtype bfloat16 --bucket $b --json \
        > "$OUT/zoo-verify-$op-$v-$b.json" 2> "$OUT/zoo-verify-$op-$v-$b.log"
    echo "$op $v $b: exit $?"; grep -v -i warn "$OUT/zoo-verify-$op-$v-$b.log" | tail -2
done
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py tests/test_zoo.py \
    tests/test_pointwise.py -m gpu 2>&1 | grep -E "FAILED|ERROR|passed|failed|Error" | tail -12
exit 0
