#!/usr/bin/env bash
# GPU round 59: the norm and pointwise launchers keep the compiled kernel's own launcher per
# specialization (`_launch`). Their test and the GPU contract rows of the norm and pointwise
# tasks, each result printed as it comes; then the two composites round 56 found host-bound at
# their small shapes (LayerNorm + GELU, linear + LayerNorm) searched and timed again.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 230 python3 -m pytest -v -p no:cacheprovider tests/test_launch_cache.py tests/test_contract.py \
    -m "gpu or not gpu" -k "launch_cache or (on_the_gpu and (norm or swiglu or geglu or mish or gelu_scale or residual_chain) and not mlp and not linear)" 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|Error|passed|failed" | head -30
mkdir -p /tmp/c59
timeout 200 python3 bench/compose.py --tasks layer_norm_gelu,linear_layer_norm --trials 3 --budget 35 --profile \
    --out /tmp/c59 2>&1 | grep -v -i -E "warn|token auth" | tail -6
cp /tmp/c59/compose-h100.json "$OUT/compose-h100-round59.json"
