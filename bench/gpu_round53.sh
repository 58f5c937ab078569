#!/usr/bin/env bash
# GPU round 53: the GEMM template's skinny companion (skinny_rows: calls with at most 128 rows run
# SKINNY_DEFAULT's kernels) and the GEMM recipes' direct launches. Its test compiled on the GPU
# and the GEMM GPU tests; then the Linear+epilogue tasks searched (3 trials: DEFAULT, TILED,
# DEFAULT with the companion) and timed, mlp_swiglu and linear_layer_norm among them.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gemm.py -m "gpu or not gpu" \
    -k "skinny_companion or (gpu and not zoo_op_signature)" 2>&1 | grep -E "passed|failed|FAILED|Error" | head -20
mkdir -p /tmp/c53
timeout 380 python3 bench/compose.py --tasks linear_bias_silu,linear_bias_gelu,mlp_swiglu,linear_layer_norm \
    --trials 3 --budget 60 --profile --out /tmp/c53 2>&1 | grep -v -i -E "warn|token auth" | tail -12
cp /tmp/c53/compose-h100.json "$OUT/compose-h100-round53.json"
