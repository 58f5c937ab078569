#!/usr/bin/env bash
# GPU round 166 (H100): linear + LayerNorm as one GEMM with a row-norm epilogue
# (bench/probe_gemm_norm.py): the fused single-wave kernel (a cooperative launch whose tiles meet
# in a barrier) and the two-kernel path by config, now storing rows in 16-byte units, beside
# eager, torch.compile, cuBLAS and the composed plan's kernels; registers and spills of each
# kernel; TILED's fused kernel without its wait and combine (timing only); the verifier.
# Outcome (runs/probe-gemm-norm-h100-round166.json): the fused kernel 44 us (36 spills; stores 2
# bytes a thread in a 16-byte layout), the row-norm kernel 16.8 us (loads 2 bytes at a time).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round166
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout "${LIMIT_S:-540}" python3 bench/probe_gemm_norm.py --out "$OUT" > "$OUT/probe-gemm-norm.txt" 2>&1
echo "exit $?"
tail -60 "$OUT/probe-gemm-norm.txt"
exit 0
