#!/usr/bin/env bash
# GPU round 44: composed conv tails with the conv bias moved into the tail (#5), profiled.
set -uo pipefail
export PYTHONUNBUFFERED=1
mkdir -p /tmp/c44
timeout 560 python3 bench/compose.py \
    --tasks conv_relu_bias_mean,conv_transpose_tanh_mean,conv_gelu_channel_sum \
    --trials 3 --budget 60 --profile --out /tmp/c44 2>&1 | grep -v -i -E "warn|token auth" | tail -12
cp /tmp/c44/compose-h100.json "$OUT/compose-h100-c.json"
