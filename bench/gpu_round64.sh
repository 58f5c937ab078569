#!/usr/bin/env bash
# GPU round 64: host time per call of the two LayerNorm composites at their small shapes (round
# 61 measured their kernels at 22-128 us in the searches: host-bound), beside eager's, and where
# the host spends it (cProfile).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 bench/host_overhead.py --composed 2>&1 | grep -v -i warn | tail -64
cp bench/results/host-overhead-h100-composed.json "$OUT/" 2>/dev/null
exit 0
