#!/usr/bin/env bash
# GPU round 157 (H100): the GEMM's single-wave companion at gelu(linear) 1000x1024 -> 3000, the
# shape of linear + LayerNorm's small call (96 tiles of 128x256 for 132 SMs): TILED against
# 128x128, 64x256, 256x128 and 64x128 tiles, through pointers and descriptors, as CUDA-graph
# replays beside the bare cuBLAS GEMM.
# Outcome (runs/gemm-configs-h100-single-wave-round157.json): cuBLAS 16.0 us, eager (GEMM + GELU)
# 21.7; TILED 25.7, 128x128 tiles 23.2 (descriptors) and 23.9 (pointers), the rest 25-37.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round157
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/gemm.py --configs --graphs --cases linear_bias_gelu_1000x3000x1024 \
    --candidates bench/gemm-single-wave-candidates.json --out "$OUT" 2>&1 | grep -v -i warn | tail -30
exit 0
