#!/usr/bin/env bash
# GPU round 345 (H200; written and run 2026-11-28): #4's skinny bar, 16x8192x8192 at 1.0x cuBLAS (0.984-
# 0.990x in rounds 337-338: the decode tile's 128 programs leave 4 of the 132 SMs idle).
# bench/probe_skinny_streamk.py: plain reads of B by 128-528 programs (the floor), stream-K (even
# shares of the K steps over 132 or 264 programs) beside cuBLAS and the decode tile.
#     device run, no carry:  bash bench/gpu_round345.sh
# Outcome (17 s; runs/probe-skinny-streamk-h200-round345.json): cuBLAS 35.42 us, the decode tile
# 35.36 (1.002x; 0.984-0.990x in rounds 337-338, cuBLAS 34.6 then); stream-K 39.5-42.8 us
# (0.83-0.90x) in all 7 configs, so it was not pursued. The plain read kernel (pointer loads, no
# pipelining) took 46-91 us: no floor for the others.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 300 python3 bench/probe_skinny_streamk.py --out "$OUT" 2>&1 | grep -v -i warn
echo "probe after $(( $(date +%s) - start )) s"
exit 0
