#!/usr/bin/env bash
# GPU round 254 (H100): tests/test_gemm_ws.py on the GPU after ws_call's recipes moved into the
# module's _RECIPES table (recorded by _record, the tl path's) from a table of their own.
# Outcome (2026-11-24): 32 passed, 3 skipped (the interpreter-only cases).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_gemm_ws.py 2>&1 \
    | grep -E "passed|failed|FAILED|Error" | tail -6
exit 0
