#!/usr/bin/env bash
# GPU round 173 (H100): the GEMM store capped at the launcher's unit (`store_cols`:
# tl.max_contiguous at C_UNIT, so that an N that is a multiple of 16 no longer gets 16-byte
# vectors in the slow one-row-per-warp layout; `_output_unit`: never 32 vectors a store row).
# First the GEMM's GPU tests, then bench/probe_gemm_store.py (now at 1000x1024->4096 too, where
# TILED took 23.6 us against 19.7 in two epilogue slices, round 172), bench/probe_gemm_norm.py
# (round 172: linear + LayerNorm's two kernels 24.8 us, eager 24.5), and bench/gemm.py --graphs
# at 4096^3 bf16 and fp32 and gelu(linear) 1000x1024->3000 against round 166's
# gemm-h100-graphs.json (DEFAULT's fp32 stores now go 8 bytes wide: 128 columns / 4 = 32).
# Outcome (bench/results/probe-gemm-store-h100.json, probe-gemm-norm-h100.json,
# runs/gpu-tests-gemm-h100-round173.txt, runs/gemm-h100-graphs-round173-default-configs.json):
# 10 GPU tests passed; TILED at 1000x1024->4096 19.1 us (23.1 in 16-byte vectors); linear +
# LayerNorm two kernels 24.85 us, eager 24.64. bench/gemm.py without --config-json ran DEFAULT
# in fp32 (7 TFLOP/s, spilled tiles): not the table's config, not comparable.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round173
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    > "$OUT/gpu-tests-gemm.txt" 2>&1
echo "pytest exit $?"
tail -2 "$OUT/gpu-tests-gemm.txt"
timeout 100 python3 bench/probe_gemm_store.py --out "$OUT" > "$OUT/probe-gemm-store.txt" 2>&1
echo "store exit $?"
grep -E "(launcher|unit8|unit4|cublas) |Error" "$OUT/probe-gemm-store.txt" | head -40
timeout 150 python3 bench/probe_gemm_norm.py --out "$OUT" > "$OUT/probe-gemm-norm.txt" 2>&1
echo "norm exit $?"
grep -E "1000x1024x3000 .* us |verify|Error" "$OUT/probe-gemm-norm.txt" | head -30
timeout 120 python3 bench/gemm.py --graphs --cases matmul_4096,matmul_4096_fp32,linear_bias_gelu_1000x3000x1024 \
    --out "$OUT" > "$OUT/gemm-graphs.txt" 2>&1
echo "gemm exit $?"
tail -15 "$OUT/gemm-graphs.txt"
exit 0
