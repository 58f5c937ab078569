#!/usr/bin/env bash
# GPU round 55: the GEMM odd-row companion (odd_tiled: calls with K or N not a multiple of 16 run
# TILED's kernels) beside the skinny one; their tests and the GEMM GPU tests compiled on the GPU,
# the verifier's launch and thread attribution tests, the tail tests.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_gemm.py tests/test_verifier.py tests/test_tail.py \
    -m "gpu or not gpu" -k "companion or (test_gemm and gpu and not zoo_op_signature) or threads or launcher or tail" 2>&1 \
    | grep -E "passed|failed|FAILED|Error" | head -20
