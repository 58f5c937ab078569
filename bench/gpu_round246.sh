#!/usr/bin/env bash
# GPU round 246 (H100): tests/test_probe_gluon_gemm.py on the GPU (the Gluon kernel against float64
# with 1, 2 and 16 tiles a program), and its CPU tests with the GPU machine's Triton 3.6.
# Outcome (2026-11-24): 5 passed (the compile-only test 20 s, the GPU cases 5 s).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_probe_gluon_gemm.py 2>&1 | tail -8
exit 0
