#!/usr/bin/env bash
# GPU round 247 (H100): tests/test_probe_gluon_gemm.py and the probe's smoke shapes again after
# launch() took over the compile-only warmup (one place builds the descriptors and arguments).
# Outcome (2026-11-24): 5 passed; all 15 smoke checks right.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/test_probe_gluon_gemm.py 2>&1 | tail -4
timeout 120 python3 bench/probe_gluon_gemm.py --smoke 2>&1 | grep -c " ok$"
exit 0
