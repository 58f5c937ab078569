#!/usr/bin/env bash
# GPU round 31: the GPU contract rows of the tasks whose bucket has its own default (softmax and
# log-softmax over dim 1, skinny matmul) and of the norms and reductions (the norm launcher lost
# its reshapes), float32 and float16 at every GPU shape.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 400 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_contract.py \
    -k "dim1 or skinny or norm or sum or mean or amax or amin or argmax" 2>&1 | tail -4 \
    | tee "$OUT/gpu-contract-round31.txt"
