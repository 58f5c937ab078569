#!/usr/bin/env bash
# GPU round 300 (H100): round 299 found the skinny tiles' descriptor loads slow where the last
# tile row is partly past M (96 and 100 rows of 64x64 tiles: 19.9-20.5 us against pointer loads'
# 17.5) and ahead where it is not (128 rows: 17.2 against 17.5). The same for Linear's transposed
# weight and for the wider tiles: each skinny tile (64x64, 64x128, 128x128) through descriptors
# and through pointer loads (bench/gemm-skinny-pointer-candidates.json), silu(linear) at 48, 64,
# 100 and 128 x 4096->4096, 100 and 128 x 4096->8192, 80 and 100 x 4096->14336, and GELU at
# 100 x 4096->4096.
# Outcome (2026-11-25): at 100 rows of 4096->4096 the 64x64 tiles' pointer loads took 19.2 us
# (SiLU) and 19.8 (GELU) against the descriptors' 20.8 and 21.0 (eager 20.8, 20.5); at 48, 64
# and 128 rows the descriptors were level or ahead (18.6, 18.2, 18.8 against 18.7, 18.8, 18.9).
# The wider tiles lost nothing to descriptors at 100 rows (64x128 at 100 x 4096->8192: 30.0
# against 30.5; 128x128 at 80 and 100 x 4096->14336: 49.0 and 48.6 against 49.0 and 49.5).
# SKINNY_POINTER (64x64, pointer loads) now serves the skinny calls whose last 64-row tile row
# is partial. runs/gemm-configs-h100-skinny-pointer-graphs-round300.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 560 python3 bench/gemm.py --configs --graphs \
    --cases linear_bias_silu_48x4096x4096,linear_bias_silu_64x4096x4096,linear_bias_silu_100x4096x4096,linear_bias_silu_128x4096x4096,linear_bias_silu_100x8192x4096,linear_bias_silu_128x8192x4096,linear_bias_silu_80x14336x4096,linear_bias_silu_100x14336x4096,linear_bias_gelu_100x4096x4096 \
    --candidates bench/gemm-skinny-pointer-candidates.json --out "$OUT" 2>&1 | grep -v "best " | tail -90
exit 0
