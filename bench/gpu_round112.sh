#!/usr/bin/env bash
# GPU round 112: the GEMM template's GPU tests after the decode companion (rounds 108-109), and
# the composed tests' GPU rows.
# Outcome: 6 passed (test_gemm, test_compose -m gpu); the companion-routing tests of test_gemm.py
# (skinny and decode, odd, one wave) on the GPU as well: 4 passed.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 420 python3 -m pytest -q -p no:cacheprovider tests/test_gemm.py tests/test_compose.py -m gpu \
    2>&1 | grep -E "FAILED|ERROR|passed|failed|Error" | tail -12
exit 0
