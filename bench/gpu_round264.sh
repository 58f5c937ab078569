#!/usr/bin/env bash
# GPU round 264 (H100): skinny GEMMs by split-K through tensor descriptors
# (bench/probe_skinny_splitk.py) at 128x4096x4096 and 16x8192x8192 against cuBLAS.
# Outcome (2026-11-25): 128x4096x4096: 128x32 tiles 1.009x cuBLAS by graphs, 1.000x by host_ahead;
# every split slower (0.47-0.85x). 16x8192x8192: 64-wide 128-deep tiles through descriptors
# 1.012x/1.013x. bench/results/runs/probe-skinny-splitk-h100-round264.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 python3 bench/probe_skinny_splitk.py --out "$OUT" 2>&1 | tail -40
exit 0
