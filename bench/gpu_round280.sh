#!/usr/bin/env bash
# GPU round 280 (H100): is SKINNY_DEFAULT's CTA pair anything but two 64-row tiles? Its PTX has
# no multicast load (each CTA loads its half of A and all of B), so single-CTA 64x64 tiles (128
# programs, the two row tiles of a column adjacent with GROUP_M 4) might do as well, and they
# would build for a transposed B under Triton 3.6 too: the matmul at 128x4096x4096 and a Linear's
# 128 rows (silu(linear), its weight transposed), by graph replays (bench/gemm.py --configs).
# Outcome (2026-11-25): 128x4096x4096: the CTA pair 17.4 us, single-CTA 64x64 tiles with the row
# halves adjacent (GROUP_M 4) 17.2, apart (GROUP_M 1) 20.0, 128x32 18.0, cuBLAS 17.8. silu(linear)
# 128x4096->4096: 64x64 GROUP_M 4 18.4 us, 128x32 19.9, the pair (single CTAs: a transposed B)
# 21.9, cuBLAS 18.1, eager 21.0. SKINNY_LINEAR keeps 128x32 until round 281's tests run with it.
# bench/results/runs/gemm-configs-h100-skinny-pair-graphs-round280.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/gemm.py --configs --graphs \
    --cases skinny_128x4096x4096,linear_bias_silu_128x4096x4096 \
    --candidates bench/gemm-skinny-pair-candidates.json --out "$OUT" 2>&1 | tail -20
exit 0
