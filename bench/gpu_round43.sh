#!/usr/bin/env bash
# GPU round 43: round 42's composed-kernel run for the other conv tails.
set -uo pipefail
export PYTHONUNBUFFERED=1
mkdir -p /tmp/c43
timeout 560 python3 bench/compose.py \
    --tasks conv_groupnorm_swish,conv_pool_sigmoid_sum,conv_transpose_tanh_mean \
    --trials 3 --budget 60 --profile --out /tmp/c43 2>&1 | grep -v -i -E "warn|token auth" | tail -12
cp /tmp/c43/compose-h100.json "$OUT/compose-h100-b.json"
