#!/usr/bin/env bash
# GPU round 47: the GEMM launcher now compiles first and lowers the stages where a kernel would
# not fit shared memory (round 46: float32 under the new DEFAULT): GEMM GPU tests and contract
# rows; then the composed conv tails round 44 left out, with the tail launcher's recipes.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 330 python3 -m pytest -q -p no:cacheprovider tests/test_gemm.py tests/test_contract.py -m gpu \
    -k "gemm or matmul or linear or mlp or softmax_matmul" 2>&1 | grep -E "passed|failed|FAILED|Error" | head -20
mkdir -p /tmp/c47
timeout 200 python3 bench/compose.py --tasks conv_bn_relu,conv_groupnorm_swish,conv_pool_sigmoid_sum \
    --trials 3 --budget 45 --profile --out /tmp/c47 2>&1 | grep -v -i -E "warn|token auth" | tail -10
cp /tmp/c47/compose-h100.json "$OUT/compose-h100-d.json"
