#!/usr/bin/env bash
# GPU round 265 (H100): the skinny probe again: deeper and narrower K steps, CTA pairs (num_ctas=2),
# splits without their fixup (timing only) (bench/probe_skinny_splitk.py) at 128x4096x4096 and 16x8192x8192 against cuBLAS.
# Outcome (2026-11-25): 128x4096x4096: 128x32 tiles 1.000x/0.996x (graphs/host_ahead); CTA
# pairs of 64x64 tiles eight deep 1.011x/1.012x; split-K's fixup costs 3.7-7.8 us. 16x8192x8192:
# 64x256 steps three deep 1.023x/1.022x. bench/results/runs/probe-skinny-splitk-h100-round265.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 python3 bench/probe_skinny_splitk.py --out "$OUT" 2>&1 | tail -40
exit 0
