#!/usr/bin/env bash
# GPU round 41: which of DEFAULT's knobs the odd-row linear shapes pay for, TILED plus one at a time.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 200 python3 bench/gemm_odd.py 2>&1 | grep -v -i warn | tail -8
cp bench/results/gemm-odd-h100.json "$OUT/"
