#!/usr/bin/env bash
# GPU round 49: the tail template's kernels split dims per row (map) and per iteration (reduce),
# load operands constant along a row once, and share a reduction with few outputs among several
# programs: its tests compiled on the GPU, then the composed conv tasks timed with it.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 150 python3 -m pytest -q -x -p no:cacheprovider tests/test_tail.py 2>&1 | grep -E "passed|failed|FAILED|Error" | head -20
mkdir -p /tmp/c49
timeout 400 python3 bench/compose.py \
    --tasks conv_bn_relu,conv_pool_sigmoid_sum,conv_transpose_tanh_mean,conv_relu_bias_mean,conv_gelu_channel_sum \
    --trials 3 --budget 45 --profile --out /tmp/c49 2>&1 | grep -v -i -E "warn|token auth" | tail -12
cp /tmp/c49/compose-h100.json "$OUT/compose-h100-round49.json"
