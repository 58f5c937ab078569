#!/usr/bin/env bash
# GPU round 430 (H200; 2026-11-29): bench/probe_decode_splitk.py --single, twice in a row: the
# 16x8192x8192 bfloat16 decode tile unsplit, more stages and warps, the operands swapped (C^T =
# B^T A^T, a warpgroup MMA), and DECODE_WIDE's own config twice to show the timer's spread,
# against cuBLAS and ops.matmul (round 429: splitting K lost, 0.74-0.97x cuBLAS).
#     device run, no carry:  bash bench/gpu_round430.sh
# Outcome (19 s; runs/probe-decode-splitk-h200-round430-run1.json, -run2.json): the operands
# swapped won both runs, 34.8 and 35.0 us (1.020x and 1.021x cuBLAS) against 35.6 and 35.7
# unswapped; the control's two copies 0.0-0.1% apart; more stages, warps or K steps of 512 did
# not help (512: 48 us).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round430
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p "$OUT/round430"
for run in 1 2; do
  timeout 200 python bench/probe_decode_splitk.py --single --out "$OUT/round430/run$run" 2>&1 | tee "$OUT/round430/probe$run.txt"
done
echo "probe rc ${PIPESTATUS[0]} at $(( $(date +%s) - start )) s"
exit 0
