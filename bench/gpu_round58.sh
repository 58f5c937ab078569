#!/usr/bin/env bash
# GPU round 58: the companions' tests with the verifier judging correctness only (round 57 ran
# past its limit in the odd companion's test, whose verifier also timed torch.compile baselines
# at the task's float32 GPU shapes). Round 57 passed the launch counting and thread tests.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 260 python3 -m pytest -v -p no:cacheprovider tests/test_gemm.py -k "companion" 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|Error|passed|failed" | head -20
