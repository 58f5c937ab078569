#!/usr/bin/env bash
# GPU round 377 (H200, 2026-11-29): bench/probe_split_lag.py again at 256x128256, around round
# 376's best (LAG 1, 16 programs a row of 8 warps, the second read late, maxnreg 80: 3 programs
# an SM, 78.1 against the served 82.7 us): more programs an SM through fewer registers (maxnreg
# 64 and 72) or smaller slices (32 programs a row of 8 warps).
#     device run, no carry:  bash bench/gpu_round377.sh
# Outcome (ran 2026-11-29 02:05): maxnreg 80 again 78.0 us (0.82 of copy) against the served
#   82.6; 72 87.0, 64 96.3, 56 126.2 (spills); 32 programs a row of 8 warps 128.1-323.2.
#   runs/probe-split-lag-h200-round377.json. Next: the knobs in the templates (round 378).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round377
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/r377
timeout 200 python3 bench/probe_split_lag.py --out /tmp/r377 --shape 256x128256 \
    --variant 16,1,8,1,8,1,80 --variant 16,1,8,1,8,1,72 --variant 16,1,8,1,8,1,64 \
    --variant 16,1,8,1,8,1,56 --variant 32,1,8,1,8,1,0 --variant 32,1,8,1,8,1,64 \
    --variant 32,1,8,1,8,1,48 --variant 16,1,8,0,8,1,64 2>&1 | grep -v -i warn | tail -24
tar czf "$OUT/round377.tgz" -C /tmp r377
exit 0
