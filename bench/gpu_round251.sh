#!/usr/bin/env bash
# GPU round 251 (H100): the GPU tests of the files the ws_pingpong change touches or that run the
# gemm template and the verifier's guards on a GPU (test_gemm, test_gemm_ws, test_templates_search,
# test_verifier, test_gpu), after the change.
# Outcome (2026-11-24): 42 passed (every GPU test of these files), in 281 s.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round251
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 540 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    tests/test_gemm_ws.py tests/test_templates_search.py tests/test_verifier.py tests/test_gpu.py \
    2>&1 \
    | grep -E "passed|failed|FAILED|Error" | tail -15
echo "tests: after $(( $(date +%s) - start )) s"
exit 0
