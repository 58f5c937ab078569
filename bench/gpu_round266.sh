#!/usr/bin/env bash
# GPU round 266 (H100): the skinny probe again: CTA pairs (num_ctas=2) of 64-wide tiles, deeper,
# (bench/probe_skinny_splitk.py) at 128x4096x4096 and 16x8192x8192 against cuBLAS.
# Outcome (2026-11-25): 128x4096x4096: CTA pairs of 128x64 tiles in K steps of 128, six deep,
# 1.057x cuBLAS by graphs and by host_ahead (16.93 us against 17.89); 64x64 steps 8-13 deep
# 1.007-1.024x; 128x32 single CTAs 1.000x/0.996x. 16x8192x8192: 64x256 steps three deep
# 1.015x/1.016x. bench/results/probe-skinny-splitk-h100.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 python3 bench/probe_skinny_splitk.py --out "$OUT" 2>&1 | tail -40
exit 0
