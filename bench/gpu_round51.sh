#!/usr/bin/env bash
# GPU round 51: the verifier counts launches through a compiled kernel's own launcher (round 50:
# the tail recipes' direct launches failed the conv contract rows as launching nothing). Its GPU
# test, the tail tests, the conv contract rows; then every composed conv task searched and timed.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_tail.py tests/test_verifier.py \
    tests/test_contract.py -m "gpu or not gpu" -k "tail or launcher or (conv and gpu)" 2>&1 \
    | grep -E "passed|failed|FAILED|Error" | head -20
mkdir -p /tmp/c51
timeout 330 python3 bench/compose.py \
    --tasks conv_bn_relu,conv_pool_sigmoid_sum,conv_transpose_tanh_mean,conv_relu_bias_mean,conv_gelu_channel_sum,conv_groupnorm_swish \
    --trials 3 --budget 45 --profile --out /tmp/c51 2>&1 | grep -v -i -E "warn|token auth" | tail -12
cp /tmp/c51/compose-h100.json "$OUT/compose-h100-round51.json"
