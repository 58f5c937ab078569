#!/usr/bin/env bash
# GPU round 54: round 53 again (its bench stopped at mlp_swiglu, a float32-only task; compose.py
# now records such a task as skipped and writes its JSON after every task). The GEMM skinny
# companion's test and the GEMM GPU tests; the bfloat16 Linear+epilogue tasks searched (3
# trials: DEFAULT, TILED, DEFAULT with the companion) and timed.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gemm.py -m "gpu or not gpu" \
    -k "skinny_companion or (gpu and not zoo_op_signature)" > /tmp/t54.txt 2>&1
mkdir -p /tmp/c54
timeout 360 python3 bench/compose.py --tasks linear_bias_silu,linear_layer_norm,linear_residual,linear_bias_gelu \
    --trials 3 --budget 60 --profile --out /tmp/c54 2>&1 | grep -v -i -E "warn|token auth" | tail -12
cp /tmp/c54/compose-h100.json "$OUT/compose-h100-round54.json"
grep -E "passed|failed|FAILED|Error" /tmp/t54.txt | head -20
