#!/usr/bin/env bash
# GPU round 46: which knob of the GEMM DEFAULT the verifier rejects on the GPU (round 45).
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 500 python3 bench/probe_gemm_default_gpu.py 2>&1 | grep -v -i warn
