#!/usr/bin/env bash
# GPU round 108: silu(linear) at 16 rows (a decode step: 16 x 4096 -> 4096) lost to eager in
# round 105 (0.893x): SKINNY_DEFAULT's 128x64 tiles give 64 programs for 132 SMs. Narrower and
# shorter tiles and split-K (bench/gemm-decode-candidates.json) timed beside cuBLAS and eager
# (bench/gemm.py --configs), each checked against float64 first.
# Outcome: 16x32x128 tiles, six deep, 18.1 us against SKINNY_DEFAULT's 24.9, eager's 22.6 and the
# bare cuBLAS GEMM's 18.7 (runs/gemm-configs-h100-decode-round108.json); split-K 20.7-27.7 us.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/gemm.py --configs --cases linear_bias_silu_16x4096x4096 \
    --candidates bench/gemm-decode-candidates.json 2>&1 | grep -v -i warn | tail -20
cp bench/results/gemm-configs-*.json "$OUT/"
exit 0
