#!/usr/bin/env bash
# GPU round 113 (prepared in a session without a GPU machine; not yet run): whether the reduce
# template's packed_keys (one integer max per tile for amax/amin/argmax; fewer shuffles and barriers
# compiled for sm_90, bench/results/compile-reduce-sm90.json) is time, at every task shape with the
# serving config off and on, beside eager and torch.compile (bench/packed_keys.py); then the GPU
# tests of reduce and pointwise, and the sm_90 16-byte-access tests on this machine's Triton 3.6
# (the flat pointwise tile's first column no longer computed with a scalar %, which 3.6's
# alignment analysis lost). bfloat16.
# Outcome: (not yet run)
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/packed_keys.py --out "$OUT" 2>&1 | grep -v -i warn | tail -20
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_reduce.py tests/test_pointwise.py \
    tests/test_vector_access.py -k "gpu_shapes or sm90 or bf16_rows" 2>&1 \
    | tail -8
exit 0
