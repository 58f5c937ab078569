#!/usr/bin/env bash
# GPU round 106: correctness on the GPU after rounds 101-103 (the `_unit` launch of the norm and
# softmax templates, the SM-filling pointwise launcher, five new entries). The GPU contract rows of
# the norm, softmax and pointwise tasks, the GPU tests of the zoo, the pointwise template and the
# kept launchers; then `kzoo zoo verify` on each new entry, every config at every GPU shape.
# Outcome: the contract rows hit their 200 s limit without a summary; the other GPU tests
# (test_gpu, test_zoo, test_pointwise, test_launch_cache): 22 passed. zoo verify: layer_norm 1.5.0
# all 6 configs correct at every GPU shape; rms_norm 1.8.0 (6 of 7: not its new cols_le_1024) and
# add_rms_norm 1.9.0 (4 of 8) correct before the 100 s limits; geglu, swiglu not reached. Round
# 107 verifies the rest with `kzoo zoo verify --dtype --bucket`.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round106
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_contract.py -m gpu \
    -k "norm or softmax or swiglu or geglu or bias_gelu or residual_chain" \
    2>&1 | grep -E "FAILED|ERROR|passed|failed|Error" | tail -12
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gpu.py tests/test_zoo.py \
    tests/test_pointwise.py tests/test_launch_cache.py -m gpu \
    2>&1 | grep -E "FAILED|ERROR|passed|failed|Error" | tail -12
for entry in rms_norm/1.8.0 layer_norm/1.5.0 add_rms_norm/1.9.0 geglu/1.2.0 swiglu/1.1.0; do
    op=${entry%/*}; v=${entry#*/}
    timeout 100 python3 -m agent zoo verify $op --version $v --json \
        > "$OUT/zoo-verify-$op-$v.json" 2> "$OUT/zoo-verify-$op-$v.log"
    echo "$op $v: exit $?"; grep -v -i warn "$OUT/zoo-verify-$op-$v.log" | tail -2
done
exit 0
