#!/usr/bin/env bash
# GPU round 113 (prepared while no GPU machine was lent; run later in the same session): whether the reduce
# template's packed_keys (one integer max per tile for amax/amin/argmax; fewer shuffles and barriers
# compiled for sm_90, bench/results/compile-reduce-sm90.json) is time, at every task shape with the
# serving config off and on, beside eager and torch.compile (bench/packed_keys.py); then the GPU
# tests of reduce and pointwise, and the sm_90 16-byte-access tests on this machine's Triton 3.6
# (the flat pointwise tile's first column no longer computed with a scalar %, which 3.6's
# alignment analysis lost). bfloat16.
# Outcome (bench/results/packed-keys-h100.json, graph replays): packed_keys is time for argmax only:
# 1.02-1.09x faster at 5 of its 6 shapes (4099x1000: 9.9 -> 9.6 us, torch.compile 9.2; the column
# shapes 1.09x), 0.92x at 4096x4097 (looped rows); amax and amin 0.95-1.00x (their float max was
# already cheap). GPU tests of reduce, pointwise and the sm_90 access tests on Triton 3.6: 23 passed.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/packed_keys.py --out "$OUT" 2>&1 | grep -v -i warn | tail -20
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_reduce.py tests/test_pointwise.py \
    tests/test_vector_access.py -k "gpu_shapes or sm90 or bf16_rows" 2>&1 \
    | tail -8
exit 0
