#!/usr/bin/env bash
# GPU round 71: every #5 task composed and timed again in one run (3 trials each), as rounds 56
# and 67 did, with the GEMM's single_wave_tiled companion in the second start of every GEMM
# search.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 575 python3 bench/compose.py --trials 3 --budget 35 --profile --out /tmp/c71 2>&1 \
    | grep -v -i -E "warn|token auth" | tail -26
cp /tmp/c71/compose-h100.json "$OUT/compose-h100.json"
exit 0
