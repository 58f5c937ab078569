#!/usr/bin/env bash
# GPU round 42: composed kernels (#5) with the new GEMM DEFAULT and seeds, and a profile of each
# winner beside eager (kernels and host time per call): gelu(linear) and three conv tails.
set -uo pipefail
export PYTHONUNBUFFERED=1
mkdir -p /tmp/c42
timeout 560 python3 bench/compose.py --tasks linear_bias_gelu,conv_relu_bias_mean,conv_bn_relu \
    --trials 3 --budget 60 --profile --out /tmp/c42 2>&1 | grep -v -i -E "warn|token auth" | tail -12
cp /tmp/c42/compose-h100.json "$OUT/compose-h100-a.json"
