#!/usr/bin/env bash
# GPU round 347 (H200; written 2026-11-28): where ws_tail's time went in rounds 344 and 346 (the
# tail 16-23 us slower than none at bias+GELU 8192x8192x4096, where it was to save a tile's
# time): bench/probe_ws_tail.py times the pingpong kernel on all 4096 tiles, on the first 4092,
# and the tail kernel alone on the last 4.
#     device run, no carry:  bash bench/gpu_round347.sh
# Outcome: not yet run.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 bench/probe_ws_tail.py --out "$OUT" 2>&1 | grep -v -i warn
exit 0
