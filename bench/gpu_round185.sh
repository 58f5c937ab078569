#!/usr/bin/env bash
# GPU round 185 (H100): the whole composed table (bench/compose.py, 3 trials a task, --profile,
# as in round 105) under the verifier's host_ahead timer (round 184), so that every row, the
# convolution + tail rows last run in round 105 among them, comes from one run of today's code.
# Outcome (bench/results/compose-h100.json): 18 of 19 rows at or above eager, gelu(linear)
# 4096x4096->14336 0.996x and 8192x4096->8192 1.001x (the profiler: 1.09x and 1.00x eager's
# kernels); linear + LayerNorm 1000x1024->3000 1.043x; conv rows within 1% of round 105's.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round185
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 560 python3 bench/compose.py --trials 3 --budget 35 --profile --out /tmp/c185 2>&1 \
    | grep -v -i -E "warn|token auth" | tail -26
cp /tmp/c185/compose-h100.json "$OUT/compose-h100.json"
exit 0
