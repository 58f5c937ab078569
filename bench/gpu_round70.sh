#!/usr/bin/env bash
# GPU round 70: the two companion tests round 69's 150 s limit cut off (each runs the verifier in
# float32 on the GPU), alone, with room.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 400 python3 -m pytest -v -p no:cacheprovider tests/test_gemm.py -m "gpu or not gpu" \
    -k "one_wave or odd_companion" 2>&1 | grep -E "PASSED|FAILED|ERROR|passed|failed|Error" | tail -12
exit 0
