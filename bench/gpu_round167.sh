#!/usr/bin/env bash
# GPU round 167 (H100): linear + LayerNorm as one GEMM with a row-norm epilogue
# (bench/probe_gemm_norm.py): the fused single-wave kernel (a cooperative launch whose tiles meet
# in a barrier) and the two-kernel path by config, now storing rows in 16-byte units, beside
# eager, torch.compile, cuBLAS and the composed plan's kernels; registers and spills of each
# kernel; TILED's fused kernel without its wait and combine (timing only); the verifier. Round
# 167: the fused tile keeps its pre-norm values in the output dtype (round 166: 255 registers, 36
# spilled, 44 us for the kernel), and the row-norm kernel reads a row of at most 4096 once.
# Outcome (not kept): no spills with the tile in bf16, but still 44.8 us of kernel; the stores as in
# round 166 (read offline from an sm_90 compile: aligned addresses, mask at N).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round167
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout "${LIMIT_S:-540}" python3 bench/probe_gemm_norm.py --out "$OUT" > "$OUT/probe-gemm-norm.txt" 2>&1
echo "exit $?"
tail -60 "$OUT/probe-gemm-norm.txt"
exit 0
