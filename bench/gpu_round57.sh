#!/usr/bin/env bash
# GPU round 57: round 55's tests ran past its limit before printing (the companions' tests run the
# GPU verifier, baselines and all); the ones it did not report, each result printed as it comes:
# the odd companion's routing on the GPU, the launch counting through a compiled kernel's own
# launcher, the thread attribution.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 280 python3 -m pytest -v -p no:cacheprovider tests/test_verifier.py tests/test_gemm.py \
    -m "gpu or not gpu" -k "launcher or threads or odd_companion" 2>&1 | grep -E "PASSED|FAILED|ERROR|Error|passed|failed" | head -20
