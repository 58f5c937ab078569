#!/usr/bin/env bash
# GPU round 172 (H100): (1) bench/probe_gemm_parts.py, a probe kernel whose 128x192 tile is three
# 64-wide dots sharing A (128 tiles, one wave, at 1000x1024->3000, where TILED's 128x256 make 96
# and cuBLAS's 128x200 make 120), beside TILED, 128x128 and cuBLAS; (2) bench/probe_gemm_store.py
# again, now with the launcher's own unit (`_output_unit`: never 32 vectors a store row; round 171
# found that layout slow at every tile and slice width); (3) bench/probe_gemm_norm.py, linear +
# LayerNorm's call with the new units (round 170: the two kernels 29.2 us, the fused 27.4, eager
# 24.6).
# Outcome (bench/results/probe-gemm-parts-h100.json, runs/probe-gemm-store-h100-round172.json,
# runs/probe-gemm-norm-h100-round172.json): 3 x 64 parts 20.1 us against TILED's 19.1 and
# cuBLAS's 16.5 (two 128-wide dots 22.9): no gain, dropped. The launcher's unit: TILED 18.9 us.
# linear + LayerNorm's two kernels 24.8 us, eager 24.5. At 1000x1024->4096 TILED 23.6 against
# 19.7 in two epilogue slices: the same slow layout where N is a multiple of 16.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round172
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout 150 python3 bench/probe_gemm_parts.py --out "$OUT" > "$OUT/probe-gemm-parts.txt" 2>&1
echo "parts exit $?"
grep -E " us|note|Error" "$OUT/probe-gemm-parts.txt" | head -40
timeout 150 python3 bench/probe_gemm_store.py --out "$OUT" > "$OUT/probe-gemm-store.txt" 2>&1
echo "store exit $?"
grep -E "x3000 .*(launcher|unit8|unit4)|cublas|Error" "$OUT/probe-gemm-store.txt" | head -40
timeout 260 python3 bench/probe_gemm_norm.py --out "$OUT" > "$OUT/probe-gemm-norm.txt" 2>&1
echo "norm exit $?"
grep -E " us |verify|Error" "$OUT/probe-gemm-norm.txt" | head -40
exit 0
