#!/usr/bin/env bash
# GPU round 158 (H100): linear + LayerNorm's small call (1000x1024 -> 3000) with its GEMM group in
# TILED's 128x256 tiles and in the 128x128 (and 256x128) tiles round 157 found faster at
# gelu(linear) of the shape, through pointers and descriptors: each GEMM beside cuBLAS, each
# composed call beside eager and torch.compile (bench/probe_single_wave.py, graph replays). The
# first run (not kept) wrote the GEMMs and the calls under the same names; this one, after the fix.
# Outcome (bench/results/probe-single-wave-h100.json): GEMM alone 19.0 us (TILED), 18.5 (128x128,
# descriptors), 21.2 (DEFAULT's persistent kernel), cuBLAS 15.9; the composed call 24.3, 24.0,
# 26.8 against eager's 24.1 and torch.compile's 31.5.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round158
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 python3 bench/probe_single_wave.py --out "$OUT" 2>&1 | grep -v -i warn | tail -20
exit 0
