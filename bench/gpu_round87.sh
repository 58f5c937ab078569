#!/usr/bin/env bash
# GPU round 87: the rest of round 85's GPU tests (launch cache, pointwise, cross-entropy,
# attention, GEMM, verify, verifier, then the pipeline), with the thread-local flush capture.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 470 python3 -m pytest -v -p no:cacheprovider -m gpu tests/test_launch_cache.py \
    tests/test_pointwise.py tests/test_cross_entropy.py tests/test_attention.py tests/test_gemm.py \
    tests/test_gpu.py tests/test_verifier.py tests/test_pipeline.py --tb=line 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|passed|failed|Error|^/" | tail -60
exit 0
