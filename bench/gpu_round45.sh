#!/usr/bin/env bash
# GPU round 45: the GEMM DEFAULT (and its seed TILED's predecessor rows) in the contract suite on
# the GPU, float32 and float16, for every GEMM task and the composites that hold a GEMM group.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 560 python3 -m pytest -q -p no:cacheprovider tests/test_contract.py -m gpu \
    -k "matmul or linear or mlp or softmax_matmul" 2>&1 | tail -15
